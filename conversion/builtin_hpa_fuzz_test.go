package conversion

import (
	"encoding/json"
	"math/rand"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// FuzzHPAConversion: any object, converted in every direction (and into
// itself as the object held), never panics, leaves its inputs as they were
// and gives the same result twice.
func FuzzHPAConversion(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3,"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"0.5Gi"}}}],"behavior":{"scaleUp":{"tolerance":"+1"}}}}`,
		`{"metadata":{"annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Pods\",\"PODS\":{\"metricName\":\"qps\",\"targetAverageValue\":1.5}}]","autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{}}","autoscaling.alpha.kubernetes.io/conditions":"null"}},"spec":{"targetCPUUtilizationPercentage":50},"status":{"currentCPUUtilizationPercentage":7}}`,
		`{"spec":{"maxReplicas":"x"}}`,
		`{"spec":{"metrics":[]},"status":{"currentMetrics":[],"lastScaleTime":"2026-01-01T00:00:00+01:00"}}`,
		`{"spec":{"metrics":[{"type":"Object","object":{"target":{"type":"AverageValue","value":"1e40","averageValue":"123456789012345678901234567890m"}}}]}}`,
		`{"metadata":{"annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[]"}}}`,
	} {
		f.Add([]byte(s))
	}
	conv := Builtin{}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return
		}
		before, err := value.DeepCopyMap(obj)
		require.NoError(t, err)
		for _, d := range [][2]schema.GroupVersionKind{{hpaV1, hpaV2}, {hpaV2, hpaV1}, {hpaV1, hpaV1}} {
			out1, err1 := conv.ConvertOnto(obj, nil, d[0], d[1])
			out2, err2 := conv.ConvertOnto(obj, nil, d[0], d[1])
			assert.Equal(t, err1, err2)
			assert.Equal(t, out1, out2, "deterministic")
			// Into the object itself (read as v2) when it is one.
			_, _ = conv.ConvertOnto(obj, obj, d[0], hpaV2)
			if err1 == nil {
				_, err := codec.EncodeJSON(out1)
				assert.NoError(t, err, "the result is in the object model")
			}
		}
		assert.Equal(t, before, obj, "input not modified")
	})
}

// FuzzHPARoundTrip: a v2 HorizontalPodAutoscaler that kube-apiserver's
// conversion round-trips (every metric and status expressible in v1's
// annotation shape, the CPU utilization target, if any, once and last,
// metrics not empty, a behavior with at least one rule) comes back from v1
// as the typed v2 object; converted back into the original object, too, when
// it has the CPU target (without it, the object held keeps its metrics after
// the annotation's: see TestRealClusterEquivalentHPAOnto).
func FuzzHPARoundTrip(f *testing.F) {
	for i := int64(0); i < 8; i++ {
		f.Add(i)
	}
	conv := Builtin{}
	f.Fuzz(func(t *testing.T, seed int64) {
		obj := roundTrippableHPA(rand.New(rand.NewSource(seed)))
		want, err := typedV2(obj)
		require.NoError(t, err)
		v1, err := conv.Convert(obj, hpaV2, hpaV1)
		require.NoError(t, err)
		back, err := conv.Convert(v1, hpaV1, hpaV2)
		require.NoError(t, err)
		assert.Equal(t, want, back, "v2 -> v1 -> v2 of %s", mustEncode(t, obj))
		if hasCPUTarget(obj) {
			onto, err := conv.ConvertOnto(v1, obj, hpaV1, hpaV2)
			require.NoError(t, err)
			assert.Equal(t, want, onto, "v1 into the original of %s", mustEncode(t, obj))
		}
	})
}

func mustEncode(t *testing.T, v any) string {
	b, err := codec.EncodeJSON(v)
	require.NoError(t, err)
	return string(b)
}

// typedV2 is obj as the apiserver encodes its decoded v2 form.
func typedV2(obj map[string]any) (map[string]any, error) {
	var h hpa2HorizontalPodAutoscaler
	if err := decodeHPA(obj, &h); err != nil {
		return nil, err
	}
	out := map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": obj["metadata"]}
	for k, v := range map[string]any{"spec": h.Spec, "status": h.Status} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if out[k], err = codec.DecodeValue(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func hasCPUTarget(obj map[string]any) bool {
	ms, _ := obj["spec"].(map[string]any)["metrics"].([]any)
	for _, m := range ms {
		if r, ok := m.(map[string]any)["resource"].(map[string]any); ok && r["name"] == "cpu" {
			if _, ok := r["target"].(map[string]any)["averageUtilization"]; ok {
				return true
			}
		}
	}
	return false
}

func roundTrippableHPA(r *rand.Rand) map[string]any {
	q := func() any {
		return []string{"1", "250m", "1Gi", "1.5Gi", "+7", "1e3", "12345678901234567890", "0.5"}[r.Intn(8)]
	}
	i32 := func() int64 { return int64(r.Intn(200)) }
	sel := func(m map[string]any, k string) {
		if r.Intn(2) == 0 {
			m[k] = map[string]any{"matchLabels": map[string]any{"app": "web"}}
		}
	}
	ident := func() map[string]any {
		m := map[string]any{"name": "m" + strconv.Itoa(r.Intn(3))}
		sel(m, "selector")
		return m
	}
	ref := map[string]any{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}
	var metrics, current []any
	for n := 1 + r.Intn(3); n > 0; n-- {
		switch r.Intn(5) {
		case 0, 1:
			name := []string{"memory", "ephemeral-storage"}[r.Intn(2)]
			var target map[string]any
			if r.Intn(2) == 0 {
				target = map[string]any{"type": "Utilization", "averageUtilization": i32()}
			} else {
				target = map[string]any{"type": "AverageValue", "averageValue": q()}
			}
			src := map[string]any{"name": name, "target": target}
			typ := "Resource"
			if r.Intn(2) == 0 {
				typ = "ContainerResource"
				src["container"] = "app"
			}
			key := map[string]string{"Resource": "resource", "ContainerResource": "containerResource"}[typ]
			metrics = append(metrics, map[string]any{"type": typ, key: src})
			cur := map[string]any{"averageValue": q()}
			if r.Intn(2) == 0 {
				cur["averageUtilization"] = i32()
			}
			csrc := map[string]any{"name": name, "current": cur}
			if typ == "ContainerResource" {
				csrc["container"] = "app"
			}
			current = append(current, map[string]any{"type": typ, key: csrc})
		case 2:
			metrics = append(metrics, map[string]any{"type": "Pods", "pods": map[string]any{"metric": ident(),
				"target": map[string]any{"type": "AverageValue", "averageValue": q()}}})
			current = append(current, map[string]any{"type": "Pods", "pods": map[string]any{"metric": ident(),
				"current": map[string]any{"averageValue": q()}}})
		case 3:
			target := map[string]any{"type": "Value", "value": q()}
			if r.Intn(2) == 0 {
				target = map[string]any{"type": "AverageValue", "averageValue": q(), "value": q()}
			}
			metrics = append(metrics, map[string]any{"type": "Object", "object": map[string]any{"metric": ident(),
				"describedObject": ref, "target": target}})
			cur := map[string]any{"value": q()}
			if r.Intn(2) == 0 {
				cur["averageValue"] = q()
			}
			current = append(current, map[string]any{"type": "Object", "object": map[string]any{"metric": ident(),
				"describedObject": ref, "current": cur}})
		default:
			target := map[string]any{"type": "Value", "value": q()}
			if r.Intn(2) == 0 {
				target = map[string]any{"type": "AverageValue", "averageValue": q()}
			}
			metrics = append(metrics, map[string]any{"type": "External", "external": map[string]any{"metric": ident(), "target": target}})
			cur := map[string]any{"value": q()}
			if r.Intn(2) == 0 {
				cur["averageValue"] = q()
			}
			current = append(current, map[string]any{"type": "External", "external": map[string]any{"metric": ident(), "current": cur}})
		}
	}
	if r.Intn(2) == 0 {
		metrics = append(metrics, map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
			"target": map[string]any{"type": "Utilization", "averageUtilization": i32()}}})
	}
	spec := map[string]any{"scaleTargetRef": ref, "maxReplicas": i32(), "minReplicas": i32(), "metrics": metrics}
	if r.Intn(2) == 0 {
		rules := func() any {
			return map[string]any{"stabilizationWindowSeconds": i32(), "selectPolicy": "Max", "tolerance": q(),
				"policies": []any{map[string]any{"type": "Pods", "value": i32(), "periodSeconds": i32()}}}
		}
		b := map[string]any{"scaleUp": rules()}
		if r.Intn(2) == 0 {
			b["scaleDown"] = rules()
		}
		spec["behavior"] = b
	}
	status := map[string]any{"desiredReplicas": i32(), "currentReplicas": i32(), "observedGeneration": int64(r.Intn(5)),
		"lastScaleTime": "2026-11-29T21:30:00Z"}
	if r.Intn(3) > 0 {
		status["currentMetrics"] = current
	}
	if r.Intn(2) == 0 {
		status["conditions"] = []any{map[string]any{"type": "AbleToScale", "status": "True", "reason": "R", "message": "m",
			"lastTransitionTime": "2026-11-29T21:30:00Z", "observedGeneration": int64(1)}}
	}
	md := map[string]any{"name": "h", "namespace": "default"}
	if r.Intn(2) == 0 {
		md["annotations"] = map[string]any{"keep": "me"}
	}
	return map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": md, "spec": spec, "status": status}
}
