package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
)

// The certificate admission plugins (certadmission.go) over a policy in which approver may
// approve for every signer of example.com (by the domain wildcard), signer may sign for
// example.com/signer only and attester may attest for it; nobody is bound for other.com.

const (
	// testCAPEM is a self-signed CA certificate (ECDSA P-256, CN writepath-test-ca).
	testCAPEM = "-----BEGIN CERTIFICATE-----\nMIIBaDCCAQ+gAwIBAgIBBzAKBggqhkjOPQQDAjAcMRowGAYDVQQDExF3cml0ZXBh\ndGgtdGVzdC1jYTAeFw0yMzExMTQyMjEzMjBaFw0zMDAzMTcxNzQ2NDBaMBwxGjAY\nBgNVBAMTEXdyaXRlcGF0aC10ZXN0LWNhMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD\nQgAEPGxJGZW6a5U9Mc6xPVcJftBjtDri20zS9kUVh/YVwDXDX/oCcvvYY3ZJ+kc9\n9UG453ym3nAVak6VTEIpMVhfTaNCMEAwDgYDVR0PAQH/BAQDAgKEMA8GA1UdEwEB\n/wQFMAMBAf8wHQYDVR0OBBYEFEUkPNbleWDBQ9WJeR6c2zFDgbjiMAoGCCqGSM49\nBAMCA0cAMEQCIBxKiFVk4pNQR0M8PyIMf41boFRaz2sQ6jjJnkArB/emAiAZFOMK\nl4QOZ9yK15i7vRB4AnJpLCijQ3eqtnmTEEqO2Q==\n-----END CERTIFICATE-----\n"
	// testCABase64 is testCAPEM as a []byte field's JSON.
	testCABase64 = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJhRENDQVErZ0F3SUJBZ0lCQnpBS0JnZ3Foa2pPUFFRREFqQWNNUm93R0FZRFZRUURFeEYzY21sMFpYQmgKZEdndGRHVnpkQzFqWVRBZUZ3MHlNekV4TVRReU1qRXpNakJhRncwek1EQXpNVGN4TnpRMk5EQmFNQnd4R2pBWQpCZ05WQkFNVEVYZHlhWFJsY0dGMGFDMTBaWE4wTFdOaE1Ga3dFd1lIS29aSXpqMENBUVlJS29aSXpqMERBUWNEClFnQUVQR3hKR1pXNmE1VTlNYzZ4UFZjSmZ0Qmp0RHJpMjB6UzlrVVZoL1lWd0RYRFgvb0NjdnZZWTNaSitrYzkKOVVHNDUzeW0zbkFWYWs2VlRFSXBNVmhmVGFOQ01FQXdEZ1lEVlIwUEFRSC9CQVFEQWdLRU1BOEdBMVVkRXdFQgovd1FGTUFNQkFmOHdIUVlEVlIwT0JCWUVGRVVrUE5ibGVXREJROVdKZVI2YzJ6RkRnYmppTUFvR0NDcUdTTTQ5CkJBTUNBMGNBTUVRQ0lCeEtpRlZrNHBOUVIwTThQeUlNZjQxYm9GUmF6MnNRNmpqSm5rQXJCL2VtQWlBWkZPTUsKbDRRT1o5eUsxNWk3dlJCNEFuSnBMQ2lqUTNlcXRubVRFRXFPMlE9PQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg=="
	// testMastersCSR is a PKCS#10 request (ECDSA P-256, CN mallory, O devs and system:masters),
	// base64.
	testMastersCSR = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIek1JR2FBZ0VBTURneEpEQUxCZ05WQkFvVEJHUmxkbk13RlFZRFZRUUtFdzV6ZVhOMFpXMDZiV0Z6ZEdWeQpjekVRTUE0R0ExVUVBeE1IYldGc2JHOXllVEJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQm9tCm5weldMM3JzR2JsNWkwTklvbFEwTCsvV1R5V3hhY3hZNnRSeEJOSU8zc1NWUVlEV2xpSUJielgzblMraE00RFEKSnZ1SEF5aXNTTGpvbEdMQjhvU2dBREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUVBMDhSdXhJKzhDUEtZQjJITwp6RHpTYjB2MzQ2MEh0ODBxamRqL3FKZDdTTndDSUVLV3dLNlhTNXF3OHJxdTZCUldleTNEWU1OV1RXMDBYdlBwCmdseld4MzBxCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
)

var signerPolicy = []string{
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"approve-example"},"rules":[{"verbs":["approve"],"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["example.com/*"]}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"sign-signer"},"rules":[{"verbs":["sign"],"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["example.com/signer"]}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"attest-signer"},"rules":[{"verbs":["attest"],"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["example.com/signer"]}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"approver"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"approve-example"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"approver"}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"signer"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"sign-signer"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"signers"}]}`,
	// A RoleBinding grants nothing on a cluster-scoped signer.
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"attester","namespace":"default"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"attest-signer"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"attester"}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"attester"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"attest-signer"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"attester2"}]}`,
}

var (
	certAdmin    = registry.User{Name: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	certApprover = registry.User{Name: "approver", Groups: []string{"system:authenticated"}}
	certSigner   = registry.User{Name: "sam", Groups: []string{"signers", "system:authenticated"}}
	certNobody   = registry.User{Name: "carol", Groups: []string{"system:authenticated"}}
)

func certWorld(t *testing.T, signer string, extra ...map[string]any) *registry.Static {
	csr := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": "c", "uid": "u-c", "resourceVersion": "10", "creationTimestamp": "2026-12-04T01:00:00Z"},
		"spec": map[string]any{"request": testCSR, "signerName": signer, "usages": []any{"client auth"}, "username": "system:node:a",
			"groups": []any{"system:nodes", "system:authenticated"}}}
	objs := append(objectsOf(t, signerPolicy...), csr)
	w, err := registry.NewStatic(append(objs, extra...), registry.StaticOptions{})
	require.NoError(t, err)
	return w
}

func certRequest(t *testing.T, w registry.World, u registry.User, method, path, contentType, body string) registry.Response {
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, ContentType: contentType,
		Body: []byte(body), User: u, Now: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	return resp
}

// forbiddenStatus is the apiserver's 403 body (admission.NewForbidden) for resource
// name; msg is JSON-escaped.
func forbiddenStatus(resource, name, msg string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"%s.certificates.k8s.io \"%s\" is forbidden: %s","reason":"Forbidden","details":{"name":"%s","group":"certificates.k8s.io","kind":"%s"},"code":403}`,
		resource, name, msg, name, resource)
}

// TestCertificateApproval: an /approval update needs "approve" on the stored request's signer
// or on its domain's wildcard; system:masters needs no binding.
func TestCertificateApproval(t *testing.T) {
	approve := `[{"op":"add","path":"/status","value":{"conditions":[{"type":"Approved","status":"True","reason":"R"}]}}]`
	for _, tc := range []struct {
		user   registry.User
		signer string
		code   int
	}{
		{certAdmin, "other.com/x", 200},
		{certApprover, "example.com/signer", 200},
		{certApprover, "example.com/other", 200}, // by the domain's wildcard
		{certApprover, "other.com/x", 403},
		{certSigner, "example.com/signer", 403}, // sign is not approve
		{certNobody, "example.com/signer", 403},
	} {
		w := certWorld(t, tc.signer)
		resp := certRequest(t, w, tc.user, "PATCH", "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval", "application/json-patch+json", approve)
		require.Equal(t, tc.code, resp.Code, "%s %s: %s", tc.user.Name, tc.signer, resp.Body)
		if tc.code == 403 {
			assert.Equal(t, forbiddenStatus("certificatesigningrequests", "c", fmt.Sprintf(`user not permitted to approve requests with signerName \"%s\"`, tc.signer)), string(resp.Body))
		}
	}
	// The main resource's update is not an approval (its strategy keeps the stored status).
	w := certWorld(t, "example.com/signer")
	resp := certRequest(t, w, certNobody, "PATCH", "/apis/certificates.k8s.io/v1/certificatesigningrequests/c", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	assert.Equal(t, 200, resp.Code, "%s", resp.Body)
}

// TestCertificateSigning: a /status update that changes the certificate or the conditions
// needs "sign" on the signer; one that changes neither needs nothing.
func TestCertificateSigning(t *testing.T) {
	issue := `{"status":{"certificate":"` + testCABase64 + `"}}`
	for _, tc := range []struct {
		name, body string
		user       registry.User
		signer     string
		code       int
	}{
		{"issue, allowed", issue, certSigner, "example.com/signer", 200},
		{"issue, admin", issue, certAdmin, "example.com/other", 200},
		{"issue, exact name only", issue, certSigner, "example.com/other", 403},
		{"issue, approver", issue, certApprover, "example.com/signer", 403},
		{"a condition", `{"status":{"conditions":[{"type":"Failed","status":"True","reason":"R"}]}}`, certNobody, "example.com/signer", 403},
		{"labels only", `{"metadata":{"labels":{"a":"b"}}}`, certNobody, "example.com/signer", 200},
		// The empty certificate decodes to an empty, not a nil, byte slice: a change.
		{"empty certificate", `{"status":{"certificate":""}}`, certNobody, "example.com/signer", 403},
		{"null certificate", `{"status":{"certificate":null}}`, certNobody, "example.com/signer", 200},
	} {
		w := certWorld(t, tc.signer)
		resp := certRequest(t, w, tc.user, "PATCH", "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/status", "application/merge-patch+json", tc.body)
		require.Equal(t, tc.code, resp.Code, "%s: %s", tc.name, resp.Body)
		if tc.code == 403 {
			assert.Equal(t, forbiddenStatus("certificatesigningrequests", "c", fmt.Sprintf(`user not permitted to sign requests with signerName \"%s\"`, tc.signer)), string(resp.Body), tc.name)
		}
	}
}

// TestCertificateSubjectRestriction: nobody, system:masters included, creates a request for
// the kube-apiserver-client signer with the system:masters organization.
func TestCertificateSubjectRestriction(t *testing.T) {
	w := certWorld(t, "example.com/signer")
	body := func(signer, request string) string {
		return `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"generateName":"m-"},
			"spec":{"request":"` + request + `","signerName":"` + signer + `","usages":["client auth","digital signature"]}}`
	}
	path := "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All"
	resp := certRequest(t, w, certAdmin, "POST", path, "application/json", body("kubernetes.io/kube-apiserver-client", testMastersCSR))
	require.Equal(t, 403, resp.Code, "%s", resp.Body)
	// The generated name, as the plugin sees the object after the store's BeforeCreate.
	assert.Regexp(t, `^\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"certificatesigningrequests.certificates.k8s.io \\"m-[a-z0-9]{5}\\" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed","reason":"Forbidden"`, string(resp.Body))
	for _, tc := range []struct{ signer, request string }{
		{"example.com/signer", testMastersCSR},
		{"kubernetes.io/kube-apiserver-client", testCSR},
	} {
		resp := certRequest(t, w, certNobody, "POST", path, "application/json", body(tc.signer, tc.request))
		assert.Equal(t, 201, resp.Code, "%s %s: %s", tc.signer, tc.request[:8], resp.Body)
	}
}

// TestClusterTrustBundleAttest: a bundle with a signer needs "attest" on it, on create and on
// an update that changes more than the fields the garbage collector writes.
func TestClusterTrustBundleAttest(t *testing.T) {
	stored := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "ClusterTrustBundle",
		"metadata": map[string]any{"name": "example.com:signer:b", "uid": "u-b", "resourceVersion": "11", "creationTimestamp": "2026-12-04T01:00:00Z"},
		"spec":     map[string]any{"signerName": "example.com/signer", "trustBundle": testCAPEM}}
	w := certWorld(t, "example.com/signer", stored)
	const path = "/apis/certificates.k8s.io/v1/clustertrustbundles"
	create := func(name, signer string) string {
		s := ""
		if signer != "" {
			s = `"signerName":"` + signer + `",`
		}
		return `{"apiVersion":"certificates.k8s.io/v1","kind":"ClusterTrustBundle","metadata":{"name":"` + name + `"},"spec":{` + s + `"trustBundle":` + fmt.Sprintf("%q", testCAPEM) + `}}`
	}
	attestMsg := `user not permitted to attest for signerName \"example.com/signer\"`
	for _, tc := range []struct {
		name       string
		user       registry.User
		method     string
		path, body string
		code       int
		bundle     string
	}{
		{"create, attester2", certUserNamed("attester2"), "POST", path + "?dryRun=All", create("example.com:signer:new", "example.com/signer"), 201, ""},
		{"create, a RoleBinding grants nothing", certUserNamed("attester"), "POST", path + "?dryRun=All", create("example.com:signer:new", "example.com/signer"), 403, "example.com:signer:new"},
		{"create, no signer", certNobody, "POST", path + "?dryRun=All", create("plain", ""), 201, ""},
		{"create, admin", certAdmin, "POST", path + "?dryRun=All", create("example.com:signer:new", "example.com/signer"), 201, ""},
		{"update, labels", certNobody, "PATCH", path + "/example.com:signer:b?dryRun=All", `{"metadata":{"labels":{"a":"b"}}}`, 403, "example.com:signer:b"},
		{"update, finalizers and ownerReferences", certNobody, "PATCH", path + "/example.com:signer:b?dryRun=All",
			`{"metadata":{"finalizers":["example.com/f"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u-o"}]}}`, 200, ""},
		{"update, nothing", certNobody, "PATCH", path + "/example.com:signer:b?dryRun=All", `{}`, 200, ""},
	} {
		ct := "application/json"
		if tc.method == "PATCH" {
			ct = "application/merge-patch+json"
		}
		resp := certRequest(t, w, tc.user, tc.method, tc.path, ct, tc.body)
		require.Equal(t, tc.code, resp.Code, "%s: %s", tc.name, resp.Body)
		if tc.code == 403 {
			assert.Equal(t, forbiddenStatus("clustertrustbundles", tc.bundle, attestMsg), string(resp.Body), tc.name)
		}
	}
}

func certUserNamed(name string) registry.User {
	return registry.User{Name: name, Groups: []string{"system:authenticated"}}
}

// FuzzCertificateAdmission: any rules of a role bound to the user, any stored CSR or bundle and
// any patch of /approval, /status, the CSR collection or a bundle: no panic, neither the body
// nor the world modified, no writes with a refusal, and system:masters refused only by
// CertificateSubjectRestriction.
func FuzzCertificateAdmission(f *testing.F) {
	seeds := []struct {
		which, who    uint8
		rules, stored string
		patch, signer string
	}{
		{0, 1, `[{"verbs":["approve"],"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["example.com/*"]}]`, `{}`,
			`{"status":{"conditions":[{"type":"Approved","status":"True"}]}}`, "example.com/signer"},
		{1, 1, `[{"verbs":["sign"],"apiGroups":["*"],"resources":["*"]}]`, `{"conditions":[{"type":"Approved","status":"True"}]}`,
			`{"status":{"certificate":"` + testCABase64 + `"}}`, "example.com/signer"},
		{1, 0, `[]`, `{"certificate":""}`, `{"status":{"certificate":""}}`, "example.com"},
		{2, 2, `[]`, `{}`, `{"spec":{"request":"` + testMastersCSR + `"}}`, "kubernetes.io/kube-apiserver-client"},
		{3, 1, `[{"verbs":["attest"],"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["x/y"]}]`, `{}`,
			`{"metadata":{"finalizers":["a/b"]}}`, "x/y"},
		{3, 0, `[{"verbs":"attest"}]`, `{"junk":1}`, `{"spec":{"signerName":7}}`, "a/b/c"},
	}
	for _, s := range seeds {
		f.Add(s.which, s.who, s.rules, s.stored, s.patch, s.signer)
	}
	f.Fuzz(func(t *testing.T, which, who uint8, rules, stored, patch, signer string) {
		var ruleList, storedValue, patchValue any
		if json.Unmarshal([]byte(rules), &ruleList) != nil || json.Unmarshal([]byte(stored), &storedValue) != nil ||
			json.Unmarshal([]byte(patch), &patchValue) != nil {
			return
		}
		u := []registry.User{certAdmin, certUserNamed("fuzzer"), {Name: "fuzzer", Groups: []string{"fuzzers"}}}[int(who)%3]
		objs := []map[string]any{
			value.FromGoMap(map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
				"metadata": map[string]any{"name": "fuzz", "resourceVersion": "1"}, "rules": ruleList}),
			{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "fuzz", "resourceVersion": "1"},
				"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "fuzz"},
				"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "fuzzer"},
					map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "fuzzers"}}},
			value.FromGoMap(map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
				"metadata": map[string]any{"name": "c", "uid": "u-c", "resourceVersion": "10", "creationTimestamp": "2026-12-04T01:00:00Z"},
				"spec":     map[string]any{"request": testCSR, "signerName": signer, "usages": []any{"client auth"}},
				"status":   storedValue}),
			value.FromGoMap(map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "ClusterTrustBundle",
				"metadata": map[string]any{"name": "b", "uid": "u-b", "resourceVersion": "11", "creationTimestamp": "2026-12-04T01:00:00Z"},
				"spec":     map[string]any{"signerName": signer, "trustBundle": testCAPEM}}),
		}
		w, err := registry.NewStatic(objs, registry.StaticOptions{})
		if err != nil {
			return
		}
		method, path, ct := "PATCH", "", "application/merge-patch+json"
		body, _ := json.Marshal(patchValue)
		switch which % 4 {
		case 0:
			path = "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval"
		case 1:
			path = "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/status"
		case 2:
			method, path, ct = "POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All", "application/json"
			doc := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": map[string]any{"name": "n"},
				"spec": map[string]any{"request": testCSR, "signerName": signer, "usages": []any{"client auth"}}}
			if m, ok := patchValue.(map[string]any); ok {
				for k, v := range m {
					doc[k] = v
				}
			}
			body, _ = json.Marshal(doc)
		default:
			path = "/apis/certificates.k8s.io/v1/clustertrustbundles/b"
		}
		before, err := value.DeepCopy(toAnyList(w.Objects()))
		require.NoError(t, err)
		bodyCopy := append([]byte(nil), body...)
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, ContentType: ct,
			Body: body, User: u, Now: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)})
		if err != nil {
			require.Equal(t, 500, resp.Code)
		}
		require.NotZero(t, resp.Code)
		require.Equal(t, bodyCopy, body, "the body was modified")
		require.True(t, value.Equal(before, toAnyList(w.Objects())), "the world's objects were modified")
		if resp.Code >= 400 {
			require.Empty(t, writes)
		}
		if u.Name == certAdmin.Name && resp.Code == 403 {
			for _, words := range []string{"user not permitted to approve", "user not permitted to sign", "user not permitted to attest"} {
				require.False(t, strings.Contains(string(resp.Body), words), "system:masters refused: %s", resp.Body)
			}
		}
	})
}
