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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

const equivalentDir = "../testdata/admission/realcluster-equivalent"

// seenHook answers as realcluster-equivalent/webhook_server.py did: a patch
// labelling the object with the version it was sent at (and removing
// spec.targetCPUUtilizationPercentage at /hpa-onto-cpu).
type seenHook struct{ sent []map[string]any }

func (h *seenHook) Call(_ context.Context, target admission.WebhookTarget, body []byte) ([]byte, error) {
	review, err := codec.DecodeObject(body)
	if err != nil {
		return nil, err
	}
	h.sent = append(h.sent, review)
	req := review["request"].(map[string]any)
	obj := req["object"].(map[string]any)
	labels := map[string]any{}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ls, ok := md["labels"].(map[string]any); ok {
			for k, v := range ls {
				labels[k] = v
			}
		}
	}
	av := obj["apiVersion"].(string)
	labels["seen"] = av[strings.LastIndex(av, "/")+1:]
	ops := []any{map[string]any{"op": "add", "path": "/metadata/labels", "value": labels}}
	if strings.Contains(target.URL, "/hpa-onto-cpu?") {
		ops = append(ops, map[string]any{"op": "remove", "path": "/spec/targetCPUUtilizationPercentage"})
	}
	patch, _ := json.Marshal(ops)
	return json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": map[string]any{
		"uid": req["uid"], "allowed": true, "patchType": "JSONPatch", "patch": base64.StdEncoding.EncodeToString(patch)}})
}

// TestRealClusterEquivalent replays the matchPolicy Equivalent scenario: a
// Gadget created through v1 reaches the webhook registered for v1beta1 with
// matchPolicy Equivalent (not the Exact one), which is sent the object at
// v1beta1 with kind/resource v1beta1 and requestKind/requestResource v1; its
// patch comes back to v1; the Warn policy matching v1beta1 sees the mutated
// object at v1beta1. The review must equal the one kube-apiserver sent, the
// warning and the stored labels its answer.
func TestRealClusterEquivalent(t *testing.T) {
	f, err := os.Open(filepath.Join(equivalentDir, "received.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var want []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			Path   string         `json:"path"`
			Review map[string]any `json:"review"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		assert.False(t, strings.HasPrefix(rec.Path, "/exact"), "the Exact webhook is not called")
		if !strings.HasPrefix(rec.Path, "/equivalent") {
			continue // the events and hpa scenarios
		}
		review, err := codec.DecodeObject(mustJSON(t, rec.Review))
		require.NoError(t, err)
		want = append(want, review)
	}
	require.Len(t, want, 1)
	wantReq := want[0]["request"].(map[string]any)

	cfgBytes, err := os.ReadFile(filepath.Join(equivalentDir, "config.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments([]byte(strings.NewReplacer("CABUNDLE", "", "PORT", "18453").Replace(string(cfgBytes))))
	require.NoError(t, err)
	var rest []map[string]any
	var crds []*schema.CRD
	for _, d := range docs {
		if d["kind"] == "CustomResourceDefinition" {
			crd, err := schema.FromCRD(d)
			require.NoError(t, err)
			crds = append(crds, crd)
			continue
		}
		rest = append(rest, d)
	}
	cfg := splitConfig(t, rest)
	cfg.Versions = admission.Versions{CRDs: crds, Converter: conversion.Builtin{CRDs: crds}}
	// The object as admission received it (at v1): the recorded v1beta1 one
	// converted back (the apiserver sets uid and creationTimestamp of custom
	// resources after mutating admission).
	obj, err := codec.DecodeObject(mustJSON(t, wantReq["object"]))
	require.NoError(t, err)
	obj["apiVersion"] = "wp-eq.example.com/v1"
	cfg.Env = admission.Env{ReviewUID: func() string { return wantReq["uid"].(string) }}
	hook := &seenHook{}
	cfg.Client = hook
	chain, err := admission.New(cfg)
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
		Kind:     schema.GroupVersionKind{Group: "wp-eq.example.com", Version: "v1", Kind: "Gadget"},
		Resource: schema.GroupVersionResource{Group: "wp-eq.example.com", Version: "v1", Resource: "gadgets"},
		Name:     "g1", Namespace: "wp-adm-equivalent", Object: obj,
		UserInfo: admission.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}})
	require.NoError(t, err)
	require.Len(t, hook.sent, 1)
	assert.Equal(t, want[0], hook.sent[0], "AdmissionReview sent")

	var rec recorded
	b, err := os.ReadFile(filepath.Join(equivalentDir, "response.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	require.Equal(t, 201, rec.Code)
	var warns []string
	for _, w := range rec.Warnings {
		warns = append(warns, warningText(w))
	}
	assert.Equal(t, warns, res.Warnings)
	body, err := codec.DecodeObject(mustJSON(t, rec.Body))
	require.NoError(t, err)
	assert.Equal(t, body["apiVersion"], res.Object["apiVersion"])
	assert.Equal(t, body["metadata"].(map[string]any)["labels"], res.Object["metadata"].(map[string]any)["labels"])
	assert.Equal(t, body["spec"], res.Object["spec"])
}

// TestRealClusterEquivalentEvents replays the events scenario: an
// events.k8s.io/v1 Event reaches a webhook registered for core v1 events as a
// core v1 Event (fields renamed), and the webhook's patch comes back to
// events.k8s.io/v1; the review must equal the one kube-apiserver sent and the
// admitted object the stored one (without the fields the registry sets after
// admission).
func TestRealClusterEquivalentEvents(t *testing.T) {
	dir := filepath.Join(equivalentDir, "events")
	f, err := os.Open(filepath.Join(equivalentDir, "received.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var want map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			Path   string         `json:"path"`
			Review map[string]any `json:"review"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		if strings.HasPrefix(rec.Path, "/events") {
			want, err = codec.DecodeObject(mustJSON(t, rec.Review))
			require.NoError(t, err)
		}
	}
	require.NotNil(t, want)
	wantReq := want["request"].(map[string]any)
	cfgBytes, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments([]byte(strings.NewReplacer("CABUNDLE", "", "PORT", "18453").Replace(string(cfgBytes))))
	require.NoError(t, err)
	cfg := splitConfig(t, docs)
	cfg.Env = admission.Env{ReviewUID: func() string { return wantReq["uid"].(string) }}
	hook := &seenHook{}
	cfg.Client = hook
	chain, err := admission.New(cfg)
	require.NoError(t, err)
	// The Event as admission received it: object.yaml with the managedFields
	// the apiserver had added.
	objBytes, err := os.ReadFile(filepath.Join(dir, "object.yaml"))
	require.NoError(t, err)
	obj, err := codec.DecodeObject(objBytes)
	require.NoError(t, err)
	obj["metadata"].(map[string]any)["managedFields"] = wantReq["object"].(map[string]any)["metadata"].(map[string]any)["managedFields"]
	res, err := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
		Kind:     schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"},
		Resource: schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"},
		Name:     "e1", Namespace: "wp-adm-equivalent-events", Object: obj,
		UserInfo: admission.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}})
	require.NoError(t, err)
	require.Len(t, hook.sent, 1)
	assert.Equal(t, want, hook.sent[0], "AdmissionReview sent")

	var rec recorded
	b, err := os.ReadFile(filepath.Join(dir, "response.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	require.Equal(t, 201, rec.Code)
	stored, err := codec.DecodeObject(mustJSON(t, rec.Body))
	require.NoError(t, err)
	md := stored["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "uid", "resourceVersion"} {
		delete(md, k)
	}
	assert.Equal(t, stored, res.Object)
}

// TestRealClusterEquivalentHPA replays the hpa scenario: an autoscaling/v2
// HorizontalPodAutoscaler (cpu, memory and pods metrics, a behavior) reaches
// a webhook registered for autoscaling/v1 converted to v1 (the cpu metric as
// targetCPUUtilizationPercentage, the others and the behavior in annotations),
// and the webhook's patch comes back to v2 with the annotation's metrics first.
// The review must be the one kube-apiserver sent and the admitted object the
// stored one, byte for byte (in canonical JSON; without the fields the
// registry sets after admission).
func TestRealClusterEquivalentHPA(t *testing.T) {
	want, hook, res, err := admitRecordedHPA(t, "hpa", "wp-adm-equivalent-hpa")
	require.NoError(t, err)
	require.Len(t, hook.sent, 1)
	assert.Equal(t, canonicalJSON(t, want), canonicalJSON(t, hook.sent[0]), "AdmissionReview sent")
	assert.Equal(t, canonicalJSON(t, storedHPA(t, filepath.Join(equivalentDir, "hpa"))), canonicalJSON(t, res.Object), "stored object")
}

// recordedReview is the AdmissionReview received.jsonl recorded at path.
func recordedReview(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(equivalentDir, "received.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var want map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			Path   string         `json:"path"`
			Review map[string]any `json:"review"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		if strings.HasPrefix(rec.Path, path+"?") {
			require.Nil(t, want, "one review at %s", path)
			want, err = codec.DecodeObject(mustJSON(t, rec.Review))
			require.NoError(t, err)
		}
	}
	require.NotNil(t, want, "a review at %s", path)
	return want
}

// decodedHPA is the HorizontalPodAutoscaler of file as admission received it:
// decoded and defaulted as autoscaling/v2 (the request's version), with the
// managedFields the apiserver had added (the recorded review's).
func decodedHPA(t *testing.T, file string, req map[string]any) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	obj, err := codec.DecodeObject(b)
	require.NoError(t, err)
	obj, err = defaults.Builtin(schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, obj, defaults.Options{})
	require.NoError(t, err)
	obj["metadata"].(map[string]any)["managedFields"] = req["object"].(map[string]any)["metadata"].(map[string]any)["managedFields"]
	return obj
}

// storedHPA is the object response.json of dir recorded as stored, without
// the fields the registry sets after mutating admission (uid,
// creationTimestamp, resourceVersion, generation).
func storedHPA(t *testing.T, dir string) map[string]any {
	t.Helper()
	var rec recorded
	b, err := os.ReadFile(filepath.Join(dir, "response.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	require.Equal(t, 201, rec.Code)
	stored, err := codec.DecodeObject(mustJSON(t, rec.Body))
	require.NoError(t, err)
	md := stored["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "uid", "resourceVersion", "generation"} {
		delete(md, k)
	}
	return stored
}

func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := codec.EncodeJSON(v)
	require.NoError(t, err)
	return string(b)
}

// TestRealClusterEquivalentHPAOnto replays the hpa-onto scenarios at the
// converter: kube-apiserver converts the v1 HorizontalPodAutoscaler its
// webhook patched back into the internal object it holds, so metrics that
// v1's annotation does not list survive: with one memory metric and no CPU
// target, the stored object has the memory metric twice (hpa-onto); with two
// metrics, the second slot from the old object is followed by an empty metric
// that validation rejects (hpa-onto-invalid, a 422); with only a CPU target,
// which the webhook removes, the old CPU target stays (hpa-onto-cpu; a fresh
// object would get the 80 % default). ConvertOnto must give the recorded
// object; Convert, into a fresh object, something else.
func TestRealClusterEquivalentHPAOnto(t *testing.T) {
	v1 := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	v2 := schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	var conv schema.OntoConverter = conversion.Builtin{}
	for _, name := range []string{"hpa-onto", "hpa-onto-invalid", "hpa-onto-cpu"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(equivalentDir, name)
			want := recordedReview(t, "/"+name)
			wantReq := want["request"].(map[string]any)
			base := decodedHPA(t, filepath.Join(dir, "object.yaml"), wantReq)
			sent, err := conv.Convert(base, v2, v1)
			require.NoError(t, err)
			assert.Equal(t, canonicalJSON(t, wantReq["object"]), canonicalJSON(t, sent), "object sent to the webhook")

			// The webhook's patch (webhook_server.py): metadata.labels.seen = v1,
			// and at /hpa-onto-cpu no CPU target.
			patched, err := conv.Convert(sent, v1, v1)
			require.NoError(t, err)
			patched["metadata"].(map[string]any)["labels"] = map[string]any{"seen": "v1"}
			if name == "hpa-onto-cpu" {
				delete(patched["spec"].(map[string]any), "targetCPUUtilizationPercentage")
			}
			back, err := conv.ConvertOnto(patched, base, v1, v2)
			require.NoError(t, err)
			fresh, err := conv.Convert(patched, v1, v2)
			require.NoError(t, err)
			baseMetrics := base["spec"].(map[string]any)["metrics"].([]any)
			if name == "hpa-onto-cpu" {
				assert.Equal(t, []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
					"target": map[string]any{"type": "Utilization", "averageUtilization": int64(80)}}}},
					fresh["spec"].(map[string]any)["metrics"], "into a fresh object: the 80 % default")
			} else {
				assert.Equal(t, baseMetrics, fresh["spec"].(map[string]any)["metrics"], "into a fresh object: the annotation's metrics")
			}

			var rec recorded
			b, err := os.ReadFile(filepath.Join(dir, "response.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			if name != "hpa-onto-invalid" {
				assert.Equal(t, canonicalJSON(t, storedHPA(t, dir)), canonicalJSON(t, back), "stored object")
				return
			}
			require.Equal(t, 422, rec.Code)
			assert.Contains(t, rec.Body["message"], "spec.metrics[3].type: Required value")
			assert.Equal(t, append(append(append([]any{}, baseMetrics...), baseMetrics[0]), map[string]any{"type": ""}),
				back["spec"].(map[string]any)["metrics"], "the metrics validation saw")
		})
	}
}

// TestChainHPAOnto replays the hpa-onto scenarios through Chain.Admit: the
// webhook registered for autoscaling/v1 is sent the recorded review; its
// patched v1 object is defaulted at v1 only (no internal round trip: the
// 80 % CPU target does not appear) and converted back into the v2 object the
// chain holds, giving the stored object (hpa-onto, hpa-onto-cpu) or the
// metrics validation rejected with a 422 (hpa-onto-invalid).
func TestChainHPAOnto(t *testing.T) {
	for _, name := range []string{"hpa-onto", "hpa-onto-invalid", "hpa-onto-cpu"} {
		t.Run(name, func(t *testing.T) {
			want, hook, res, err := admitRecordedHPA(t, name, name)
			dir := filepath.Join(equivalentDir, name)
			require.NoError(t, err)
			require.Len(t, hook.sent, 1)
			assert.Equal(t, canonicalJSON(t, want), canonicalJSON(t, hook.sent[0]), "AdmissionReview sent")
			if name != "hpa-onto-invalid" {
				assert.Equal(t, canonicalJSON(t, storedHPA(t, dir)), canonicalJSON(t, res.Object), "stored object")
				return
			}
			var rec recorded
			b, err := os.ReadFile(filepath.Join(dir, "response.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			require.Equal(t, 422, rec.Code)
			assert.Contains(t, rec.Body["message"], "spec.metrics[3].type: Required value")
			obj := decodedHPA(t, filepath.Join(dir, "object.yaml"), want["request"].(map[string]any))
			metrics := obj["spec"].(map[string]any)["metrics"].([]any)
			assert.Equal(t, append(append(append([]any{}, metrics...), metrics[0]), map[string]any{"type": ""}),
				res.Object["spec"].(map[string]any)["metrics"], "the metrics validation saw")
		})
	}
}

// TestRealClusterEquivalentHPAPolicies replays the hpaq-map-* scenarios
// through Chain.Admit: a MutatingAdmissionPolicy matching
// HorizontalPodAutoscalers through the other autoscaling version
// (matchPolicy Equivalent) has every mutation fail, as kube-apiserver's
// dispatchOne converts each typed result straight to the request's version
// and the scheme has no v1 <-> v2 conversion (only through the internal
// version): the 403 with every mutation's error (JSONPatch and
// ApplyConfiguration, policy for v1 on a v2 create and for v2 on a v1 create),
// or under failurePolicy Ignore the object stored as the request had it.
func TestRealClusterEquivalentHPAPolicies(t *testing.T) {
	for _, name := range []string{"hpaq-map-v1", "hpaq-map-v1-apply", "hpaq-map-v1-ignore", "hpaq-map-v2"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(equivalentDir, name)
			cfgBytes, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
			require.NoError(t, err)
			docs, err := codec.DecodeDocuments(cfgBytes)
			require.NoError(t, err)
			chain, err := admission.New(splitConfig(t, docs))
			require.NoError(t, err)
			var rec recorded
			b, err := os.ReadFile(filepath.Join(dir, "response.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))

			// The object as admission received it: decoded and defaulted at the
			// request's version, with the managedFields the apiserver had set
			// (the stored object's, or none recorded for a rejection).
			b, err = os.ReadFile(filepath.Join(dir, "object.yaml"))
			require.NoError(t, err)
			obj, err := codec.DecodeObject(b)
			require.NoError(t, err)
			version := strings.TrimPrefix(obj["apiVersion"].(string), "autoscaling/")
			kind := schema.GroupVersionKind{Group: "autoscaling", Version: version, Kind: "HorizontalPodAutoscaler"}
			obj, err = defaults.Builtin(schema.GroupVersionKind{Group: "autoscaling", Version: version, Kind: "HorizontalPodAutoscaler"}, obj, defaults.Options{})
			require.NoError(t, err)
			if rec.Code == 201 {
				obj["metadata"].(map[string]any)["managedFields"] = rec.Body["metadata"].(map[string]any)["managedFields"]
			}
			res, admitErr := chain.Admit(context.Background(), admission.Request{Operation: admission.Create, Kind: kind,
				Resource: schema.GroupVersionResource{Group: "autoscaling", Version: version, Resource: "horizontalpodautoscalers"},
				Name:     "h1", Namespace: name, Object: obj,
				UserInfo: admission.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}})
			if rec.Code != 201 {
				require.Error(t, admitErr)
				gotBody, err := json.Marshal(admitErr)
				require.NoError(t, err)
				wantBody, err := json.Marshal(rec.Body)
				require.NoError(t, err)
				assert.JSONEq(t, string(wantBody), string(gotBody))
				return
			}
			require.NoError(t, admitErr)
			assert.Equal(t, canonicalJSON(t, storedHPA(t, dir)), canonicalJSON(t, res.Object), "stored object")
		})
	}
}

// admitRecordedHPA replays the recorded v2 HorizontalPodAutoscaler create of
// scenario name (namespace ns) through the chain built from the scenario's
// config, with the recorded review uid: the review the webhook received, the
// reviews writepath sent, and Admit's answer.
func admitRecordedHPA(t *testing.T, name, ns string) (map[string]any, *seenHook, admission.Result, error) {
	t.Helper()
	dir := filepath.Join(equivalentDir, name)
	want := recordedReview(t, "/"+name)
	wantReq := want["request"].(map[string]any)
	cfgBytes, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments([]byte(strings.NewReplacer("CABUNDLE", "", "PORT", "18453").Replace(string(cfgBytes))))
	require.NoError(t, err)
	cfg := splitConfig(t, docs)
	cfg.Env = admission.Env{ReviewUID: func() string { return wantReq["uid"].(string) }}
	hook := &seenHook{}
	cfg.Client = hook
	chain, err := admission.New(cfg)
	require.NoError(t, err)
	obj := decodedHPA(t, filepath.Join(dir, "object.yaml"), wantReq)
	res, err := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
		Kind:     schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		Resource: schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
		Name:     "h1", Namespace: ns, Object: obj,
		UserInfo: admission.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}})
	return want, hook, res, err
}
