package registry_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

func objectsOf(t *testing.T, docs ...string) []map[string]any {
	var out []map[string]any
	for _, d := range docs {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(d), &m), d)
		out = append(out, m)
	}
	return out
}

var reviewPolicy = []string{
	`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"reader"},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]},{"verbs":["get"],"nonResourceURLs":["/healthz"]}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"cm","namespace":"demo"},"rules":[{"verbs":["update"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["one"]}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"readers"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"reader"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"devs"}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"cm","namespace":"demo"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"cm"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"bob"}]}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"gone","namespace":"demo"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"gone"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"bob"}]}`,
}

func post(t *testing.T, w registry.World, u registry.User, path, body string) registry.Response {
	resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST", Path: path,
		ContentType: "application/json", Body: []byte(body), User: u, UserAgent: "test/v1",
		Now: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Empty(t, writes, path)
	return resp
}

// TestAccessReviewDecisions: the reviews are answered from the stored policy (the replayed
// testdata/cluster/scenarios/reviews.yaml holds the real server's answers to the same shapes).
func TestAccessReviewDecisions(t *testing.T) {
	w, err := registry.NewStatic(objectsOf(t, reviewPolicy...), registry.StaticOptions{})
	require.NoError(t, err)
	bob := registry.User{Name: "bob", Groups: []string{"devs", "system:authenticated"}}
	for _, tc := range []struct {
		name, path, body string
		user             registry.User
		status           map[string]any
	}{
		{"group via ClusterRoleBinding", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"groups":["devs"],"resourceAttributes":{"verb":"list","resource":"pods"}}}`,
			registry.User{Name: "admin", Groups: []string{"system:masters"}},
			map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "devs"`}},
		{"denied with the missing role", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"verb":"update","resource":"configmaps","namespace":"demo","name":"two"}}}`,
			registry.User{Name: "admin", Groups: []string{"system:masters"}},
			map[string]any{"allowed": false, "reason": `rbac: RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found`}},
		{"system:masters, any request", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"x","groups":["system:masters"],"nonResourceAttributes":{"verb":"delete","path":"/x"}}}`,
			registry.User{Name: "admin", Groups: []string{"system:masters"}}, map[string]any{"allowed": true}},
		{"self, the requesting user's groups", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"verb":"get","path":"/healthz"}}}`,
			bob, map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "devs"`}},
		{"local, resourceNames", "/apis/authorization.k8s.io/v1/namespaces/demo/localsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"verb":"update","resource":"configmaps","namespace":"demo","name":"one"}}}`,
			bob, map[string]any{"allowed": true, "reason": `RBAC: allowed by RoleBinding "cm/demo" of Role "cm" to User "bob"`}},
	} {
		resp := post(t, w, tc.user, tc.path, tc.body)
		require.Equal(t, 201, resp.Code, "%s: %s", tc.name, resp.Body)
		assert.Equal(t, tc.status, resp.Object["status"], tc.name)
		md, _ := resp.Object["metadata"].(map[string]any)
		assert.NotContains(t, md, "resourceVersion", tc.name)
		assert.NotContains(t, md, "uid", tc.name)
		assert.NotContains(t, md, "creationTimestamp", tc.name)
		assert.Contains(t, md, "managedFields", tc.name) // the field manager ran, as in the apiserver
	}
}

func TestSelfSubjectRulesReview(t *testing.T) {
	w, err := registry.NewStatic(objectsOf(t, reviewPolicy...), registry.StaticOptions{})
	require.NoError(t, err)
	bob := registry.User{Name: "bob", Groups: []string{"devs", "system:authenticated"}}
	resp := post(t, w, bob, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"demo"}}`)
	require.Equal(t, 201, resp.Code, string(resp.Body))
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{},"spec":{},
		"status":{"incomplete":false,"evaluationError":"clusterrole.rbac.authorization.k8s.io \"gone\" not found",
		"resourceRules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]},{"verbs":["update"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["one"]}],
		"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}]}}`), &want))
	assert.Equal(t, want, resp.Object)
	resp = post(t, w, bob, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}`)
	assert.Equal(t, 400, resp.Code)
	assert.Equal(t, "no namespace on request", resp.Object["message"])
}

func TestSelfSubjectReview(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{})
	require.NoError(t, err)
	u := registry.User{Name: "bob", UID: "u1", Groups: []string{"devs"}, Extra: map[string][]string{"scopes": {"a"}}}
	resp := post(t, w, u, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{"name":"ignored"}}`)
	require.Equal(t, 201, resp.Code, string(resp.Body))
	assert.Equal(t, map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview",
		"metadata": map[string]any{"creationTimestamp": "2026-12-04T05:00:00Z"},
		"status": map[string]any{"userInfo": map[string]any{"username": "bob", "uid": "u1", "groups": []any{"devs"},
			"extra": map[string]any{"scopes": []any{"a"}}}}}, resp.Object)
}

// authWorld is a Static world with one token.
type authWorld struct{ *registry.Static }

func (authWorld) AuthenticateToken(_ context.Context, tok string) (registry.User, bool, error) {
	return registry.User{Name: "bob", Groups: []string{"system:authenticated"}}, tok == "good", nil
}
func (authWorld) APIAudiences() []string { return []string{"api"} }

func TestTokenReview(t *testing.T) {
	s, err := registry.NewStatic(nil, registry.StaticOptions{})
	require.NoError(t, err)
	admin := registry.User{Name: "admin", Groups: []string{"system:masters"}}
	const path = "/apis/authentication.k8s.io/v1/tokenreviews"
	// Without an Authenticator, as kube-apiserver without a token authenticator: the review
	// comes back as sent (its Go type's empty status.user included).
	resp := post(t, s, admin, path, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"good"}}`)
	require.Equal(t, 201, resp.Code)
	assert.Equal(t, map[string]any{"user": map[string]any{}}, resp.Object["status"])
	w := authWorld{s}
	for _, tc := range []struct {
		spec   string
		status map[string]any
	}{
		{`{"token":"good"}`, map[string]any{"authenticated": true, "audiences": []any{"api"},
			"user": map[string]any{"username": "bob", "groups": []any{"system:authenticated"}}}},
		{`{"token":"good","audiences":["x","api"]}`, map[string]any{"authenticated": true, "audiences": []any{"api"},
			"user": map[string]any{"username": "bob", "groups": []any{"system:authenticated"}}}},
		{`{"token":"good","audiences":["x"]}`, map[string]any{"user": map[string]any{}, "error": "invalid bearer token"}},
		{`{"token":"bad"}`, map[string]any{"user": map[string]any{}, "error": "invalid bearer token"}},
	} {
		resp := post(t, w, admin, path, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":`+tc.spec+`}`)
		require.Equal(t, 201, resp.Code, tc.spec)
		assert.Equal(t, tc.status, resp.Object["status"], tc.spec)
	}
	resp = post(t, w, admin, path, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}`)
	assert.Equal(t, 400, resp.Code)
	assert.Equal(t, "token is required for TokenReview in authentication", resp.Object["message"])
}
