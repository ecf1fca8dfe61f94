package registry

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/rbac"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// The certificate admission plugins of kube-apiserver 1.37, default on, validating, in their
// order in AllOrderedPlugins (k8s.io/kubernetes plugin/pkg/admission/certificates):
// CertificateApproval, CertificateSigning, ClusterTrustBundleAttest (the ClusterTrustBundle
// feature is GA and on in 1.37) and CertificateSubjectRestriction. Each touches its own
// resource or subresource, so their order shows in no answer. The three that ask the
// authorizer ask kube-apiserver's (h.authorize: system:masters, then RBAC over the stored
// policy) whether the requesting user may do a verb on the signer
// (pkg/certauthorization.IsAuthorizedForSignerName). conformance/defaults/certadmission compares
// them with the reference plugins under kube-apiserver's authorizer.

var (
	csrGroupResource = status.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}
	ctbGroupResource = status.GroupResource{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}
	ctbKind          = schema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "ClusterTrustBundle"}
	csrKind          = schema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest"}
)

// kubeAPIServerClientSigner is certificatesv1.KubeAPIServerClientSignerName.
const kubeAPIServerClientSigner = "kubernetes.io/kube-apiserver-client"

// certificateValidators runs the four plugins on a create or update of a built-in resource
// (obj and old as validation left them, name the admission attributes' name).
func (h *handler) certificateValidators(op admission.Operation, obj, old map[string]any, name string) error {
	if h.ep.crd != nil || obj == nil {
		return nil
	}
	gr, sub := h.ep.groupResource(), h.ep.Subresource
	forbidden := func(format string, args ...any) error {
		return status.Forbidden(gr, name, fmt.Errorf(format, args...))
	}
	switch {
	case op == admission.Update && gr == csrGroupResource && sub == "approval" && !h.pluginDisabled("CertificateApproval"):
		// CertificateApproval: the signer of the stored request.
		signer := csrSigner(old)
		if !h.authorizedForSigner("approve", signer) {
			return forbidden("user not permitted to approve requests with signerName %q", signer)
		}
	case op == admission.Update && gr == csrGroupResource && sub == "status" && !h.pluginDisabled("CertificateSigning"):
		// CertificateSigning: a /status update that changes the certificate or the conditions.
		if h.sameCertificate(obj, old) && validation.SemanticEqual(csrKind, csrStatus(obj)["conditions"], csrStatus(old)["conditions"], "status", "conditions") {
			return nil
		}
		signer := csrSigner(old)
		if !h.authorizedForSigner("sign", signer) {
			return forbidden("user not permitted to sign requests with signerName %q", signer)
		}
	case (op == admission.Create || op == admission.Update) && gr == ctbGroupResource && !h.pluginDisabled("ClusterTrustBundleAttest"):
		// ClusterTrustBundleAttest: a bundle with a signer, unless an update changes only the
		// fields the garbage collector writes (rbac.IsOnlyMutatingGCFields).
		spec, _ := obj["spec"].(map[string]any)
		signer, _ := spec["signerName"].(string)
		if signer == "" {
			return nil
		}
		if op == admission.Update && onlyGCFieldsChanged(obj, old) {
			return nil
		}
		if !h.authorizedForSigner("attest", signer) {
			return forbidden("user not permitted to attest for signerName %q", signer)
		}
	case op == admission.Create && gr == csrGroupResource && sub == "" && !h.pluginDisabled("CertificateSubjectRestriction"):
		// CertificateSubjectRestriction.
		spec, _ := obj["spec"].(map[string]any)
		if s, _ := spec["signerName"].(string); s != kubeAPIServerClientSigner {
			return nil
		}
		orgs, err := csrOrganizations(spec["request"])
		if err != nil {
			return forbidden("failed to parse CSR: %v", err)
		}
		for _, o := range orgs {
			if o == "system:masters" {
				return forbidden("use of %s signer with system:masters group is not allowed", kubeAPIServerClientSigner)
			}
		}
	}
	return nil
}

// authorizedForSigner is certauthorization.IsAuthorizedForSignerName: the user may do verb on
// the signers resource named signerName, or else on the one named after its domain (what
// precedes the first "/") and "/*". An authorizer error counts as no permission.
func (h *handler) authorizedForSigner(verb, signerName string) bool {
	a := rbac.Attributes{User: rbacUser(h.req.User), Verb: verb, ResourceRequest: true,
		APIGroup: "certificates.k8s.io", APIVersion: "*", Resource: "signers", Name: signerName}
	if ok, _, _ := h.authorize(a); ok {
		return true
	}
	domain, _, _ := strings.Cut(signerName, "/")
	a.Name = domain + "/*"
	ok, _, _ := h.authorize(a)
	return ok
}

func csrStatus(o map[string]any) map[string]any {
	st, _ := o["status"].(map[string]any)
	return st
}

func csrSigner(o map[string]any) string {
	spec, _ := o["spec"].(map[string]any)
	s, _ := spec["signerName"].(string)
	return s
}

// sameCertificate is reflect.DeepEqual on the two status.certificate byte slices, which tells
// a nil slice (no certificate field, or null) from an empty one (""): both objects hold the
// empty one as "" (emptybytes.go).
func (h *handler) sameCertificate(obj, old map[string]any) bool {
	a, aok := csrStatus(obj)["certificate"].(string)
	b, bok := csrStatus(old)["certificate"].(string)
	if aok != bok {
		return false
	}
	return decodeBase64(a) == decodeBase64(b)
}

// decodeBase64 is the bytes a []byte field's JSON string holds (the string itself where it is
// not base64: decoding refused it before admission).
func decodeBase64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return string(b)
}

// onlyGCFieldsChanged is rbac.IsOnlyMutatingGCFields over the Go type's semantic equality: obj
// and old are equal once obj takes old's ownerReferences, finalizers, selfLink and
// managedFields.
func onlyGCFieldsChanged(obj, old map[string]any) bool {
	if old == nil {
		return false
	}
	strip := func(o map[string]any) map[string]any {
		out := copyTop(o)
		md := map[string]any{}
		for k, v := range metaOf(o) {
			switch k {
			case "ownerReferences", "finalizers", "selfLink", "managedFields":
			default:
				md[k] = v
			}
		}
		out["metadata"] = md
		return out
	}
	return validation.SemanticEqual(ctbKind, strip(obj), strip(old))
}

// csrOrganizations is certificates.ParseCSR's subject organizations: the request's first PEM
// block must be a CERTIFICATE REQUEST that x509 parses.
func csrOrganizations(request any) ([]string, error) {
	s, _ := request.(string)
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		data = []byte(s)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, err
	}
	return req.Subject.Organization, nil
}
