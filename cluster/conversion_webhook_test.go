package cluster_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/conversion"
)

// convWebhook is a conversion webhook over HTTPS (httptest's TLS server): v1 (spec.count) is the
// hub, v1beta1 has spec.size; an object named bad-* fails to convert. It records the
// ConversionReviews it receives.
type convWebhook struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reviews []*conversion.Review
}

func startConvWebhook(t *testing.T) *convWebhook {
	reg := conversion.NewRegistry("v1")
	move := func(from, to string) func(map[string]any) (map[string]any, error) {
		return func(obj map[string]any) (map[string]any, error) {
			md, _ := obj["metadata"].(map[string]any)
			if name, _ := md["name"].(string); strings.HasPrefix(name, "bad-") {
				return nil, errors.New(name + " cannot be converted")
			}
			if spec, ok := obj["spec"].(map[string]any); ok {
				if v, ok := spec[from]; ok {
					delete(spec, from)
					spec[to] = v
				}
			}
			return obj, nil
		}
	}
	require.NoError(t, reg.Register("v1beta1", conversion.Spoke{ToHub: move("size", "count"), FromHub: move("count", "size")}))
	w := &convWebhook{}
	w.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), 400)
			return
		}
		if rv, err := conversion.ParseReview(body); err == nil {
			w.mu.Lock()
			w.reviews = append(w.reviews, rv)
			w.mu.Unlock()
		}
		resp, err := reg.Call(r.Context(), body)
		if err != nil {
			http.Error(rw, err.Error(), 500)
			return
		}
		rw.Header().Set("Content-Type", resp.ContentType)
		rw.WriteHeader(resp.StatusCode)
		_, _ = rw.Write(resp.Body)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// taken returns the reviews received since the last call.
func (w *convWebhook) taken() []*conversion.Review {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.reviews
	w.reviews = nil
	return out
}

func (w *convWebhook) crd() string {
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw}))
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"convhooks.conv.example.com"},
 "spec":{"group":"conv.example.com","scope":"Namespaced","names":{"plural":"convhooks","singular":"convhook","kind":"ConvHook","listKind":"ConvHookList"},
 "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":%q,"caBundle":%q}}},
 "versions":[
  {"name":"v1beta1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"count":{"type":"integer"}}}}}}}]}}`,
		w.srv.URL+"/convert", ca)
}

func convHook(version, name, field string, n int) string {
	return fmt.Sprintf(`{"apiVersion":"conv.example.com/%s","kind":"ConvHook","metadata":{"name":%q},"spec":{%q:%d}}`, version, name, field, n)
}

// A custom resource of a CRD whose strategy is Webhook is stored in the storage version: a
// write through another version is converted by the webhook before it is stored and read back
// through the request's version; reads, lists and watch events of another version than the
// storage one are converted; the webhook's failures are the apiserver's 500s.
func TestConversionWebhookServesCustomResources(t *testing.T) {
	hook := startConvWebhook(t)
	c := start(t, cluster.Options{})
	code, crd, _ := c.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", hook.crd())
	require.Equal(t, 201, code, "%v", crd)
	code, ns, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	beta, v1 := "/apis/conv.example.com/v1beta1/namespaces/demo/convhooks", "/apis/conv.example.com/v1/namespaces/demo/convhooks"

	code, created, _ := c.do("POST", beta, "application/json", convHook("v1beta1", "good", "size", 3))
	require.Equal(t, 201, code, "%v", created)
	assert.Equal(t, "conv.example.com/v1beta1", created["apiVersion"])
	assert.Equal(t, map[string]any{"size": float64(3)}, created["spec"], "the answer is the stored object read back through v1beta1")
	reviews := hook.taken()
	require.Len(t, reviews, 2, "one review to store the object, one to read it back")
	assert.Equal(t, "conv.example.com/v1", reviews[0].DesiredAPIVersion)
	assert.Equal(t, "conv.example.com/v1beta1", reviews[1].DesiredAPIVersion)
	assert.NotContains(t, reviews[0].Objects[0]["metadata"], "resourceVersion", "the webhook sees what etcd holds")

	stored, err := c.srv.Store().Get(context.Background(), cluster.Key{Group: "conv.example.com", Resource: "convhooks", Namespace: "demo", Name: "good"})
	require.NoError(t, err)
	assert.Equal(t, "conv.example.com/v1", stored.Value["apiVersion"], "stored in the storage version")
	assert.Equal(t, map[string]any{"count": int64(3)}, stored.Value["spec"])

	code, got, _ := c.do("GET", v1+"/good", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"count": float64(3)}, got["spec"])
	assert.Empty(t, hook.taken(), "a read through the storage version calls no webhook")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, code := c.watch(ctx, beta+"?watch=true&resourceVersion="+meta(ns)["resourceVersion"].(string))
	require.Equal(t, 200, code)

	ev := next(t, events)
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "conv.example.com/v1beta1", ev.Object["apiVersion"], "the watch of v1beta1 gets v1beta1 objects")
	assert.Equal(t, map[string]any{"size": float64(3)}, ev.Object["spec"])

	code, patched, _ := c.do("PATCH", v1+"/good", "application/merge-patch+json", `{"spec":{"count":4}}`)
	require.Equal(t, 200, code, "%v", patched)
	ev = next(t, events)
	assert.Equal(t, "MODIFIED", ev.Type)
	assert.Equal(t, map[string]any{"size": float64(4)}, ev.Object["spec"])

	code, list, _ := c.do("GET", beta, "", "")
	require.Equal(t, 200, code)
	require.Len(t, list["items"], 1)
	assert.Equal(t, map[string]any{"size": float64(4)}, list["items"].([]any)[0].(map[string]any)["spec"])

	// Server-side apply through both versions: the field is one field, whichever version names
	// it.
	code, applied, _ := c.do("PATCH", beta+"/ssa?fieldManager=alpha", "application/apply-patch+yaml", convHook("v1beta1", "ssa", "size", 1))
	require.Equal(t, 201, code, "%v", applied)
	code, conflict, _ := c.do("PATCH", v1+"/ssa?fieldManager=bravo", "application/apply-patch+yaml", convHook("v1", "ssa", "count", 2))
	assert.Equal(t, 409, code, "%v", conflict)
	// The conflict names the field as the other manager's version does (SMD compares in each
	// manager's version).
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "alpha": .spec.size`, conflict["message"])
	code, forced, _ := c.do("PATCH", v1+"/ssa?fieldManager=bravo&force=true", "application/apply-patch+yaml", convHook("v1", "ssa", "count", 2))
	require.Equal(t, 200, code, "%v", forced)
	var managers []string
	for _, e := range meta(forced)["managedFields"].([]any) {
		m := e.(map[string]any)
		managers = append(managers, fmt.Sprintf("%s@%s", m["manager"], m["apiVersion"]))
	}
	assert.Equal(t, []string{"bravo@conv.example.com/v1"}, managers, "alpha lost its only field")

	// The webhook's failures, in the apiserver's words (recorded in
	// testdata/conversion/realcluster-webhook): a write through v1beta1 is refused, a read
	// through v1beta1 of what a write through v1 stored is the storage's corrupt object.
	code, refused, _ := c.do("POST", beta, "application/json", convHook("v1beta1", "bad-write", "size", 5))
	assert.Equal(t, 500, code)
	assert.Equal(t, "conversion webhook for conv.example.com/v1beta1, Kind=ConvHook failed: converting v1beta1 to hub v1: bad-write cannot be converted", refused["message"])
	assert.Nil(t, refused["reason"])
	code, _, _ = c.do("POST", v1, "application/json", convHook("v1", "bad-read", "count", 5))
	require.Equal(t, 201, code)
	code, corrupt, _ := c.do("GET", beta+"/bad-read", "", "")
	assert.Equal(t, 500, code)
	assert.Equal(t, "InternalError", corrupt["reason"])
	assert.Regexp(t, `^Internal error occurred: StorageError: corrupt object, Code: 7, Key: /conv.example.com/convhooks/demo/bad-read, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=\d+: conversion webhook for conv.example.com/v1, Kind=ConvHook failed: converting hub v1 to v1beta1: bad-read cannot be converted$`, corrupt["message"])
	code, failedList, _ := c.do("GET", beta, "", "")
	assert.Equal(t, 500, code)
	assert.Equal(t, "StorageReadError", failedList["reason"])
	assert.Regexp(t, `^failed to read one or more convhooks.conv.example.com from the storage: StorageError: corrupt object, Code: 7, Key: /registry/conv.example.com/convhooks/demo/bad-read, `, failedList["message"])

	// A CRD changed to another webhook converts through the new one.
	other := startConvWebhook(t)
	code, cur, _ := c.do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/convhooks.conv.example.com", "", "")
	require.Equal(t, 200, code)
	cc := cur["spec"].(map[string]any)["conversion"].(map[string]any)["webhook"].(map[string]any)["clientConfig"].(map[string]any)
	cc["url"] = other.srv.URL + "/convert"
	cc["caBundle"] = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.srv.Certificate().Raw}))
	code, updated, _ := c.do("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/convhooks.conv.example.com", "application/json", mustJSON(t, cur))
	require.Equal(t, 200, code, "%v", updated)
	hook.taken()
	code, _, _ = c.do("GET", beta+"/good", "", "")
	require.Equal(t, 200, code)
	assert.Empty(t, hook.taken(), "the old webhook is not called")
	assert.Len(t, other.taken(), 1, "the new one is")
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
