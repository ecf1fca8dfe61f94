package cluster_test

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// orderHook is a mutating webhook over HTTPS that records the objects it is sent and answers
// every review with a JSON patch setting a label and status.expectedPods, and for /status
// spec.minAvailable.
type orderHook struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []map[string]any
}

func startOrderHook(t *testing.T) *orderHook {
	h := &orderHook{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), 400)
			return
		}
		var review struct {
			Request struct {
				UID         string         `json:"uid"`
				SubResource string         `json:"subResource"`
				Object      map[string]any `json:"object"`
			} `json:"request"`
		}
		if err := json.Unmarshal(body, &review); err != nil {
			http.Error(rw, err.Error(), 400)
			return
		}
		h.mu.Lock()
		h.seen = append(h.seen, review.Request.Object)
		h.mu.Unlock()
		ops := []map[string]any{
			{"op": "add", "path": "/metadata/labels", "value": map[string]any{"hooked": "yes"}},
			{"op": "add", "path": "/status/expectedPods", "value": 9},
		}
		if review.Request.SubResource == "status" {
			ops = append(ops, map[string]any{"op": "replace", "path": "/spec/minAvailable", "value": 3})
		}
		p, _ := json.Marshal(ops)
		out, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
			"response": map[string]any{"uid": review.Request.UID, "allowed": true, "patchType": "JSONPatch",
				"patch": base64.StdEncoding.EncodeToString(p)}})
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(out)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *orderHook) taken() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.seen
	h.seen = nil
	return out
}

func (h *orderHook) configuration() string {
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw}))
	return fmt.Sprintf(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"order"},
 "webhooks":[{"name":"order.example.com","admissionReviewVersions":["v1"],"sideEffects":"None","reinvocationPolicy":"Never",
  "clientConfig":{"url":%q,"caBundle":%q},
  "rules":[{"apiGroups":["policy"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["poddisruptionbudgets","poddisruptionbudgets/status"]}]}]}`,
		h.srv.URL+"/mutate", ca)
}

// A mutating webhook runs after the field manager and before the strategy (kube-apiserver's
// order, recorded with a MutatingAdmissionPolicy: testdata/cluster/scenarios/admission-order):
// it is sent the status a create or an update of the main resource carries and the spec a
// /status update carries, and what it writes there the strategy resets.
func TestMutatingWebhookRunsBeforeTheStrategy(t *testing.T) {
	hook := startOrderHook(t)
	c := start(t, cluster.Options{})
	code, cfg, _ := c.do("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", "application/json", hook.configuration())
	require.Equal(t, 201, code, "%v", cfg)
	code, _, _ = c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	pdbs := "/apis/policy/v1/namespaces/demo/poddisruptionbudgets"
	zero := map[string]any{"currentHealthy": float64(0), "desiredHealthy": float64(0), "disruptionsAllowed": float64(0), "expectedPods": float64(0)}

	code, created, _ := c.do("POST", pdbs, "application/json", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"a"},
 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"a"}}},"status":{"disruptionsAllowed":5,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}}`)
	require.Equal(t, 201, code, "%v", created)
	seen := hook.taken()
	require.Len(t, seen, 1)
	assert.Equal(t, int64(5), asInt(seen[0]["status"].(map[string]any)["disruptionsAllowed"]), "the webhook is sent the status the create carries")
	assert.Equal(t, map[string]any{"hooked": "yes"}, meta(created)["labels"], "the webhook's label is kept")
	assert.Equal(t, zero, created["status"], "PrepareForCreate resets the status after the webhook")

	code, updated, _ := c.do("PATCH", pdbs+"/a", "application/merge-patch+json", `{"status":{"disruptionsAllowed":3}}`)
	require.Equal(t, 200, code, "%v", updated)
	seen = hook.taken()
	require.Len(t, seen, 1)
	assert.Equal(t, int64(3), asInt(seen[0]["status"].(map[string]any)["disruptionsAllowed"]), "the webhook is sent the status the update carries")
	assert.Equal(t, zero, updated["status"], "PrepareForUpdate resets the status after the webhook")
	assert.Equal(t, meta(created)["resourceVersion"], meta(updated)["resourceVersion"], "nothing the strategy keeps changed: not stored")

	code, st, _ := c.do("PATCH", pdbs+"/a/status", "application/merge-patch+json", `{"spec":{"minAvailable":2},"status":{"currentHealthy":1}}`)
	require.Equal(t, 200, code, "%v", st)
	seen = hook.taken()
	require.Len(t, seen, 1)
	assert.Equal(t, int64(2), asInt(seen[0]["spec"].(map[string]any)["minAvailable"]), "the webhook is sent the spec the /status update carries")
	assert.Equal(t, float64(1), st["spec"].(map[string]any)["minAvailable"], "the status strategy resets the spec after the webhook")
	assert.Equal(t, float64(9), st["status"].(map[string]any)["expectedPods"], "the webhook's status change on /status is kept")
	assert.Equal(t, float64(1), st["status"].(map[string]any)["currentHealthy"])
}

func asInt(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int64:
		return n
	}
	return -1
}
