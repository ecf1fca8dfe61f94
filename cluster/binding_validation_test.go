package cluster_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// POST pods/NAME/binding runs ValidatePodBinding first, and answers its errors as
// kube-apiserver 1.37 does: a plain 500 whose message is the aggregated errors (BindingREST
// returns errs.ToAggregate()), before looking the pod up. The expected bodies are the real
// server's (curl -X POST .../namespaces/default/pods/kc-bind/binding against
// ../shared/tools/realcluster, 2026-12-04, the pod absent).
func TestBindingValidation(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	h := c.Handler()
	for _, tc := range []struct{ body, message string }{
		{`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"kc-bind"},"target":{"kind":"Pod","name":"n"}}`,
			`target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`},
		{`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"kc-bind"},"target":{"name":"Bad_Node"}}`,
			`target.name: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"kc-bind"},"target":{}}`, `target.name: Required value`},
		{`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"kc-bind"},"target":{"kind":"Pod"}}`,
			`[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]`},
	} {
		r := httptest.NewRequest("POST", "/api/v1/namespaces/default/pods/kc-bind/binding", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, 500, w.Code, tc.body)
		var st map[string]any
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st))
		assert.Equal(t, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure",
			"message": tc.message, "code": float64(500)}, st, tc.body)
	}
}
