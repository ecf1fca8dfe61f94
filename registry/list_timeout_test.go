package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestListMalformedTimeout: a list's timeoutSeconds that is not a number is the query decoder's
// 400, as recorded (testdata/cluster/scenarios, err-query/timeout).
func TestListMalformedTimeout(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "GET", Path: "/api/v1/namespaces/demo/configmaps?timeoutSeconds=x",
		User: registry.User{Name: "admin", Groups: []string{"system:masters"}}, Now: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Equal(t, 400, resp.Code)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \"x\": invalid syntax","reason":"BadRequest","code":400}`, string(resp.Body))
}

// TestCreateNullBody: a JSON body of null decodes as an empty object of the endpoint's kind
// (encoding/json leaves a struct alone for null), so the create is refused by validation, 422,
// as recorded (testdata/cluster/scenarios, err-bad-request/null-body).
func TestCreateNullBody(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps",
		ContentType: "application/json", Body: []byte("null"),
		User: registry.User{Name: "admin", Groups: []string{"system:masters"}}, Now: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Equal(t, 422, resp.Code)
	assert.Contains(t, string(resp.Body), `ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required`)
}
