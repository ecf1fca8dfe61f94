package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	wadmission "github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	wschema "github.com/writepath/writepath/schema"
)

// recordingHook is the webhook both implementations call: it keeps the
// AdmissionReview requests it is sent and answers with a JSON patch recording
// the apiVersion of the object it saw.
type recordingHook struct {
	mu   sync.Mutex
	sent []map[string]any
}

func (h *recordingHook) answer(body []byte) []byte {
	var review map[string]any
	if err := json.Unmarshal(body, &review); err != nil {
		return nil
	}
	req, _ := review["request"].(map[string]any)
	h.mu.Lock()
	h.sent = append(h.sent, req)
	h.mu.Unlock()
	resp := map[string]any{"uid": req["uid"], "allowed": true}
	if obj, ok := req["object"].(map[string]any); ok {
		p, _ := json.Marshal([]any{map[string]any{"op": "add", "path": "/spec/seen", "value": obj["apiVersion"]}})
		resp["patchType"], resp["patch"] = "JSONPatch", base64.StdEncoding.EncodeToString(p)
	}
	out, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	return out
}

func (h *recordingHook) take() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.sent
	h.sent = nil
	return out
}

// Call implements wadmission.WebhookClient.
func (h *recordingHook) Call(_ context.Context, _ wadmission.WebhookTarget, body []byte) ([]byte, error) {
	return h.answer(body), nil
}

// TestEquivalentMutatingWebhooks runs k8s.io/apiserver's mutating webhook
// plugin (webhook configurations from an informer, calls over HTTPS to a test
// server) and Admit on generated MutatingWebhookConfigurations over widgets
// with matchPolicy Exact or Equivalent: the AdmissionReview requests sent
// (kind, resource, subResource at the matched version, requestKind,
// requestResource, requestSubResource, the objects converted) and the patched
// object, converted back to the request's version, must be equal.
func TestEquivalentMutatingWebhooks(t *testing.T) {
	w := newWorld(t)
	crd, err := wschema.FromCRDBytes([]byte(widgetsCRD))
	require.NoError(t, err)
	o := newCRObjects()
	hook := &recordingHook{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(hook.answer(b))
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	r := rand.New(rand.NewPCG(21, 8))
	n := sampleSize(60)
	if n > 2000 {
		n = 2000 // each case starts an informer: the long run stays bounded
	}
	equivalent := 0
	for i := 0; i < n; i++ {
		var hooks []any
		for h := 0; h < 1+r.IntN(2); h++ {
			mc := genEquivalentConstraints(r)
			var rules []any
			for _, x := range mc["resourceRules"].([]any) {
				rule := x.(map[string]any)
				delete(rule, "resourceNames")
				rules = append(rules, rule)
			}
			hooks = append(hooks, map[string]any{"name": fmt.Sprintf("h%d.example.com", h), "rules": rules, "matchPolicy": mc["matchPolicy"],
				"clientConfig": map[string]any{"url": srv.URL + "/hook", "caBundle": base64.StdEncoding.EncodeToString(ca)},
				"sideEffects":  "None", "admissionReviewVersions": []any{"v1"}, "failurePolicy": "Fail", "timeoutSeconds": int64(10),
				"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "reinvocationPolicy": "Never"})
		}
		cfg := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
			"metadata": map[string]any{"name": "widgets"}, "webhooks": hooks}
		q := genWidgetRequest(r)

		// Reference: the plugin, set up as the apiserver sets it up.
		var mwc admissionregistrationv1.MutatingWebhookConfiguration
		fromMap(t, cfg, &mwc)
		client := fake.NewSimpleClientset(&mwc)
		factory := informers.NewSharedInformerFactory(client, 0)
		plugin, err := webhookmutating.NewMutatingWebhook(nil)
		require.NoError(t, err)
		plugin.SetExternalKubeClientSet(client)
		plugin.SetExternalKubeInformerFactory(factory)
		require.NoError(t, plugin.ValidateInitialization())
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		require.Eventually(t, func() bool { return plugin.WaitForReady() }, 10*time.Second, 10*time.Millisecond)
		attrs := q.attrs()
		refErr := plugin.Admit(context.Background(), attrs, o)
		cancel()
		refSent := hook.take()

		chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{cfg}, Namespaces: w.namespaces, Client: hook,
			Versions: wadmission.Versions{CRDs: []*wschema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*wschema.CRD{crd}}}})
		require.NoError(t, err)
		got, gotErr := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Operation(q.op),
			Kind:        wschema.GroupVersionKind{Group: "example.com", Version: q.version, Kind: "Widget"},
			Resource:    wschema.GroupVersionResource{Group: "example.com", Version: q.version, Resource: "widgets"},
			SubResource: q.sub, Name: q.name, Namespace: "ns-a", Object: q.obj, OldObject: q.old, UserInfo: wadmission.UserInfo{Username: "alice"}})
		ourSent := hook.take()

		desc, _ := json.Marshal(map[string]any{"config": cfg, "req": fmt.Sprintf("%+v", q)})
		if refErr != nil {
			if !assert.Error(t, gotErr, "case %d: %s", i, desc) || !assert.Equal(t, refErr.Error(), gotErr.Error(), "case %d: %s", i, desc) {
				return
			}
			continue
		}
		if !assert.NoError(t, gotErr, "case %d: %s", i, desc) {
			return
		}
		require.Equal(t, len(refSent), len(ourSent), "case %d: %s", i, desc)
		for j := range refSent {
			for _, rq := range []map[string]any{refSent[j], ourSent[j]} {
				delete(rq, "uid")
				delete(rq, "options") // the reference request has no options object
			}
			if k := refSent[j]["kind"].(map[string]any); k["version"] != q.version {
				equivalent++
			}
			wantJ, _ := json.Marshal(refSent[j])
			gotJ, _ := json.Marshal(ourSent[j])
			if !assert.JSONEq(t, string(wantJ), string(gotJ), "case %d review %d: %s", i, j, desc) {
				return
			}
		}
		want, _ := json.Marshal(attrs.GetObject().(*unstructured.Unstructured).Object)
		gotObj, _ := json.Marshal(got.Object)
		if !assert.JSONEq(t, string(want), string(gotObj), "case %d: %s", i, desc) {
			return
		}
	}
	require.Greater(t, equivalent, 0, "no equivalent match")
	t.Logf("%d cases (%d reviews sent through an equivalent version), 0 disagreements", n, equivalent)
}
