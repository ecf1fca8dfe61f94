package defaults_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

var hpaV1 = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}

func hpaV1Object() map[string]any {
	return map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "h"},
		"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
			"maxReplicas": int64(5), "bogus": true}}
}

// TestDefaultWith shows each option's step on an autoscaling/v1 HorizontalPodAutoscaler without
// a CPU target: the v1 defaulting sets minReplicas only; the 80 % CPU target comes from the
// internal round trip.
func TestDefaultWith(t *testing.T) {
	k, err := schema.Builtin(hpaV1)
	require.NoError(t, err)
	spec := func(o defaults.Options) map[string]any {
		obj := hpaV1Object()
		out, err := defaults.ForKind(k, obj, o)
		require.NoError(t, err)
		assert.Equal(t, hpaV1Object(), obj, "input not modified")
		return out["spec"].(map[string]any)
	}
	ref := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
	full := spec(defaults.Options{})
	assert.Equal(t, map[string]any{"scaleTargetRef": ref, "minReplicas": int64(1), "maxReplicas": int64(5), "targetCPUUtilizationPercentage": int64(80)}, full)
	def, err := defaults.Builtin(hpaV1, hpaV1Object(), defaults.Options{})
	require.NoError(t, err)
	assert.Equal(t, def["spec"], full, "the zero options are Default")

	assert.Equal(t, map[string]any{"scaleTargetRef": ref, "minReplicas": int64(1), "maxReplicas": int64(5)},
		spec(defaults.Options{SkipInternalRoundTrip: true}), "v1 defaulting only")
	assert.Equal(t, map[string]any{"scaleTargetRef": ref, "maxReplicas": int64(5)},
		spec(defaults.Options{SkipDefaulting: true, SkipInternalRoundTrip: true}), "decoded and encoded only")
	assert.Equal(t, map[string]any{"scaleTargetRef": ref, "maxReplicas": int64(5), "targetCPUUtilizationPercentage": int64(80)},
		spec(defaults.Options{SkipDefaulting: true}), "round trip without defaulting")
}

// TestDefaultWithUnstructured: Unstructured reads numbers as the unstructured converter does.
func TestDefaultWithUnstructured(t *testing.T) {
	k, err := schema.Builtin(hpaV1)
	require.NoError(t, err)
	obj := hpaV1Object()
	obj["spec"].(map[string]any)["maxReplicas"] = int64(4294967301)
	_, err = defaults.ForKind(k, obj, defaults.Options{SkipInternalRoundTrip: true})
	require.Error(t, err, "the JSON decoder refuses an int32 beyond range")
	out, err := defaults.ForKind(k, obj, defaults.Options{Unstructured: true, SkipInternalRoundTrip: true})
	require.NoError(t, err)
	want, err := defaults.ForKind(k, obj, defaults.Options{Unstructured: true})
	require.NoError(t, err)
	assert.Equal(t, int64(5), out["spec"].(map[string]any)["maxReplicas"])
	assert.Equal(t, want["spec"].(map[string]any)["maxReplicas"], out["spec"].(map[string]any)["maxReplicas"])
}

// ExampleKind_Default_steps defaults an autoscaling/v1 HorizontalPodAutoscaler as a mutating
// webhook's patched object is defaulted when the webhook was sent v1 for an autoscaling/v2
// request: v1 defaulting (minReplicas), without the internal round trip's 80 % CPU target.
func ExampleForKind_steps() {
	k, _ := schema.Builtin(schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"})
	obj := map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "h"},
		"spec": map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web"}, "maxReplicas": int64(5)}}
	for _, o := range []defaults.Options{{}, {SkipInternalRoundTrip: true}} {
		out, err := defaults.ForKind(k, obj, o)
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := json.Marshal(out["spec"])
		fmt.Printf("{Unstructured:%v SkipDefaulting:%v SkipInternalRoundTrip:%v}: %s\n", o.Unstructured, o.SkipDefaulting, o.SkipInternalRoundTrip, b)
	}
	// Output:
	// {Unstructured:false SkipDefaulting:false SkipInternalRoundTrip:false}: {"maxReplicas":5,"minReplicas":1,"scaleTargetRef":{"kind":"Deployment","name":"web"},"targetCPUUtilizationPercentage":80}
	// {Unstructured:false SkipDefaulting:false SkipInternalRoundTrip:true}: {"maxReplicas":5,"minReplicas":1,"scaleTargetRef":{"kind":"Deployment","name":"web"}}
}

// FuzzDefaultWith: any options on any JSON object of any built-in kind never panic nor modify
// the input; decoding succeeds or fails alike whatever steps are skipped; a kind whose internal
// round trip changes nothing (every kind but those convert.go lists) gives
// Default's object without it.
func FuzzDefaultWith(f *testing.F) {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		f.Fatal(err)
	}
	var ks []*schema.Kind
	for _, k := range kinds {
		if defaults.Handles(k.GVK) {
			ks = append(ks, k)
		}
	}
	f.Add(uint16(0), uint8(2), []byte(`{"spec":{"containers":[{"name":"c","image":"nginx"}]}}`))
	for i, k := range ks {
		if k.GVK == hpaV1 {
			f.Add(uint16(i), uint8(2), []byte(`{"spec":{"maxReplicas":3}}`))
			f.Add(uint16(i), uint8(7), []byte(`{"spec":{"maxReplicas":3.0,"minReplicas":1e1}}`))
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, opts uint8, data []byte) {
		var obj map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err != nil || obj == nil {
			return
		}
		k := ks[int(which)%len(ks)]
		obj["apiVersion"], obj["kind"] = k.GVK.APIVersion(), k.GVK.Kind
		o := defaults.Options{Unstructured: opts&1 != 0, SkipDefaulting: opts&2 != 0, SkipInternalRoundTrip: opts&4 != 0}
		before := mustJSON(t, obj)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		out, err := defaults.ForKind(k, obj, withNow(o, now))
		if after := mustJSON(t, obj); after != before {
			t.Fatalf("input modified:\n%s\n%s", before, after)
		}
		_, decErr := defaults.ForKind(k, obj, defaults.Options{Now: now, Unstructured: o.Unstructured, SkipDefaulting: true, SkipInternalRoundTrip: true})
		if decErr != nil && err == nil {
			t.Fatalf("%+v accepts what decoding refuses: %v", o, decErr)
		}
		if err != nil || o.SkipDefaulting || !o.SkipInternalRoundTrip {
			return
		}
		full, ferr := defaults.ForKind(k, obj, defaults.Options{Now: now, Unstructured: o.Unstructured})
		if ferr == nil && !roundTripKinds[k.GVK.Kind] && mustJSON(t, full) != mustJSON(t, out) {
			t.Fatalf("%v: the round trip changed a kind it does not touch:\n%s\n%s", k.GVK, mustJSON(t, full), mustJSON(t, out))
		}
	})
}

// roundTripKinds are the kinds whose internal round trip is not lossless
// (convert.go).
var roundTripKinds = map[string]bool{"Node": true, "Secret": true, "Deployment": true, "DaemonSet": true,
	"StatefulSet": true, "CustomResourceDefinition": true, "HorizontalPodAutoscaler": true}

// withNow is o at now.
func withNow(o defaults.Options, now time.Time) defaults.Options {
	o.Now = now
	return o
}

// TestShareFieldsV1 checks that Options.ShareFieldsV1 gives the same result, with the
// managedFields' fieldsV1 values the input's own; everything else is fresh still.
func TestShareFieldsV1(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	in := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "d", "labels": map[string]any{"a": "b"}, "managedFields": []any{
			map[string]any{"manager": "m", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{"f:a": map[string]any{}}}}}}},
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"a": "b"}}}}
	want, err := defaults.Builtin(gvk, in, defaults.Options{})
	require.NoError(t, err)
	got, err := defaults.Builtin(gvk, in, defaults.Options{ShareFieldsV1: true})
	require.NoError(t, err)
	assert.Equal(t, want, got)
	fields := func(obj map[string]any) map[string]any {
		e := obj["metadata"].(map[string]any)["managedFields"].([]any)[0].(map[string]any)
		return e["fieldsV1"].(map[string]any)
	}
	fields(got)["f:spec"] = map[string]any{}
	assert.Contains(t, fields(in), "f:spec", "the input's own value")
	assert.NotContains(t, fields(want), "f:spec", "a copy without the option")
	got["metadata"].(map[string]any)["labels"].(map[string]any)["a"] = "changed"
	assert.Equal(t, "b", in["metadata"].(map[string]any)["labels"].(map[string]any)["a"], "the rest is fresh")
}
