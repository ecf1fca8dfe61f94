// Package certadmission is the differential test of writepath's certificate admission plugins
// (registry/certadmission.go) against kube-apiserver 1.37's own (k8s.io/kubernetes v1.37.2
// plugin/pkg/admission/certificates: approval, signing, ctbattest, subjectrestriction), with the
// apiserver's authorizer as kube-apiserver builds it for --authorization-mode=RBAC: the
// system:masters group, then the RBAC authorizer over the same random policy writepath stores.
//
// Each case is a random user, a random RBAC policy (cluster roles whose rules name the signers
// resource, its wildcard or others, exact signer names, domain wildcards or none, bound to
// users, groups or service accounts by cluster role bindings or role bindings) and one write:
// a CSR /approval or /status update, a CSR create, a ClusterTrustBundle create or update. The
// reference side decodes the body as the apiserver does (legacyscheme, internal types), runs the
// endpoint's REST strategy (PrepareForCreate/PrepareForUpdate, Validate/ValidateUpdate) and,
// when the object is valid, the plugin's Validate; writepath's side is registry.Handle over a
// Static world holding the stored object and the policy. Compared: a valid write is admitted by
// both, or refused by both with the same metav1.Status (message, reason, details, code); an
// invalid one is a 422 in writepath (its words are the validation differential's business).
//
//	cd conformance/defaults && go test -count=1 -run TestCertificateAdmission -v ./certadmission/
//	cd conformance/defaults && WRITEPATH_CASES=20000 go test -count=1 -run TestCertificateAdmission -v ./certadmission/
package certadmission

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/union"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	csrregistry "k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
	certapproval "k8s.io/kubernetes/plugin/pkg/admission/certificates/approval"
	"k8s.io/kubernetes/plugin/pkg/admission/certificates/ctbattest"
	certsigning "k8s.io/kubernetes/plugin/pkg/admission/certificates/signing"
	certsubjectrestriction "k8s.io/kubernetes/plugin/pkg/admission/certificates/subjectrestriction"
	rbacauthorizer "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"

	"github.com/writepath/writepath/registry"
)

// caseCount is the number of cases: a fixed small sample by default (make test), 100,000 with
// WRITEPATH_LONG=1, WRITEPATH_CASES=n otherwise.
func caseCount() int {
	if os.Getenv("WRITEPATH_LONG") == "1" {
		return 100_000
	}
	if n, err := strconv.Atoi(os.Getenv("WRITEPATH_CASES")); err == nil && n > 0 {
		return n
	}
	return 300
}

var now = time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)

// pki holds PEM requests and certificates made once per run (their bytes do not decide any
// answer).
type pki struct {
	nodesCSR, mastersCSR, devsCSR []byte
	ca, otherCA, leaf             []byte
}

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
		req := func(cn string, orgs ...string) []byte {
			der, err := x509.CreateCertificateRequest(crand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
			if err != nil {
				panic(err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
		}
		pkiData.nodesCSR = req("system:node:a", "system:nodes")
		pkiData.mastersCSR = req("mallory", "devs", "system:masters")
		pkiData.devsCSR = req("dev", "devs")
		cert := func(cn string, ca bool) []byte {
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(len(cn))), Subject: pkix.Name{CommonName: cn},
				NotBefore: time.Unix(1_700_000_000, 0), NotAfter: time.Unix(1_900_000_000, 0), IsCA: ca, BasicConstraintsValid: ca,
				KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
			d, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
			if err != nil {
				panic(err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d})
		}
		pkiData.ca, pkiData.otherCA, pkiData.leaf = cert("ca", true), cert("other-ca", true), cert("leaf", false)
	})
	return pkiData
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

var signers = []string{"example.com/signer", "example.com/other", "other.org/x", "kubernetes.io/kube-apiserver-client",
	"kubernetes.io/kubelet-serving", "kubernetes.io/kube-apiserver-client-kubelet"}

type testUser struct {
	name   string
	groups []string
}

var users = []testUser{
	{"alice", []string{"system:authenticated"}},
	{"bob", []string{"team-a", "system:authenticated"}},
	{"system:serviceaccount:kube-system:signer", []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}},
	{"carol", []string{"system:authenticated"}},
	{"root", []string{"system:masters", "system:authenticated"}},
}

// randomPolicy is a few cluster roles about signers and their bindings, as v1 objects.
func randomPolicy(r *rand.Rand) []runtime.Object {
	var out []runtime.Object
	nRoles := r.Intn(4)
	for i := 0; i < nRoles; i++ {
		role := &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("role-%d", i)}}
		for j := 0; j <= r.Intn(2); j++ {
			rule := rbacv1.PolicyRule{
				Verbs:     pick(r, [][]string{{"approve"}, {"sign"}, {"attest"}, {"*"}, {"approve", "sign"}, {"update"}, {"attest", "get"}}),
				APIGroups: pick(r, [][]string{{"certificates.k8s.io"}, {"certificates.k8s.io"}, {"*"}, {""}}),
				Resources: pick(r, [][]string{{"signers"}, {"signers"}, {"*"}, {"certificatesigningrequests"}, {"signers/status"}}),
			}
			switch r.Intn(5) {
			case 0, 1:
				s := pick(r, signers)
				rule.ResourceNames = []string{s}
			case 2:
				rule.ResourceNames = []string{pick(r, []string{"example.com/*", "kubernetes.io/*", "other.org/*", "*"})}
			case 3:
				rule.ResourceNames = []string{pick(r, signers), pick(r, []string{"example.com/*", "nothing"})}
			}
			role.Rules = append(role.Rules, rule)
		}
		out = append(out, role)
	}
	subject := func() rbacv1.Subject {
		switch r.Intn(4) {
		case 0:
			return rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: pick(r, users).name}
		case 1:
			return rbacv1.Subject{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: pick(r, []string{"team-a", "system:authenticated", "system:serviceaccounts"})}
		case 2:
			return rbacv1.Subject{Kind: "ServiceAccount", Namespace: "kube-system", Name: pick(r, []string{"signer", "other"})}
		}
		return rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}
	}
	for i := 0; i < r.Intn(5); i++ {
		roleName := fmt.Sprintf("role-%d", r.Intn(nRoles+1)) // sometimes a missing role
		ref := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: roleName}
		subjects := []rbacv1.Subject{subject()}
		if r.Intn(3) == 0 {
			subjects = append(subjects, subject())
		}
		if r.Intn(4) == 0 {
			// A RoleBinding grants nothing on the cluster-scoped signers.
			out = append(out, &rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rb-%d", i), Namespace: "default"}, RoleRef: ref, Subjects: subjects})
			continue
		}
		out = append(out, &rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("crb-%d", i)}, RoleRef: ref, Subjects: subjects})
	}
	return out
}

// referenceAuthorizer is kube-apiserver's authorizer with --authorization-mode=RBAC: the
// privileged group, then RBAC over the policy.
func referenceAuthorizer(t *testing.T, policy []runtime.Object) authorizer.Authorizer {
	idx := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	roles, bindings, croles, cbindings := idx(), idx(), idx(), idx()
	for _, o := range policy {
		var err error
		switch x := o.(type) {
		case *rbacv1.ClusterRole:
			err = croles.Add(x)
		case *rbacv1.ClusterRoleBinding:
			err = cbindings.Add(x)
		case *rbacv1.RoleBinding:
			err = bindings.Add(x)
		case *rbacv1.Role:
			err = roles.Add(x)
		}
		require.NoError(t, err)
	}
	rbac := rbacauthorizer.New(&rbacauthorizer.RoleGetter{Lister: rbaclisters.NewRoleLister(roles)},
		&rbacauthorizer.RoleBindingLister{Lister: rbaclisters.NewRoleBindingLister(bindings)},
		&rbacauthorizer.ClusterRoleGetter{Lister: rbaclisters.NewClusterRoleLister(croles)},
		&rbacauthorizer.ClusterRoleBindingLister{Lister: rbaclisters.NewClusterRoleBindingLister(cbindings)})
	// pkg/kubeapiserver/authorizer/reload.go names them so.
	a, err := union.New(union.NamedAuthorizer{AuthorizerName: "kubernetes.io/system-privileged-group", Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)},
		union.NamedAuthorizer{AuthorizerName: "rbac", Authorizer: rbac})
	require.NoError(t, err)
	return a
}

// op is one write of a case.
type op struct {
	kind        string // approval, status, csr-create, ctb-create, ctb-update
	method      string
	path        string
	resource    string
	subresource string
	name        string
	stored      map[string]any // nil on create
	body        map[string]any
}

func csrObject(signer string, request []byte) map[string]any {
	return map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": "c", "uid": "u-c", "resourceVersion": "5", "creationTimestamp": "2026-12-04T01:00:00Z"},
		"spec": map[string]any{"request": request, "signerName": signer, "usages": []any{"client auth", "digital signature"},
			"username": "system:node:a", "groups": []any{"system:nodes", "system:authenticated"}}}
}

func condition(t, reason string) map[string]any {
	return map[string]any{"type": t, "status": "True", "reason": reason, "message": "m",
		"lastUpdateTime": "2026-12-04T02:00:00Z", "lastTransitionTime": "2026-12-04T02:00:00Z"}
}

// jsonCopy is a deep copy through JSON (the bodies hold []byte values as base64, as JSON does).
func jsonCopy(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func randomOp(t *testing.T, r *rand.Rand) op {
	p := testPKI()
	signer := pick(r, signers)
	switch r.Intn(5) {
	case 0: // /approval
		stored := jsonCopy(t, csrObject(signer, p.nodesCSR))
		body := jsonCopy(t, stored)
		body["status"] = map[string]any{"conditions": []any{condition(pick(r, []string{"Approved", "Denied"}), "ByTest")}}
		return op{kind: "approval", method: "PUT", path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval",
			resource: "certificatesigningrequests", subresource: "approval", name: "c", stored: stored, body: body}
	case 1: // /status
		storedObj := csrObject(signer, p.nodesCSR)
		st := map[string]any{"conditions": []any{condition("Approved", "ByApprover")}}
		if r.Intn(3) == 0 {
			st["certificate"] = p.leaf
		}
		storedObj["status"] = st
		stored := jsonCopy(t, storedObj)
		body := jsonCopy(t, stored)
		bst := body["status"].(map[string]any)
		switch r.Intn(5) {
		case 0:
			bst["certificate"] = p.ca
		case 1:
			delete(bst, "certificate")
		case 2:
			bst["certificate"] = ""
		case 3:
			bst["certificate"] = nil
		}
		if r.Intn(3) == 0 {
			bst["conditions"] = append(bst["conditions"].([]any), condition("Failed", "SignerFailed"))
		}
		if r.Intn(4) == 0 {
			// Times the strategy fills in from the stored condition or now.
			c := bst["conditions"].([]any)[0].(map[string]any)
			delete(c, "lastUpdateTime")
		}
		return op{kind: "status", method: "PUT", path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/status",
			resource: "certificatesigningrequests", subresource: "status", name: "c", stored: stored, body: body}
	case 2: // CSR create
		req := pick(r, [][]byte{p.nodesCSR, p.mastersCSR, p.devsCSR})
		if r.Intn(2) == 0 {
			signer = "kubernetes.io/kube-apiserver-client"
		}
		body := jsonCopy(t, csrObject(signer, req))
		md := body["metadata"].(map[string]any)
		delete(md, "uid")
		delete(md, "resourceVersion")
		delete(md, "creationTimestamp")
		return op{kind: "csr-create", method: "POST", path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
			resource: "certificatesigningrequests", name: "c", body: body}
	case 3: // ClusterTrustBundle create
		body := ctbObject(r, p, pick(r, append([]string{""}, signers...)))
		md := body["metadata"].(map[string]any)
		delete(md, "uid")
		delete(md, "resourceVersion")
		delete(md, "creationTimestamp")
		return op{kind: "ctb-create", method: "POST", path: "/apis/certificates.k8s.io/v1/clustertrustbundles",
			resource: "clustertrustbundles", name: md["name"].(string), body: body}
	}
	stored := ctbObject(r, p, pick(r, append([]string{""}, signers...)))
	if r.Intn(3) == 0 {
		stored["metadata"].(map[string]any)["finalizers"] = []any{"example.com/keep"}
	}
	body := jsonCopy(t, stored)
	md := body["metadata"].(map[string]any)
	for _, change := range r.Perm(5)[:1+r.Intn(2)] {
		switch change {
		case 0:
			md["finalizers"] = []any{"example.com/f"}
		case 1:
			md["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u-o"}}
		case 2:
			md["labels"] = map[string]any{"a": "b"}
		case 3:
			body["spec"].(map[string]any)["trustBundle"] = string(p.ca) + string(p.otherCA)
		case 4:
			delete(md, "finalizers")
		}
	}
	return op{kind: "ctb-update", method: "PUT", path: "/apis/certificates.k8s.io/v1/clustertrustbundles/" + md["name"].(string),
		resource: "clustertrustbundles", name: md["name"].(string), stored: stored, body: body}
}

func ctbObject(r *rand.Rand, p pki, signer string) map[string]any {
	name := "bundle"
	spec := map[string]any{"trustBundle": string(p.ca)}
	if signer != "" {
		spec["signerName"] = signer
		name = colonName(signer) + ":b"
	}
	return map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "ClusterTrustBundle",
		"metadata": map[string]any{"name": name, "uid": "u-b", "resourceVersion": "6", "creationTimestamp": "2026-12-04T01:00:00Z"},
		"spec":     spec}
}

func colonName(signer string) string {
	out := []byte(signer)
	for i, c := range out {
		if c == '/' {
			out[i] = ':'
		}
	}
	return string(out)
}

// decodeInternal is the body as the apiserver holds it: decoded from JSON into the v1 type,
// defaulted and converted to the internal type.
func decodeInternal(t *testing.T, obj map[string]any) runtime.Object {
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	out, _, err := legacyscheme.Codecs.UniversalDecoder().Decode(b, nil, nil)
	require.NoError(t, err, "%s", b)
	return out
}

// reference answers the op as kube-apiserver does from the strategy on: invalid reports a 422
// (the object the strategy refuses), else err is the plugin's refusal or nil.
func reference(t *testing.T, o op, u testUser, authz authorizer.Authorizer) (invalid bool, err error) {
	info := &user.DefaultInfo{Name: u.name, Groups: u.groups}
	verb := "update"
	if o.method == "POST" {
		verb = "create"
	}
	ctx := genericapirequest.WithUser(context.Background(), info)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: verb,
		APIGroup: "certificates.k8s.io", APIVersion: "v1", Resource: o.resource, Subresource: o.subresource, Name: o.name})
	obj := decodeInternal(t, o.body)
	var old runtime.Object
	var create rest.RESTCreateStrategy
	var update rest.RESTUpdateStrategy
	switch o.kind {
	case "approval":
		update = csrregistry.ApprovalStrategy
	case "status":
		update = csrregistry.StatusStrategy
	case "csr-create":
		create = csrregistry.Strategy
	case "ctb-create":
		create = clustertrustbundle.Strategy
	case "ctb-update":
		update = clustertrustbundle.Strategy
	}
	var aop admission.Operation
	if create != nil {
		aop = admission.Create
		create.PrepareForCreate(ctx, obj)
		if errs := create.Validate(ctx, obj); len(errs) > 0 {
			return true, nil
		}
	} else {
		aop = admission.Update
		old = decodeInternal(t, o.stored)
		update.PrepareForUpdate(ctx, obj, old)
		if errs := update.ValidateUpdate(ctx, obj, old); len(errs) > 0 {
			return true, nil
		}
	}
	gvr := kschema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: o.resource}
	kind := kschema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: o.body["kind"].(string)}
	name := o.name
	if aop == admission.Create {
		name = "" // a POST to the collection: the plugin reads the object's name
	}
	attrs := admission.NewAttributesRecord(obj, old, kind, "", name, gvr, o.subresource, aop, nil, false, info)
	var plugins []admission.ValidationInterface
	a := certapproval.NewPlugin()
	a.SetUnconditionalAuthorizer(authz)
	s := certsigning.NewPlugin()
	s.SetUnconditionalAuthorizer(authz)
	c := ctbattest.NewPlugin()
	c.SetUnconditionalAuthorizer(authz)
	c.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	plugins = append(plugins, a, s, c, certsubjectrestriction.NewPlugin())
	for _, p := range plugins {
		if h, ok := p.(admission.Interface); ok && !h.Handles(aop) {
			continue
		}
		if err := p.Validate(ctx, attrs, nil); err != nil {
			return false, err
		}
	}
	return false, nil
}

func toMaps(t *testing.T, objs []runtime.Object) []map[string]any {
	var out []map[string]any
	for _, o := range objs {
		out = append(out, jsonCopy(t, o))
	}
	return out
}

// TestCertificateAdmission compares the answers case by case.
func TestCertificateAdmission(t *testing.T) {
	n := caseCount()
	r := rand.New(rand.NewSource(17))
	counts := map[string]map[string]int{}
	count := func(kind, what string) {
		if counts[kind] == nil {
			counts[kind] = map[string]int{}
		}
		counts[kind][what]++
	}
	disagreements := 0
	for i := 0; i < n; i++ {
		policy := randomPolicy(r)
		u := pick(r, users)
		o := randomOp(t, r)
		invalid, refErr := reference(t, o, u, referenceAuthorizer(t, policy))

		objs := toMaps(t, policy)
		if o.stored != nil {
			objs = append(objs, o.stored)
		}
		w, err := registry.NewStatic(objs, registry.StaticOptions{})
		require.NoError(t, err)
		body, err := json.Marshal(o.body)
		require.NoError(t, err)
		resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: o.method, Path: o.path,
			ContentType: "application/json", Body: body, User: registry.User{Name: u.name, Groups: u.groups}, Now: now})
		require.NoError(t, err)

		var want string
		switch {
		case invalid:
			count(o.kind, "invalid")
			if resp.Code != 422 {
				want = "422"
			}
		case refErr != nil:
			count(o.kind, "refused")
			st, ok := refErr.(apierrors.APIStatus)
			require.True(t, ok, "%T %v", refErr, refErr)
			wantBody, err := json.Marshal(st.Status())
			require.NoError(t, err)
			var got, exp map[string]any
			require.NoError(t, json.Unmarshal(wantBody, &exp))
			if json.Unmarshal(resp.Body, &got) != nil || !assert.ObjectsAreEqual(normalStatus(exp), normalStatus(got)) {
				want = string(wantBody)
			}
		default:
			count(o.kind, "admitted")
			if resp.Code != 200 && resp.Code != 201 {
				want = "2xx"
			}
		}
		if want != "" {
			disagreements++
			count(o.kind, "disagreements")
			if disagreements <= 10 {
				t.Errorf("case %d (%s, user %s): want %s\ngot %d %s\nbody %s", i, o.kind, u.name, want, resp.Code, resp.Body, body)
			}
		}
	}
	for _, k := range []string{"approval", "status", "csr-create", "ctb-create", "ctb-update"} {
		c := counts[k]
		t.Logf("%-10s cases %5d: admitted %5d, refused %5d, invalid %5d, disagreements %d", k,
			c["admitted"]+c["refused"]+c["invalid"], c["admitted"], c["refused"], c["invalid"], c["disagreements"])
	}
}

// normalStatus is a Status as compared: the apiVersion and kind the serializer adds.
func normalStatus(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	out["kind"], out["apiVersion"] = "Status", "v1"
	return out
}
