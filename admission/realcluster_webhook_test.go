package admission_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
)

const webhookDir = "../testdata/admission/realcluster-webhook"

// loopbackHook answers as webhook_server.py did when the real apiserver
// called it, and keeps what it was sent.
type loopbackHook struct{ sent []map[string]any }

func (h *loopbackHook) Call(_ context.Context, t admission.WebhookTarget, body []byte) ([]byte, error) {
	var review map[string]any
	if err := json.Unmarshal(body, &review); err != nil {
		return nil, err
	}
	h.sent = append(h.sent, review)
	req := review["request"].(map[string]any)
	name, _ := req["name"].(string)
	var resp map[string]any
	if strings.Contains(t.URL, "/deny") {
		resp = map[string]any{"uid": req["uid"], "allowed": false, "warnings": []any{"checked by the deny hook"},
			"status": map[string]any{"code": 403, "message": "configmap " + name + " is not welcome"}}
	} else {
		patch, _ := json.Marshal([]any{map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]any{"patched-by": "wp-adm-webhook"}}})
		resp = map[string]any{"uid": req["uid"], "allowed": true, "warnings": []any{"patched by the patch hook"},
			"patchType": "JSONPatch", "patch": base64.StdEncoding.EncodeToString(patch), "auditAnnotations": map[string]any{"seen": name}}
	}
	return json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
}

// received reads what the real apiserver sent to the loopback webhook.
func received(t *testing.T) map[string]map[string]any {
	f, err := os.Open(filepath.Join(webhookDir, "received.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	out := map[string]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			Path   string         `json:"path"`
			Review map[string]any `json:"review"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		out[strings.Split(rec.Path, "?")[0]] = rec.Review
	}
	return out
}

// TestRealClusterWebhooks replays the webhook scenarios: the AdmissionReview
// writepath sends equals what kube-apiserver sent (the review uid, and the
// system fields and managedFields the apiserver had set on the object, taken
// from the recording), and the answer equals the apiserver's.
func TestRealClusterWebhooks(t *testing.T) {
	got := received(t)
	for _, sc := range []struct{ dir, path string }{{"webhook-deny", "/deny"}, {"webhook-patch", "/patch"}} {
		t.Run(sc.dir, func(t *testing.T) {
			want := got[sc.path]
			require.NotNil(t, want)
			wantReq := want["request"].(map[string]any)
			cfgBytes, err := os.ReadFile(filepath.Join(webhookDir, sc.dir, "config.yaml"))
			require.NoError(t, err)
			docs, err := codec.DecodeDocuments([]byte(strings.NewReplacer("CABUNDLE", "", "PORT", "18443").Replace(string(cfgBytes))))
			require.NoError(t, err)
			cfg := splitConfig(t, docs)
			// The object as admission received it: the recorded one without what
			// the registry adds after mutating admission.
			sentObj := wantReq["object"].(map[string]any)
			obj, err := codec.DecodeObject(mustJSON(t, sentObj))
			require.NoError(t, err)
			md := obj["metadata"].(map[string]any)
			uid, _ := md["uid"].(string)
			ts, _ := md["creationTimestamp"].(string)
			delete(md, "uid")
			delete(md, "creationTimestamp")
			now, _ := time.Parse(time.RFC3339, ts)
			// The registry's steps around the chain set the uid and creationTimestamp.
			steps := registry.AdmitOptions{SystemFields: true, Now: now, UID: func() string { return uid }}
			cfg.Env = admission.Env{Now: now, ReviewUID: func() string { return wantReq["uid"].(string) }}
			hook := &loopbackHook{}
			cfg.Client = hook
			chain, err := admission.New(cfg)
			require.NoError(t, err)
			req := configMapCreate(obj)
			req.UserInfo = admission.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}
			res, admitErr := registry.Admit(context.Background(), chain, req, steps)
			require.Len(t, hook.sent, 1)
			wantReview, err := codec.DecodeObject(mustJSON(t, want))
			require.NoError(t, err)
			assert.Equal(t, wantReview, hook.sent[0], "AdmissionReview sent")

			var rec recorded
			b, err := os.ReadFile(filepath.Join(webhookDir, sc.dir, "response.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			var warns []string
			for _, w := range rec.Warnings {
				warns = append(warns, warningText(w))
			}
			assert.Equal(t, warns, res.Warnings)
			if rec.Code >= 400 {
				require.Error(t, admitErr)
				gotBody, _ := json.Marshal(admitErr)
				wantBody, _ := json.Marshal(rec.Body)
				assert.JSONEq(t, string(wantBody), string(gotBody))
				return
			}
			require.NoError(t, admitErr)
			assert.Equal(t, rec.Body["metadata"].(map[string]any)["labels"], res.Object["metadata"].(map[string]any)["labels"])
			assert.Equal(t, "cm1", res.AuditAnnotations["patch.wp-adm.example.com/seen"])
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
