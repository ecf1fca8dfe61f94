package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestAccessReviewValidation: an access review is validated before anything else, its namespace
// the URL's, and refused with the empty kind of the internal object, as kube-apiserver 1.37
// answered these bodies (curl against ../shared/tools/realcluster, 2026-12-04; the first is also
// the recorded kindsc/subjectaccessreview-invalid).
func TestAccessReviewValidation(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{})
	require.NoError(t, err)
	for _, tc := range []struct{ path, body, message string }{
		{"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{}}`,
			`.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`},
		{"/apis/authorization.k8s.io/v1/subjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{}}`,
			`.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]`},
		{"/apis/authorization.k8s.io/v1/namespaces/demo/localsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"other","verb":"get","resource":"pods"}}}`,
			`.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`},
	} {
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST", Path: tc.path,
			ContentType: "application/json", Body: []byte(tc.body), User: registry.User{Name: "admin", Groups: []string{"system:masters"}}})
		require.NoError(t, err)
		assert.Empty(t, writes)
		assert.Equal(t, 422, resp.Code, tc.path)
		assert.Equal(t, tc.message, resp.Object["message"], tc.path)
		assert.Equal(t, map[string]any{"group": "authorization.k8s.io"}, without(resp.Object["details"], "causes"), tc.path)
	}
	// The review's namespace is the URL's: a LocalSubjectAccessReview that names no namespace of
	// its own but asks about the URL's passes the review's validation and is answered.
	resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST",
		Path: "/apis/authorization.k8s.io/v1/namespaces/demo/localsubjectaccessreviews", ContentType: "application/json",
		Body: []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"demo","verb":"get","resource":"pods"}}}`),
		User: registry.User{Name: "admin", Groups: []string{"system:masters"}}})
	require.NoError(t, err)
	assert.Empty(t, writes)
	assert.Equal(t, 201, resp.Code)
	assert.Equal(t, map[string]any{"allowed": false}, resp.Object["status"])
}

func without(v any, key string) map[string]any {
	m, _ := v.(map[string]any)
	out := map[string]any{}
	for k, x := range m {
		if k != key {
			out[k] = x
		}
	}
	return out
}
