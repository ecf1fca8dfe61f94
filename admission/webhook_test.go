package admission_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// review answers an AdmissionReview with resp (uid copied from the request).
func reviewServer(t *testing.T, handle func(req map[string]any) map[string]any) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ar map[string]any
		if err := json.Unmarshal(b, &ar); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		req := ar["request"].(map[string]any)
		resp := handle(req)
		if resp == nil {
			return
		}
		if _, ok := resp["uid"]; !ok {
			resp["uid"] = req["uid"]
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func caBundle(srv *httptest.Server) string {
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return base64.StdEncoding.EncodeToString(pemBytes)
}

func webhookConfig(kind, name, url, ca string, extra map[string]any) map[string]any {
	hook := map[string]any{
		"name":                    name,
		"clientConfig":            map[string]any{"url": url, "caBundle": ca},
		"rules":                   []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"configmaps"}}},
		"sideEffects":             "None",
		"admissionReviewVersions": []any{"v1"},
	}
	for k, v := range extra {
		hook[k] = v
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
		"metadata": map[string]any{"name": name + "-config"}, "webhooks": []any{hook}}
}

func cmRequest() admission.Request {
	return admission.Request{
		Operation: admission.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      "cm1", Namespace: "ns1",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm1", "namespace": "ns1", "labels": map[string]any{"app": "x"}},
			"data":     map[string]any{"a": "1"}},
		UserInfo: admission.UserInfo{Username: "alice", Groups: []string{"dev"}},
	}
}

func nsList() []map[string]any {
	return []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns1", "labels": map[string]any{"team": "a"}}}}
}

func TestWebhooks(t *testing.T) {
	patchB64 := base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/data/b","value":"2"}]`))
	mutator := reviewServer(t, func(req map[string]any) map[string]any {
		return map[string]any{"allowed": true, "patchType": "JSONPatch", "patch": patchB64,
			"warnings": []any{"mutated"}, "auditAnnotations": map[string]any{"k": "v"}}
	})
	denier := reviewServer(t, func(req map[string]any) map[string]any {
		return map[string]any{"allowed": false, "status": map[string]any{"code": 403, "message": "no " + req["name"].(string)}}
	})
	denierBare := reviewServer(t, func(req map[string]any) map[string]any {
		return map[string]any{"allowed": false}
	})
	slow := reviewServer(t, func(req map[string]any) map[string]any {
		time.Sleep(1500 * time.Millisecond)
		return map[string]any{"allowed": true}
	})
	garbage := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("not json")) }))
	t.Cleanup(garbage.Close)
	wrongUID := reviewServer(t, func(req map[string]any) map[string]any {
		return map[string]any{"allowed": true, "uid": "other"}
	})
	validatingPatch := reviewServer(t, func(req map[string]any) map[string]any {
		return map[string]any{"allowed": true, "patchType": "JSONPatch", "patch": patchB64}
	})

	cases := []struct {
		name       string
		objects    []map[string]any
		dryRun     bool
		wantErr    string
		wantCode   int
		wantData   map[string]any
		wantWarn   []string
		wantAudits map[string]string
	}{
		{name: "mutating patch, warnings, audit annotations",
			objects:  []map[string]any{webhookConfig("MutatingWebhookConfiguration", "m.example.com", mutator.URL, caBundle(mutator), nil)},
			wantData: map[string]any{"a": "1", "b": "2"}, wantWarn: []string{"mutated"},
			wantAudits: map[string]string{"m.example.com/k": "v",
				"mutation.webhook.admission.k8s.io/round_0_index_0": `{"configuration":"m.example.com-config","mutated":true,"webhook":"m.example.com"}`}},
		{name: "validating denial with message",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, caBundle(denier), nil)},
			wantErr: `admission webhook "v.example.com" denied the request: no cm1`, wantCode: 403},
		{name: "validating denial without explanation",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denierBare.URL, caBundle(denierBare), nil)},
			wantErr: `admission webhook "v.example.com" denied the request without explanation`, wantCode: 400},
		{name: "not selected by namespaceSelector",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, caBundle(denier),
				map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "b"}}})},
			wantData: map[string]any{"a": "1"}},
		{name: "not selected by objectSelector NotIn",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, caBundle(denier),
				map[string]any{"objectSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "NotIn", "values": []any{"x"}}}}})},
			wantData: map[string]any{"a": "1"}},
		{name: "matchCondition false skips the call",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, caBundle(denier),
				map[string]any{"matchConditions": []any{map[string]any{"name": "not-alice", "expression": "request.userInfo.username != 'alice'"}}})},
			wantData: map[string]any{"a": "1"}},
		{name: "matchCondition may not use variables",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, caBundle(denier),
				map[string]any{"matchConditions": []any{map[string]any{"name": "vars", "expression": "variables.x == 1"}}})},
			wantErr: "configmaps \"cm1\" is forbidden: compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x == 1\n | ^", wantCode: 403},
		{name: "timeout fails closed",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", slow.URL, caBundle(slow), map[string]any{"timeoutSeconds": int64(1)})},
			wantErr: `Internal error occurred: failed calling webhook "v.example.com": failed to call webhook: Post "` + slow.URL + `?timeout=1s": context deadline exceeded`, wantCode: 500},
		{name: "timeout fails open with Ignore",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", slow.URL, caBundle(slow),
				map[string]any{"timeoutSeconds": int64(1), "failurePolicy": "Ignore"})},
			wantData: map[string]any{"a": "1"}, wantAudits: map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "v.example.com"}},
		{name: "garbage answer",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", garbage.URL, caBundle(garbage), nil)},
			wantErr: `Internal error occurred: failed calling webhook "v.example.com": received invalid webhook response: invalid character 'o' in literal null (expecting 'u')`, wantCode: 500},
		{name: "wrong uid",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", wrongUID.URL, caBundle(wrongUID), nil)},
			wantErr: `Internal error occurred: failed calling webhook "v.example.com": received invalid webhook response: expected response.uid="review-1", got "other"`, wantCode: 500},
		{name: "validating webhook may not patch",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", validatingPatch.URL, caBundle(validatingPatch), nil)},
			wantErr: `Internal error occurred: failed calling webhook "v.example.com": received invalid webhook response: validating webhook may not return response.patch`, wantCode: 500},
		{name: "untrusted certificate",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, "", nil)},
			wantErr: `Internal error occurred: failed calling webhook "v.example.com": failed to call webhook: Post "` + denier.URL + `?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`, wantCode: 500},
		{name: "dry run refused with side effects",
			objects: []map[string]any{webhookConfig("ValidatingWebhookConfiguration", "v.example.com", denier.URL, caBundle(denier), map[string]any{"sideEffects": "Some"})},
			dryRun:  true, wantErr: `admission webhook "v.example.com" does not support dry run`, wantCode: 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chain, err := admission.New(admission.Config{Objects: tc.objects, Namespaces: nsList(),
				Env: admission.Env{ReviewUID: func() string { return "review-1" }}})
			require.NoError(t, err)
			req := cmRequest()
			req.DryRun = tc.dryRun
			before, _ := value.DeepCopyMap(req.Object)
			res, err := chain.Admit(context.Background(), req)
			assert.Equal(t, before, req.Object, "request object unchanged")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, tc.wantCode, status.CodeOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantData, res.Object["data"])
			assert.Equal(t, tc.wantWarn, res.Warnings)
			if tc.wantAudits != nil {
				assert.Equal(t, tc.wantAudits, res.AuditAnnotations)
			}
		})
	}
}

// recordingClient is an in-process WebhookClient: each webhook adds a label.
type recordingClient struct{ calls []string }

func (c *recordingClient) Call(_ context.Context, t admission.WebhookTarget, body []byte) ([]byte, error) {
	c.calls = append(c.calls, t.Name)
	var ar map[string]any
	if err := json.Unmarshal(body, &ar); err != nil {
		return nil, err
	}
	req := ar["request"].(map[string]any)
	labels := req["object"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
	resp := map[string]any{"uid": req["uid"], "allowed": true}
	if _, ok := labels[t.Name]; !ok {
		p, _ := json.Marshal([]any{map[string]any{"op": "add", "path": "/metadata/labels/" + t.Name, "value": "y"}})
		resp["patch"] = p
		resp["patchType"] = "JSONPatch"
	}
	return json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
}

func TestWebhookReinvocation(t *testing.T) {
	cl := &recordingClient{}
	first := webhookConfig("MutatingWebhookConfiguration", "first", "https://first.invalid/", "", map[string]any{"reinvocationPolicy": "IfNeeded"})
	first["metadata"] = map[string]any{"name": "a"}
	second := webhookConfig("MutatingWebhookConfiguration", "second", "https://second.invalid/", "", nil)
	second["metadata"] = map[string]any{"name": "b"}
	chain, err := admission.New(admission.Config{Objects: []map[string]any{second, first}, Namespaces: nsList(), Client: cl})
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), cmRequest())
	require.NoError(t, err)
	// first (config "a") runs, then second changes the object, so first is called again.
	assert.Equal(t, []string{"first", "second", "first"}, cl.calls)
	assert.Equal(t, map[string]any{"app": "x", "first": "y", "second": "y"}, res.Object["metadata"].(map[string]any)["labels"])
	require.Len(t, res.Patches, 2)
	assert.Equal(t, "webhook/first", res.Patches[0].Mutator)
	assert.Equal(t, `[{"op":"add","path":"/metadata/labels/first","value":"y"}]`, string(res.Patches[0].Patch))
}

func TestReview(t *testing.T) {
	req := cmRequest()
	b, err := admission.Review(req, "u1")
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	want := map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": map[string]any{
		"uid": "u1", "kind": map[string]any{"group": "", "version": "v1", "kind": "ConfigMap"},
		"resource":        map[string]any{"group": "", "version": "v1", "resource": "configmaps"},
		"requestKind":     map[string]any{"group": "", "version": "v1", "kind": "ConfigMap"},
		"requestResource": map[string]any{"group": "", "version": "v1", "resource": "configmaps"},
		"name":            "cm1", "namespace": "ns1", "operation": "CREATE",
		"userInfo":  map[string]any{"username": "alice", "groups": []any{"dev"}},
		"object":    map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm1", "namespace": "ns1", "labels": map[string]any{"app": "x"}}, "data": map[string]any{"a": "1"}},
		"oldObject": nil,
		"dryRun":    false, "options": map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
	}}
	assert.Equal(t, want, got)
}
