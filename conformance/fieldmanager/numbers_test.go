package fieldmanager

import (
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/writepath/writepath/apply"
	wschema "github.com/writepath/writepath/schema"
	wdefaults "github.com/writepath/writepath/schema/defaults"
)

// The numbers suite: the reference field manager built as the apiserver builds it for a
// built-in kind, with the scheme as its object converter, so the merged object goes to the Go
// type through runtime.DefaultUnstructuredConverter (the scheme's unstructuredToTyped) and
// back. Applies set integer and IntOrString fields to numbers in and out of range, as integers
// and as floats; writepath's Apply must give the same status and message, or the same object
// with the same managedFields.

// schemaDefaulter is the reference's objectDefaulter: the scheme's defaulting as
// defaults.Builtin reproduces it (checked against k8s.io/kubernetes' scheme by
// conformance/defaults; this module has client-go's scheme, which has no defaulting
// functions). The conversion under test stays the reference's own: the typed object it is
// given came from the scheme's unstructured conversion.
type schemaDefaulter struct{}

func (schemaDefaulter) Default(obj runtime.Object) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	out, err := wdefaults.Builtin(wschema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, u, wdefaults.Options{})
	if err != nil {
		panic(err) // the typed object's content decodes
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out, obj); err != nil {
		panic(err)
	}
}

// numberPool: in range, beyond int32 and int64, integral floats in and beyond int64, fractions.
var numberPool = []any{int64(0), int64(3), int64(80), int64(-1), int64(math.MaxInt32), int64(math.MinInt32),
	int64(math.MaxInt32) + 1, int64(math.MinInt32) - 1, int64(4294967297), int64(4294967376), int64(math.MaxInt64),
	int64(math.MinInt64), int64(9007199254740993), 1.0, 80.0, 4294967298.0, 2.5, -0.5, 1e19, -1e19, 1e21, 1e30,
	9223372036854775808.0, math.Copysign(0, -1)}

type numberScenario struct {
	gvk k8sschema.GroupVersionKind
	// paths are where numbers go (containers[0] style indices; wrapped values are counted there).
	paths []string
	base  func() map[string]any
}

func numberScenarios() []numberScenario {
	return []numberScenario{{
		gvk: k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		paths: []string{"spec.replicas", "spec.minReadySeconds", "spec.template.spec.terminationGracePeriodSeconds",
			"spec.template.spec.containers[0].ports[0].containerPort", "spec.template.spec.containers[0].livenessProbe.httpGet.port"},
		base: func() map[string]any {
			return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d", "namespace": "ns"},
				"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"a": "b"}},
					"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}},
						"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx",
							"ports":         []any{map[string]any{"containerPort": int64(8080)}},
							"livenessProbe": map[string]any{"httpGet": map[string]any{"path": "/"}}}}}}}}
		},
	}, {
		gvk:   k8sschema.GroupVersionKind{Version: "v1", Kind: "Service"},
		paths: []string{"spec.ports[0].port", "spec.ports[0].targetPort", "spec.ports[0].nodePort", "spec.healthCheckNodePort"},
		base: func() map[string]any {
			return map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s", "namespace": "ns"},
				"spec": map[string]any{"ports": []any{map[string]any{"name": "http", "port": int64(80)}}}}
		},
	}}
}

// pathSegments splits "a.b[0].c" into "a", "b", 0, "c".
func pathSegments(path string) []any {
	var out []any
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		out = append(out, name)
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			i, _ := strconv.Atoi(idx)
			out = append(out, i)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out
}

func getPath(obj map[string]any, path string) any {
	var cur any = obj
	for _, s := range pathSegments(path) {
		switch k := s.(type) {
		case string:
			m, _ := cur.(map[string]any)
			cur = m[k]
		case int:
			l, _ := cur.([]any)
			if k >= len(l) {
				return nil
			}
			cur = l[k]
		}
	}
	return cur
}

// setPath sets an existing container's field (the base objects have every list item a path
// names).
func setPath(obj map[string]any, path string, v any) {
	segs := pathSegments(path)
	var cur any = obj
	for i, s := range segs {
		last := i == len(segs)-1
		switch k := s.(type) {
		case string:
			m := cur.(map[string]any)
			if last {
				m[k] = v
				return
			}
			if _, ok := m[k]; !ok {
				m[k] = map[string]any{}
			}
			cur = m[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
}

// applyTyped is reference.apply for a field manager whose converter gives typed objects: the
// result goes back to unstructured content, as the apiserver encodes it.
func (r *reference) applyTyped(live, config map[string]any, manager string, force bool, logical time.Time) outcome {
	liveObj := &unstructured.Unstructured{Object: deepCopy(live)}
	if live == nil {
		o, _ := fakeCreater{}.New(r.gvk(config))
		liveObj = o.(*unstructured.Unstructured)
	}
	out, err := r.fm.Apply(liveObj, &unstructured.Unstructured{Object: deepCopy(config)}, manager, force)
	if err != nil {
		return errOutcome(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if err != nil {
		panic(err)
	}
	return r.finish(live, &unstructured.Unstructured{Object: m}, logical)
}

func numberSequences() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 12500 // x 4 applies x 2 kinds = 100k applies
	}
	return 150
}

// TestNumbersDifferential: sequences of applies by two managers (sometimes forced) with
// numbers in and out of range, through the reference's scheme-converting field manager and
// writepath's Apply, each side applying to its own previous result.
func TestNumbersDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC) // before 2025: finish replaces the later (wall-clock) times
	ops, errs, wrapped, disagreements := 0, 0, 0, 0
	for _, sc := range numberScenarios() {
		fm, err := managedfields.NewDefaultFieldManager(builtinTypeConverter, scheme.Scheme, schemaDefaulter{}, fakeCreater{}, sc.gvk, sc.gvk.GroupVersion(), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		ref := &reference{fm: fm}
		gvk := wschema.GroupVersionKind{Group: sc.gvk.Group, Version: sc.gvk.Version, Kind: sc.gvk.Kind}
		for seq := 0; seq < numberSequences(); seq++ {
			var refLive, ourLive map[string]any
			for op := 0; op < 4; op++ {
				config := sc.base()
				for _, p := range sc.paths {
					if r.Intn(2) == 0 {
						setPath(config, p, numberPool[r.Intn(len(numberPool))])
					}
				}
				manager := pick(r, "alice", "bob")
				force := r.Intn(4) == 0
				now := start.Add(time.Duration(seq*10+op) * time.Minute)
				want := ref.applyTyped(refLive, config, manager, force, now)
				res, err := apply.Apply(apply.Request{Live: ourLive, Config: deepCopy(config), Kind: gvk, Manager: manager, Force: force,
					Now: now, Types: apply.Builtin})
				got := oursOutcome(res.Object, err)
				ops++
				fail := func(what string, a, b any) {
					disagreements++
					if disagreements <= 5 {
						t.Errorf("%v seq %d op %d (%s, force %t) %s:\nreference %s\nwritepath %s\nconfig %s", sc.gvk, seq, op, manager, force, what, js(a), js(b), js(config))
					}
				}
				if want.Object == nil || got.Object == nil {
					if want.Code != got.Code || want.Msg != got.Msg || js(want.Causes) != js(got.Causes) {
						fail("outcome", want, got)
					}
					if want.Object == nil && got.Object == nil {
						errs++
					}
					continue
				}
				if js(want.Object) != js(got.Object) {
					fail("object", want.Object, got.Object)
				}
				for _, p := range sc.paths {
					if c, ok := getPath(config, p).(int64); ok {
						if v, ok := getPath(got.Object, p).(int64); ok && v != c {
							wrapped++
						}
					}
				}
				refLive, ourLive = want.Object, got.Object
			}
		}
	}
	t.Logf("%d applies (%d errors on both sides, %d wrapped values), %d disagreements", ops, errs, wrapped, disagreements)
}
