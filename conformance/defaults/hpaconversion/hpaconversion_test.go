// Package hpaconversion compares conversion.Builtin's
// HorizontalPodAutoscaler conversions with k8s.io/kubernetes v1.37.2's, as
// kube-apiserver runs them for matchPolicy Equivalent: the object decoded into
// its Go type (sigs.k8s.io/json, as the JSON serializer decodes), converted
// through the internal version with legacyscheme's conversion functions
// (fresh, or into an existing internal object as the admission dispatchers
// convert a result back), and encoded with encoding/json.
package hpaconversion

import (
	"encoding/json"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/autoscaling/v1"
	v2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

var (
	gvk1 = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	gvk2 = schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
)

// reference converts obj (JSON of from) into base (JSON of v2, or nil) and
// to `to`, as kube-apiserver does; a panic of the conversion is reported as
// panicked.
func reference(obj, base []byte, from, to schema.GroupVersionKind) (out map[string]any, err error, panicked bool) {
	s := legacyscheme.Scheme
	defer func() {
		if r := recover(); r != nil {
			out, err, panicked = nil, nil, true
		}
	}()
	newObj := func(g schema.GroupVersionKind) runtime.Object {
		if g.Version == "v1" {
			return &v1.HorizontalPodAutoscaler{}
		}
		return &v2.HorizontalPodAutoscaler{}
	}
	in := newObj(from)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(obj, in); err != nil {
		return nil, err, false
	}
	internal := &autoscaling.HorizontalPodAutoscaler{}
	if base != nil {
		b := &v2.HorizontalPodAutoscaler{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(base, b); err != nil {
			return nil, err, false
		}
		if err := s.Convert(b, internal, nil); err != nil {
			return nil, err, false
		}
	}
	if err := s.Convert(in, internal, nil); err != nil {
		return nil, err, false
	}
	res := newObj(to)
	if err := s.Convert(internal, res, nil); err != nil {
		return nil, err, false
	}
	res.GetObjectKind().SetGroupVersionKind(res.GetObjectKind().GroupVersionKind())
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err, false
	}
	m, err := codec.DecodeObject(b)
	if err != nil {
		return nil, err, false
	}
	m["apiVersion"] = "autoscaling/" + to.Version
	m["kind"] = "HorizontalPodAutoscaler"
	return m, nil, false
}

// gen draws HorizontalPodAutoscalers as JSON values, with the corners the
// conversion treats apart.
type gen struct{ r *rand.Rand }

func (g gen) n(k int) int         { return g.r.Intn(k) }
func (g gen) p(num, den int) bool { return g.r.Intn(den) < num }
func (g gen) pick(xs ...string) string {
	return xs[g.r.Intn(len(xs))]
}

func (g gen) quantity() any {
	switch g.n(40) {
	case 0, 3, 4:
		return int64(g.n(5000)) - 100
	case 1, 5, 6:
		return g.pick("0", "+1", "-0", "0.0", "1e3", "1E3", "1000e0", "1000E", "7Ei", "8Ei", "1.5Gi", "0.5Gi", "1023Ki", "1025Ki", "100m", "1000m", "0.1n", "12345678901234567890", "1e-10", ".5", "5.", "1.Gi", "-1.5", "1000000000000000000000E", "1e40", "0.000000001", "123456789012345678.9")
	case 2:
		return g.pick("", "abc", "1Qi", "1 Gi", "--1", "1e", "1ee3") // invalid: the annotation (or object) does not decode
	}
	var b strings.Builder
	switch g.n(6) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	if g.p(1, 6) {
		b.WriteString(strings.Repeat("0", 1+g.n(2)))
	}
	digits := 1 + g.n(4)
	if g.p(1, 8) {
		digits = 12 + g.n(15)
	}
	for i := 0; i < digits; i++ {
		b.WriteByte(byte('0' + g.n(10)))
	}
	if g.p(1, 4) {
		b.WriteByte('.')
		for i := g.n(11); i > 0; i-- {
			b.WriteByte(byte('0' + g.n(10)))
		}
	}
	switch g.n(4) {
	case 0:
	case 1:
		b.WriteString(g.pick("n", "u", "m", "k", "M", "G", "T", "P", "E"))
	case 2:
		b.WriteString(g.pick("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))
	default:
		b.WriteString(g.pick("e", "E") + g.pick("", "+", "-") + strconv.Itoa(g.n(25)))
	}
	return b.String()
}

func (g gen) int32() any {
	switch g.n(12) {
	case 0:
		return int64(0)
	case 1:
		return int64(2147483647)
	case 2:
		return int64(-5)
	}
	return int64(g.n(200))
}

func (g gen) time() any {
	return g.pick("2026-11-29T21:30:00Z", "2026-11-29T21:30:00.123456Z", "2026-11-29T23:30:00+02:00", "0001-01-01T00:00:00Z", "1999-12-31T23:59:59-08:00")
}

func (g gen) selector() any {
	if g.p(1, 2) {
		return nil
	}
	s := map[string]any{}
	if g.p(1, 2) {
		s["matchLabels"] = map[string]any{g.pick("a", "b<&>", "z"): g.pick("x", "", "y")}
	}
	if g.p(1, 3) {
		req := map[string]any{"key": g.pick("k", "tier"), "operator": g.pick("In", "Exists", "")}
		switch g.n(3) {
		case 0:
			req["values"] = []any{}
		case 1:
			req["values"] = []any{"a", "b"}
		}
		s["matchExpressions"] = []any{req}
	}
	if g.p(1, 8) {
		s["matchLabels"] = map[string]any{}
	}
	return s
}

func (g gen) maybe(m map[string]any, k string, f func() any) {
	if g.p(1, 2) {
		m[k] = f()
	}
}

func (g gen) xref() any {
	m := map[string]any{"kind": g.pick("Deployment", "Service", ""), "name": g.pick("web", "x", "")}
	g.maybe(m, "apiVersion", func() any { return g.pick("apps/v1", "v1", "") })
	return m
}

func (g gen) target() any {
	m := map[string]any{"type": g.pick("Utilization", "Value", "AverageValue", "", "Other")}
	g.maybe(m, "value", g.quantity)
	g.maybe(m, "averageValue", g.quantity)
	g.maybe(m, "averageUtilization", g.int32)
	return m
}

func (g gen) current() any {
	m := map[string]any{}
	g.maybe(m, "value", g.quantity)
	g.maybe(m, "averageValue", g.quantity)
	g.maybe(m, "averageUtilization", g.int32)
	return m
}

func (g gen) ident() any {
	m := map[string]any{"name": g.pick("qps", "requests", "")}
	if s := g.selector(); s != nil {
		m["selector"] = s
	}
	return m
}

func (g gen) resourceName() string { return g.pick("cpu", "cpu", "cpu", "memory", "", "CPU") }

var sourceTypes = []string{"Resource", "Pods", "Object", "External", "ContainerResource"}

// v2Metric is a v2 MetricSpec (status: a MetricStatus): usually one source
// of its type, sometimes none, another or several.
func (g gen) v2Metric(status bool) any {
	typ := sourceTypes[g.n(len(sourceTypes))]
	m := map[string]any{"type": typ}
	if g.p(1, 12) {
		m["type"] = g.pick("", "Weird")
	}
	val := g.target
	if status {
		val = g.current
	}
	key := map[bool]string{false: "target", true: "current"}[status]
	sources := map[string]func() any{
		"Resource": func() any { return map[string]any{"name": g.resourceName(), key: val()} },
		"ContainerResource": func() any {
			return map[string]any{"name": g.resourceName(), "container": g.pick("app", ""), key: val()}
		},
		"Pods":     func() any { return map[string]any{"metric": g.ident(), key: val()} },
		"External": func() any { return map[string]any{"metric": g.ident(), key: val()} },
		"Object": func() any {
			return map[string]any{"metric": g.ident(), key: val(), "describedObject": g.xref()}
		},
	}
	field := func(t string) string { return strings.ToLower(t[:1]) + t[1:] }
	if g.p(11, 12) {
		m[field(typ)] = sources[typ]()
	}
	if g.p(1, 10) {
		o := sourceTypes[g.n(len(sourceTypes))]
		m[field(o)] = sources[o]()
	}
	return m
}

func (g gen) list(f func() any, max int) any {
	switch g.n(6) {
	case 0:
		return nil
	case 1:
		return []any{}
	}
	out := []any{}
	for i := 1 + g.n(max); i > 0; i-- {
		out = append(out, f())
	}
	return out
}

func (g gen) rules() any {
	if g.p(1, 4) {
		return nil
	}
	m := map[string]any{}
	g.maybe(m, "stabilizationWindowSeconds", g.int32)
	g.maybe(m, "selectPolicy", func() any { return g.pick("Max", "Min", "Disabled") })
	g.maybe(m, "policies", func() any {
		return g.list(func() any {
			return map[string]any{"type": g.pick("Pods", "Percent"), "value": g.int32(), "periodSeconds": g.int32()}
		}, 3)
	})
	g.maybe(m, "tolerance", g.quantity)
	return m
}

func (g gen) condition() any {
	m := map[string]any{"type": g.pick("AbleToScale", "ScalingActive", "ScalingLimited"), "status": g.pick("True", "False", "Unknown")}
	g.maybe(m, "lastTransitionTime", g.time)
	g.maybe(m, "reason", func() any { return g.pick("R", "") })
	g.maybe(m, "message", func() any { return g.pick("m <b>", "", "é\u2028") })
	g.maybe(m, "observedGeneration", func() any { return int64(g.n(5)) })
	return m
}

func (g gen) metadata(annotations map[string]any) map[string]any {
	m := map[string]any{"name": "h", "namespace": "hpa-conv"}
	if g.p(1, 3) {
		m["labels"] = map[string]any{"app": "web"}
	}
	if g.p(1, 3) {
		if annotations == nil {
			annotations = map[string]any{}
		}
		annotations["keep"] = "me"
	}
	if g.p(1, 10) && annotations == nil {
		annotations = map[string]any{}
	}
	if annotations != nil {
		m["annotations"] = annotations
	}
	return m
}

// v2 is an autoscaling/v2 HorizontalPodAutoscaler, sometimes with stray
// round-trip annotations (which every conversion drops).
func (g gen) v2() map[string]any {
	spec := map[string]any{"scaleTargetRef": g.xref(), "maxReplicas": g.int32()}
	g.maybe(spec, "minReplicas", g.int32)
	g.maybe(spec, "metrics", func() any { return g.list(func() any { return g.v2Metric(false) }, 4) })
	if g.p(1, 5) {
		// Several CPU utilization metrics: the first is v1's target, all are
		// left out of the annotation.
		ms, _ := spec["metrics"].([]any)
		for i := 1 + g.n(2); i > 0; i-- {
			cpu := map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
				"target": map[string]any{"type": "Utilization", "averageUtilization": g.int32()}}}
			ms = append(ms[:len(ms):len(ms)], nil)
			at := g.n(len(ms))
			copy(ms[at+1:], ms[at:])
			ms[at] = cpu
		}
		spec["metrics"] = ms
	}
	if g.p(1, 2) {
		b := map[string]any{}
		if r := g.rules(); r != nil {
			b["scaleUp"] = r
		}
		if r := g.rules(); r != nil {
			b["scaleDown"] = r
		}
		spec["behavior"] = b
	}
	st := map[string]any{"desiredReplicas": g.int32()}
	g.maybe(st, "currentReplicas", g.int32)
	g.maybe(st, "observedGeneration", func() any { return int64(g.n(9)) })
	g.maybe(st, "lastScaleTime", g.time)
	g.maybe(st, "currentMetrics", func() any { return g.list(func() any { return g.v2Metric(true) }, 3) })
	g.maybe(st, "conditions", func() any { return g.list(g.condition, 3) })
	var ann map[string]any
	if g.p(1, 6) {
		ann = map[string]any{g.pick("autoscaling.alpha.kubernetes.io/metrics", "autoscaling.alpha.kubernetes.io/behavior",
			"autoscaling.alpha.kubernetes.io/scale-up-tolerance", "autoscaling.alpha.kubernetes.io/conditions"): "[]"}
	}
	obj := map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": g.metadata(ann), "spec": spec}
	if g.p(5, 6) {
		obj["status"] = st
	}
	return obj
}

// v1Metric is a v1 MetricSpec (status: MetricStatus) as annotation JSON
// holds it, sometimes with fields in another case or of the wrong type.
func (g gen) v1Metric(status bool) any {
	typ := sourceTypes[g.n(len(sourceTypes))]
	m := map[string]any{"type": typ}
	q := func(m map[string]any, k string) { g.maybe(m, k, g.quantity) }
	var src map[string]any
	switch typ {
	case "Resource", "ContainerResource":
		src = map[string]any{"name": g.resourceName()}
		if typ == "ContainerResource" {
			src["container"] = "app"
		}
		if status {
			g.maybe(src, "currentAverageUtilization", g.int32)
			q(src, "currentAverageValue")
		} else {
			g.maybe(src, "targetAverageUtilization", g.int32)
			q(src, "targetAverageValue")
		}
	case "Pods":
		src = map[string]any{"metricName": "qps"}
		q(src, map[bool]string{false: "targetAverageValue", true: "currentAverageValue"}[status])
		g.maybe(src, "selector", g.selector)
	case "Object":
		src = map[string]any{"metricName": "hits", "target": g.xref()}
		q(src, map[bool]string{false: "targetValue", true: "currentValue"}[status])
		q(src, "averageValue")
		g.maybe(src, "selector", g.selector)
	case "External":
		src = map[string]any{"metricName": "queue"}
		if status {
			q(src, "currentValue")
			q(src, "currentAverageValue")
		} else {
			q(src, "targetValue")
			q(src, "targetAverageValue")
		}
		g.maybe(src, "metricSelector", g.selector)
	}
	key := strings.ToLower(typ[:1]) + typ[1:]
	if g.p(1, 10) {
		key = strings.ToUpper(key) // encoding/json matches field names case-insensitively
	}
	if g.p(1, 15) {
		src["metricName"] = int64(3) // a type error: the whole annotation is ignored
	}
	m[key] = src
	return m
}

func (g gen) annotationJSON(v any) string {
	switch g.n(25) {
	case 0:
		return g.pick("", "not json", "{", "null", "[]", "{}", "[1]", `[{"type":1}]`)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// v1 is an autoscaling/v1 HorizontalPodAutoscaler with round-trip
// annotations (well-formed, partly wrong, or garbage).
func (g gen) v1() map[string]any {
	spec := map[string]any{"scaleTargetRef": g.xref(), "maxReplicas": g.int32()}
	g.maybe(spec, "minReplicas", g.int32)
	g.maybe(spec, "targetCPUUtilizationPercentage", g.int32)
	st := map[string]any{"currentReplicas": g.int32(), "desiredReplicas": g.int32()}
	g.maybe(st, "currentCPUUtilizationPercentage", g.int32)
	g.maybe(st, "observedGeneration", func() any { return int64(g.n(9)) })
	g.maybe(st, "lastScaleTime", g.time)
	var ann map[string]any
	add := func(k string, v func() any) {
		if g.p(1, 2) {
			if ann == nil {
				ann = map[string]any{}
			}
			ann[k] = g.annotationJSON(v())
		}
	}
	add("autoscaling.alpha.kubernetes.io/metrics", func() any { return g.list(func() any { return g.v1Metric(false) }, 3) })
	add("autoscaling.alpha.kubernetes.io/current-metrics", func() any { return g.list(func() any { return g.v1Metric(true) }, 3) })
	add("autoscaling.alpha.kubernetes.io/conditions", func() any { return g.list(g.condition, 3) })
	add("autoscaling.alpha.kubernetes.io/behavior", func() any {
		b := map[string]any{}
		for _, k := range []string{"ScaleUp", "ScaleDown"} {
			if r := g.rules(); r != nil || g.p(1, 3) {
				if g.p(1, 5) {
					k = strings.ToLower(k)
				}
				rm, _ := r.(map[string]any)
				if rm != nil && g.p(1, 2) {
					// The internal type's field names, as the conversion writes them.
					c := map[string]any{}
					for f, v := range rm {
						c[strings.ToUpper(f[:1])+f[1:]] = v
					}
					rm = c
				}
				b[k] = rm
			}
		}
		return b
	})
	if g.p(1, 10) {
		if ann == nil {
			ann = map[string]any{}
		}
		ann[g.pick("autoscaling.alpha.kubernetes.io/scale-down-tolerance", "autoscaling.alpha.kubernetes.io/scale-up-tolerance")] = "0.1"
	}
	obj := map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": g.metadata(ann), "spec": spec}
	if g.p(5, 6) {
		obj["status"] = st
	}
	return obj
}

// illTyped replaces one value of obj by a value of the wrong type (the
// decoding error must be the apiserver's).
func (g gen) illTyped(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	switch g.n(4) {
	case 0:
		spec["maxReplicas"] = "five"
	case 1:
		spec["scaleTargetRef"] = "web"
	case 2:
		spec["minReplicas"] = 1.5
	default:
		obj["status"] = map[string]any{"lastScaleTime": "yesterday"}
	}
}

type kase struct {
	from, to schema.GroupVersionKind
	obj      map[string]any
	base     map[string]any
}

func (g gen) kase() kase {
	var k kase
	switch g.n(4) {
	case 0:
		k = kase{from: gvk2, to: gvk1, obj: g.v2()}
	case 1:
		k = kase{from: gvk1, to: gvk2, obj: g.v1()}
	default:
		// v1 -> v2 into an existing object, as the dispatchers convert back;
		// the v1 object is often the base converted to v1 (what a webhook
		// receives) and changed a little.
		base := g.v2()
		obj := g.v1()
		if conv, err, panicked := reference(mustJSON(base), nil, gvk2, gvk1); err == nil && !panicked && g.p(2, 3) {
			obj = conv
			if g.p(1, 2) {
				g.mutateV1(obj)
			}
		}
		k = kase{from: gvk1, to: gvk2, obj: obj, base: base}
	}
	if g.p(1, 40) {
		g.illTyped(k.obj)
	}
	return k
}

// mutateV1 changes a converted v1 object as a webhook might.
func (g gen) mutateV1(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	switch g.n(5) {
	case 0:
		delete(spec, "targetCPUUtilizationPercentage")
	case 1:
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, g.pick("autoscaling.alpha.kubernetes.io/metrics", "autoscaling.alpha.kubernetes.io/behavior",
				"autoscaling.alpha.kubernetes.io/current-metrics", "autoscaling.alpha.kubernetes.io/conditions"))
		}
	case 2:
		spec["targetCPUUtilizationPercentage"] = int64(55)
	case 3:
		delete(md, "annotations")
	default:
		md["labels"] = map[string]any{"seen": "v1"}
	}
}

func mustJSON(v any) []byte {
	b, err := codec.EncodeJSON(v)
	if err != nil {
		panic(err)
	}
	return b
}

func count() int {
	if os.Getenv("WRITEPATH_LONG") == "1" {
		return 120000
	}
	return 3000
}

// TestHPAConversionDifferential: the same generated objects through
// conversion.Builtin (ConvertOnto when converting into an object) and through
// legacyscheme; the results (maps decoded with integers preserved) and the
// errors must be equal, and where the reference panics ours must fail.
func TestHPAConversionDifferential(t *testing.T) {
	var conv schema.OntoConverter = conversion.Builtin{}
	g := gen{rand.New(rand.NewSource(20261130))}
	n := count()
	disagreements, errs, panics, onto := 0, 0, 0, 0
	for i := 0; i < n; i++ {
		k := g.kase()
		var baseJSON []byte
		if k.base != nil {
			baseJSON = mustJSON(k.base)
			onto++
		}
		want, wantErr, panicked := reference(mustJSON(k.obj), baseJSON, k.from, k.to)
		got, gotErr := conv.ConvertOnto(k.obj, k.base, k.from, k.to)
		switch {
		case panicked:
			panics++
			if gotErr == nil {
				disagreements++
				t.Errorf("case %d: the reference panics, writepath converts\nobj: %s\nbase: %s", i, mustJSON(k.obj), baseJSON)
			}
		case wantErr != nil:
			errs++
			if gotErr == nil || gotErr.Error() != wantErr.Error() {
				disagreements++
				t.Errorf("case %d: error\nwant: %v\ngot:  %v\nobj: %s", i, wantErr, gotErr, mustJSON(k.obj))
			}
		case gotErr != nil:
			disagreements++
			t.Errorf("case %d: unexpected error %v\nobj: %s", i, gotErr, mustJSON(k.obj))
		case !reflect.DeepEqual(want, got):
			disagreements++
			t.Errorf("case %d: %s -> %s\nobj:  %s\nbase: %s\nwant: %s\ngot:  %s", i, k.from.Version, k.to.Version,
				mustJSON(k.obj), baseJSON, mustJSON(want), mustJSON(got))
		}
		if disagreements > 10 {
			t.Fatalf("too many disagreements")
		}
	}
	t.Logf("%d cases (%d into an existing object), %d decoding errors, %d reference panics, %d disagreements", n, onto, errs, panics, disagreements)
}
