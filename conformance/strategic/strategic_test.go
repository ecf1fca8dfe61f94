// Package strategic compares writepath's strategic merge patch (merge
// package, schema-driven patch metadata) with
// k8s.io/apimachinery/pkg/util/strategicpatch on k8s.io/api types
// (PatchMetaFromStruct): StrategicMergeMapPatch, CreateTwoWayMergeMapPatch and
// CreateThreeWayMergePatch on random Pod, Deployment and Service documents,
// patches and configurations. Outputs and errors must be equal.
package strategic

import (
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/schema"
)

type kindCase struct {
	name  string
	gvk   schema.GroupVersionKind
	shape *shape
	typed func() any
}

var kinds = []kindCase{
	{"Pod", schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, podShape, func() any { return &corev1.Pod{} }},
	{"Deployment", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, deploymentShape, func() any { return &appsv1.Deployment{} }},
	{"Service", schema.GroupVersionKind{Version: "v1", Kind: "Service"}, serviceShape, func() any { return &corev1.Service{} }},
}

func samples() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100000
	}
	return 500
}

func metaOf(t testing.TB, k kindCase) merge.Meta {
	kind, err := schema.Builtin(k.gvk)
	require.NoError(t, err)
	m, err := merge.KindMeta(kind)
	require.NoError(t, err)
	return m
}

// copyExact deep-copies with len == cap lists (as runtime.ToUnstructured
// builds them).
func copyExact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyExact(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = copyExact(e)
		}
		return s
	}
	return v
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func decode(t testing.TB, b []byte) map[string]any {
	var m map[string]any
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(b, &m))
	return m
}

type outcome struct {
	Result any
	Err    string
}

const panicked = "panic"

func refApply(t testing.TB, k kindCase, doc map[string]any, patchJSON []byte) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{Err: panicked}
		}
	}()
	var p map[string]any
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(patchJSON, &p))
	res, err := strategicpatch.StrategicMergeMapPatch(copyExact(doc).(map[string]any), p, k.typed())
	if err != nil {
		return outcome{Err: err.Error()}
	}
	return outcome{Result: map[string]any(res)}
}

func ourApply(meta merge.Meta, doc map[string]any, patchJSON []byte) outcome {
	res, err := merge.ApplyStrategic(doc, patchJSON, meta, merge.Options{FieldValidation: schema.FieldValidationIgnore})
	if err != nil {
		var me *merge.Error
		if errors.As(err, &me) && me.Cause != nil {
			if me.StatusCode() == 500 && me.Reason() == "InternalError" {
				return outcome{Err: panicked}
			}
			return outcome{Err: me.Cause.Error()}
		}
		return outcome{Err: "unexpected: " + err.Error()}
	}
	return outcome{Result: res.Object}
}

func refTwoWay(k kindCase, original, modified map[string]any) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{Err: panicked}
		}
	}()
	p, err := strategicpatch.CreateTwoWayMergeMapPatch(decodeAny(mustJSON(original)), decodeAny(mustJSON(modified)), k.typed())
	if err != nil {
		return outcome{Err: err.Error()}
	}
	return outcome{Result: string(mustJSON(p))}
}

func decodeAny(b []byte) map[string]any {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &m); err != nil {
		panic(err)
	}
	return m
}

func refThreeWay(k kindCase, original, modified, current map[string]any, overwrite bool) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{Err: panicked}
		}
	}()
	meta, err := strategicpatch.NewPatchMetaFromStruct(k.typed())
	if err != nil {
		panic(err)
	}
	p, err := strategicpatch.CreateThreeWayMergePatch(mustJSON(original), mustJSON(modified), mustJSON(current), meta, overwrite)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	return outcome{Result: string(p)}
}

func ourCreate(p []byte, err error) outcome {
	if err != nil {
		if errors.Is(err, merge.ErrReferencePanics) {
			return outcome{Err: panicked}
		}
		return outcome{Err: err.Error()}
	}
	return outcome{Result: string(p)}
}

// agree compares, re-running the reference when it disagrees: the reference
// walks Go maps in random order, so with several errors in one document it
// may report any of them.
func agree(got outcome, ref func() outcome) (bool, bool) {
	if reflect.DeepEqual(got, ref()) {
		return true, false
	}
	for i := 0; i < 300; i++ {
		if reflect.DeepEqual(got, ref()) {
			return true, true
		}
	}
	return false, false
}

type stats struct {
	cases, ok, errs, nondeterministic int
}

func (s *stats) add(got outcome, agreed, nondet bool) {
	s.cases++
	if got.Err != "" {
		s.errs++
	} else {
		s.ok++
	}
	if nondet {
		s.nondeterministic++
	}
}

func TestApply(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			meta := metaOf(t, k)
			g := gen{rand.New(rand.NewSource(int64(len(k.name))))}
			var st stats
			for i := 0; i < samples(); i++ {
				doc := g.doc(k.shape, 0).(map[string]any)
				p, _ := g.patch(k.shape, doc, 0).(map[string]any)
				g.parallel(k.shape, p, doc)
				pj := mustJSON(p)
				before := string(mustJSON(doc))
				got := ourApply(meta, doc, pj)
				ok, nondet := agree(got, func() outcome { return refApply(t, k, doc, pj) })
				if !ok {
					require.Equal(t, refApply(t, k, doc, pj), got, "case %d\ndoc   %s\npatch %s", i, before, pj)
				}
				require.Equal(t, before, string(mustJSON(doc)), "input mutated")
				st.add(got, ok, nondet)
			}
			t.Logf("%s apply: %d cases, 0 disagreements (%d results, %d errors; %d where the reference's error depends on map order)", k.name, st.cases, st.ok, st.errs, st.nondeterministic)
		})
	}
}

func TestTwoWay(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			meta := metaOf(t, k)
			g := gen{rand.New(rand.NewSource(int64(100 + len(k.name))))}
			var st stats
			for i := 0; i < samples(); i++ {
				original := g.doc(k.shape, 0).(map[string]any)
				modified := g.mutate(k.shape, original, 0).(map[string]any)
				got := ourCreate(merge.CreateStrategic(original, modified, meta))
				ok, nondet := agree(got, func() outcome { return refTwoWay(k, original, modified) })
				if !ok {
					require.Equal(t, refTwoWay(k, original, modified), got, "case %d\noriginal %s\nmodified %s", i, mustJSON(original), mustJSON(modified))
				}
				st.add(got, ok, nondet)
				if got.Err == "" {
					// The created patch applied to original gives modified (modulo
					// the order of merge lists the reference also leaves open).
					pj := []byte(got.Result.(string))
					applied := ourApply(meta, original, pj)
					if ok, _ := agree(applied, func() outcome { return refApply(t, k, original, pj) }); !ok {
						require.Equal(t, refApply(t, k, original, pj), applied, "apply of created patch, case %d", i)
					}
				}
			}
			t.Logf("%s two-way: %d cases, 0 disagreements (%d patches, %d errors; %d nondeterministic in the reference)", k.name, st.cases, st.ok, st.errs, st.nondeterministic)
		})
	}
}

func TestThreeWay(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			meta := metaOf(t, k)
			g := gen{rand.New(rand.NewSource(int64(200 + len(k.name))))}
			var st stats
			for i := 0; i < samples(); i++ {
				original := g.doc(k.shape, 0).(map[string]any)
				modified := g.mutate(k.shape, original, 0).(map[string]any)
				current := g.mutate(k.shape, original, 0).(map[string]any)
				overwrite := g.rng.Intn(2) == 0
				got := ourCreate(merge.CreateThreeWayStrategic(original, modified, current, meta, overwrite))
				ok, nondet := agree(got, func() outcome { return refThreeWay(k, original, modified, current, overwrite) })
				if !ok {
					require.Equal(t, refThreeWay(k, original, modified, current, overwrite), got,
						"case %d overwrite %v\noriginal %s\nmodified %s\ncurrent  %s", i, overwrite, mustJSON(original), mustJSON(modified), mustJSON(current))
				}
				st.add(got, ok, nondet)
			}
			t.Logf("%s three-way: %d cases, 0 disagreements (%d patches, %d errors; %d nondeterministic in the reference)", k.name, st.cases, st.ok, st.errs, st.nondeterministic)
		})
	}
}

// FuzzApplyDifferential: any Pod document and patch give the reference's
// outcome (re-running the reference when its error depends on map order).
func FuzzApplyDifferential(f *testing.F) {
	f.Add([]byte(`{"metadata":{"finalizers":["a"]},"spec":{"containers":[{"name":"a","image":"x"}]}}`),
		[]byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]},"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b"},{"name":"a","$patch":"delete"}]}}`))
	f.Add([]byte(`{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}`), []byte(`{"spec":{"volumes":[{"name":"v","$retainKeys":["name"]}]}}`))
	k := kinds[0]
	meta := metaOf(f, k)
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte) {
		var doc map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(docJSON, &doc) != nil || doc == nil {
			return
		}
		var p map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(patchJSON, &p) != nil {
			return
		}
		got := ourApply(meta, doc, patchJSON)
		if ok, _ := agree(got, func() outcome { return refApply(t, k, doc, patchJSON) }); !ok {
			t.Fatalf("doc %s patch %s:\nreference %+v\nwritepath %+v", docJSON, patchJSON, refApply(t, k, doc, patchJSON), got)
		}
	})
}
