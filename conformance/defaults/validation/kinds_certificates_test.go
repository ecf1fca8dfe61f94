package validation

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"math/rand"
	"regexp"
	"strings"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/certificates"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	csrregistry "k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
)

// CertificateSigningRequest and ClusterTrustBundle. The seeds carry a real PKCS#10 request and
// real certificates (a CA and a leaf), made once per run; the stored requests are approved,
// denied, failed or issued as the approvers and signers leave them, some in the shapes older
// servers allowed (Approved and Denied together, a legacy signer, unknown usages), so that the
// update tolerations are reached.

func certificateKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest"},
			resource: "certificatesigningrequests", seed: seedCSR, stored: storedCSR, complete: true, prepare: true,
			// encoding/asn1's structure errors print the address of a tag (tag:0xc000123456).
			normalize: func(l string) string { return asn1Address.ReplaceAllString(l, "tag:0x?") },
			create:    csrregistry.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": csrregistry.Strategy,
				"status": csrregistry.StatusStrategy, "approval": csrregistry.ApprovalStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "ClusterTrustBundle"},
			resource: "clustertrustbundles", seed: seedCTB, complete: true,
			unordered: func(l string) bool { return strings.Contains(l, "duplicate trust anchor") },
			create:    clustertrustbundle.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": clustertrustbundle.Strategy}},
	}
}

var asn1Address = regexp.MustCompile(`tag:0x[0-9a-f]+`)

type pki struct{ csr, ca, leaf, otherCA []byte }

var (
	pkiOnce sync.Once
	pkiData pki
)

func testPKI() pki {
	pkiOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
		if err != nil {
			panic(err)
		}
		der, err := x509.CreateCertificateRequest(crand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:a", Organization: []string{"system:nodes"}}}, key)
		if err != nil {
			panic(err)
		}
		pkiData.csr = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
		mk := func(cn string, ca bool) []byte {
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(len(cn))), Subject: pkix.Name{CommonName: cn},
				NotBefore: time.Unix(1_700_000_000, 0), NotAfter: time.Unix(1_900_000_000, 0), IsCA: ca, BasicConstraintsValid: ca,
				KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
			d, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
			if err != nil {
				panic(err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d})
		}
		pkiData.ca, pkiData.leaf, pkiData.otherCA = mk("ca", true), mk("leaf", false), mk("other-ca", true)
	})
	return pkiData
}

func seedCSR(r *rand.Rand) runtime.Object {
	p := testPKI()
	c := &certificatesv1.CertificateSigningRequest{TypeMeta: metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest"},
		ObjectMeta: seedMeta(r), Spec: certificatesv1.CertificateSigningRequestSpec{Request: append([]byte(nil), p.csr...),
			SignerName: pick(r, []string{"kubernetes.io/kube-apiserver-client", "kubernetes.io/kubelet-serving", "example.com/signer", "example.com/a.b"}),
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature}}}
	if r.Intn(3) == 0 {
		c.Spec.ExpirationSeconds = ptr(int32(pick(r, []int{600, 3600, 86400})))
	}
	return c
}

// storedCSR is what the approver and the signer leave on a stored request.
func storedCSR(r *rand.Rand, obj runtime.Object) {
	c := obj.(*certificates.CertificateSigningRequest)
	p := testPKI()
	cond := func(t certificates.RequestConditionType) certificates.CertificateSigningRequestCondition {
		return certificates.CertificateSigningRequestCondition{Type: t, Status: "True", Reason: "ByTest",
			LastUpdateTime: metav1.Unix(1_700_000_000, 0), LastTransitionTime: metav1.Unix(1_700_000_000, 0)}
	}
	switch r.Intn(7) {
	case 0:
		c.Status.Conditions = []certificates.CertificateSigningRequestCondition{cond(certificates.CertificateApproved)}
	case 1:
		c.Status.Conditions = []certificates.CertificateSigningRequestCondition{cond(certificates.CertificateApproved)}
		c.Status.Certificate = append([]byte(nil), p.leaf...)
	case 2:
		c.Status.Conditions = []certificates.CertificateSigningRequestCondition{cond(certificates.CertificateDenied)}
	case 3:
		c.Status.Conditions = []certificates.CertificateSigningRequestCondition{cond(certificates.CertificateApproved), cond(certificates.CertificateFailed)}
	case 4:
		// Shapes older servers stored.
		c.Status.Conditions = []certificates.CertificateSigningRequestCondition{cond(certificates.CertificateApproved), cond(certificates.CertificateDenied)}
		if r.Intn(2) == 0 {
			c.Spec.SignerName = "kubernetes.io/legacy-unknown"
			c.Spec.Usages = append(c.Spec.Usages, "frobnicate", certificates.UsageClientAuth)
		}
		if r.Intn(2) == 0 {
			c.Status.Certificate = []byte("not a certificate")
		}
	}
}

func seedCTB(r *rand.Rand) runtime.Object {
	p := testPKI()
	b := &certificatesv1.ClusterTrustBundle{TypeMeta: metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "ClusterTrustBundle"},
		ObjectMeta: metav1.ObjectMeta{Name: "bundle"}, Spec: certificatesv1.ClusterTrustBundleSpec{TrustBundle: string(p.ca)}}
	switch r.Intn(4) {
	case 0:
		b.Spec.SignerName = "example.com/signer"
		b.Name = "example.com:signer:bundle"
	case 1:
		b.Spec.TrustBundle += string(p.otherCA)
	case 2:
		b.Spec.TrustBundle = pick(r, []string{string(p.ca) + string(p.ca), string(p.leaf), "junk", string(p.otherCA) + string(p.ca) + string(p.otherCA) + string(p.ca)})
	}
	return b
}
