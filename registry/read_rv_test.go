package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestGetMalformedResourceVersion: a get at a resourceVersion that is not a number is the
// watch cache's parse error, answered 500 (recorded in testdata/cluster/scenarios,
// rv-get/malformed), whether or not the object exists.
func TestGetMalformedResourceVersion(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	for _, path := range []string{"/api/v1/namespaces/demo/configmaps/none?resourceVersion=x1", "/api/v1/namespaces/demo/configmaps/none?resourceVersion=0"} {
		resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "GET", Path: path,
			User: registry.User{Name: "admin", Groups: []string{"system:masters"}}, Now: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)})
		require.NoError(t, err)
		if path[len(path)-1] == '0' {
			assert.Equal(t, 404, resp.Code, path)
			continue
		}
		assert.Equal(t, 500, resp.Code, path)
		assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"x1\": strconv.ParseUint: parsing \"x1\": invalid syntax","code":500}`, string(resp.Body))
	}
}
