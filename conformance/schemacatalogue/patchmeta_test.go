// Package schemacatalogue compares writepath's generated built-in catalogue (schema.Builtin) with
// the reference: strategic-merge-patch metadata against strategicpatch.PatchMetaFromStruct on the
// k8s.io Go types, SMD types against the apply-configuration type converters, and the catalogue's
// kinds against the reference schemes.
package schemacatalogue

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"

	"github.com/writepath/writepath/schema"
)

func newScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
		apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme,
	} {
		require.NoError(t, add(s))
	}
	return s
}

func refGVK(g schema.GroupVersionKind) runtimeschema.GroupVersionKind {
	return runtimeschema.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
}

// maxDepth bounds the walk: deep enough for every path of PodTemplateSpec inside a CronJob and
// for several levels of the recursive JSONSchemaProps.
const maxDepth = 14

type pmWalker struct {
	t             *testing.T
	compared      int
	disagreements []string
	seen          map[[2]any]bool
}

// TestPatchMetaAgainstStrategicPatch walks every field path (bounded depth) of every built-in kind
// in both writepath's PatchMeta and strategicpatch.PatchMetaFromStruct, looking each field up as a
// struct field and as a slice, under its exact name, a case-changed name and an unknown name,
// and compares types, strategies, merge keys and error texts.
func TestPatchMetaAgainstStrategicPatch(t *testing.T) {
	scheme := newScheme(t)
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	w := &pmWalker{t: t, seen: map[[2]any]bool{}}
	for _, k := range kinds {
		obj, err := scheme.New(refGVK(k.GVK))
		require.NoError(t, err, "%s: the reference scheme does not know the kind", k.GVK)
		ref, err := strategicpatch.NewPatchMetaFromStruct(obj)
		require.NoError(t, err)
		mine, err := k.PatchMeta()
		require.NoError(t, err)
		w.walk(k.GVK.String(), mine, ref, 0)
	}
	t.Logf("patch metadata: %d kinds, %d look-ups compared, %d disagreements", len(kinds), w.compared, len(w.disagreements))
	for _, d := range w.disagreements {
		t.Error(d)
	}
}

func (w *pmWalker) walk(path string, mine schema.PatchMeta, ref strategicpatch.PatchMetaFromStruct, depth int) {
	key := [2]any{mine, ref.T}
	if depth > maxDepth || w.seen[key] {
		return
	}
	w.seen[key] = true
	w.compareName(path, mine, ref)
	for _, name := range candidateNames(ref.T, mine) {
		p := path + "." + name
		mSub, mInfo, mErr := mine.LookupField(name)
		rSub, rInfo, rErr := ref.LookupPatchMetadataForStruct(name)
		if !w.sameResult(p+" (struct)", mInfo, mErr, rInfo, rErr) {
			continue
		}
		mElem, mSliceInfo, mSliceErr := mine.LookupSlice(name)
		rElem, rSliceInfo, rSliceErr := ref.LookupPatchMetadataForSlice(name)
		sliceOK := w.sameResult(p+" (slice)", mSliceInfo, mSliceErr, rSliceInfo, rSliceErr)
		if mErr != nil {
			continue
		}
		w.walk(p, mSub, rSub.(strategicpatch.PatchMetaFromStruct), depth+1)
		if sliceOK && mSliceErr == nil {
			w.walk(p+"[]", mElem, rElem.(strategicpatch.PatchMetaFromStruct), depth+1)
		}
	}
}

func (w *pmWalker) compareName(path string, mine schema.PatchMeta, ref strategicpatch.PatchMetaFromStruct) {
	w.compared++
	if mine.Name() != ref.Name() {
		w.disagreements = append(w.disagreements, fmt.Sprintf("%s: Name() %q, reference %q", path, mine.Name(), ref.Name()))
	}
	t := ref.T
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		want := mine.TypeName()
		if mine.Name() == "ptr" {
			e, _ := mine.Elem()
			want = e.TypeName()
		}
		if want != t.Name() {
			w.disagreements = append(w.disagreements, fmt.Sprintf("%s: type %q, reference %q", path, want, t.Name()))
		}
	}
}

func (w *pmWalker) sameResult(path string, mInfo schema.PatchInfo, mErr error, rInfo strategicpatch.PatchMeta, rErr error) bool {
	w.compared++
	switch {
	case (mErr == nil) != (rErr == nil):
		w.disagreements = append(w.disagreements, fmt.Sprintf("%s: error %v, reference error %v", path, mErr, rErr))
		return false
	case mErr != nil:
		if mErr.Error() != rErr.Error() {
			w.disagreements = append(w.disagreements, fmt.Sprintf("%s: error %q, reference %q", path, mErr, rErr))
		}
		return true
	}
	if !reflect.DeepEqual(mInfo.Strategies(), rInfo.GetPatchStrategies()) || mInfo.MergeKey != rInfo.GetPatchMergeKey() {
		w.disagreements = append(w.disagreements, fmt.Sprintf("%s: strategies %q key %q, reference %q key %q",
			path, mInfo.Strategies(), mInfo.MergeKey, rInfo.GetPatchStrategies(), rInfo.GetPatchMergeKey()))
		return false
	}
	return true
}

// candidateNames are the names looked up at a struct: every JSON and Go field name the reference
// type has at any embedding depth, writepath's field names, their case-changed forms, and one
// unknown name.
func candidateNames(t reflect.Type, mine schema.PatchMeta) []string {
	set := map[string]bool{"notAField": true}
	var visit func(reflect.Type, int)
	visit = func(t reflect.Type, depth int) {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > 3 {
			return
		}
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name != "" && name != "-" {
				set[name] = true
			}
			set[sf.Name] = true
			if sf.Anonymous {
				visit(sf.Type, depth+1)
			}
		}
	}
	visit(t, 0)
	for _, n := range mine.Fields() {
		set[n] = true
	}
	for n := range set {
		set[strings.ToUpper(n)] = true
		if n != "" {
			set[strings.ToUpper(n[:1])+n[1:]] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestCatalogueKindsAgainstSchemes checks that every kind of the catalogue is a kind of the
// reference schemes and that its PatchMeta root is that Go type.
func TestCatalogueKindsAgainstSchemes(t *testing.T) {
	scheme := newScheme(t)
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	for _, k := range kinds {
		typ, ok := scheme.AllKnownTypes()[refGVK(k.GVK)]
		if !assert.True(t, ok, "%s unknown to the reference scheme", k.GVK) {
			continue
		}
		pm, err := k.PatchMeta()
		require.NoError(t, err)
		assert.Equal(t, typ.Name(), pm.TypeName(), "%s", k.GVK)
		if k.SMDTypeName() != "" {
			// The name the apiserver's type converter looks the kind up by.
			name, err := scheme.ToOpenAPIDefinitionName(refGVK(k.GVK))
			require.NoError(t, err)
			assert.Equal(t, name, k.SMDTypeName(), "%s", k.GVK)
		}
	}
}
