package conversion

import (
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	v1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	refconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/conversion"
)

// refStorageConvert is the apiserver's storage-codec conversion (schemaCoercingConverter):
// crConverter, then unstructuredSchemaCoercer.apply with the target version's structural
// schema, written with apiextensions' exported functions in the order apply() calls them.
func refStorageConvert(conv runtime.ObjectConvertor, schemas map[string]*structuralschema.Structural, in map[string]any, gv schema.GroupVersion) (map[string]any, error) {
	out, err := conv.ConvertToVersion(&unstructured.Unstructured{Object: runtime.DeepCopyJSON(in)}, gv)
	if err != nil {
		return nil, err
	}
	u := out.(*unstructured.Unstructured)
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	meta, foundMeta, _, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{})
	if err != nil {
		return nil, err
	}
	ogv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	if ogv.Group == "example.com" && kind == "Widget" {
		s := schemas[ogv.Version]
		pruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{})
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s)
		if err, _ := schemaobjectmeta.CoerceWithOptions(nil, u.Object, s, false, schemaobjectmeta.CoerceOptions{}); err != nil {
			return nil, err
		}
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, meta); err != nil {
			return nil, err
		}
	}
	return u.Object, nil
}

func genPruned(r *rand.Rand, i int) map[string]any {
	vs := []string{"v1alpha1", "v1beta1", "v1"}
	spec := map[string]any{}
	pick := func() any {
		switch r.Intn(6) {
		case 0:
			return nil
		case 1:
			return int64(r.Intn(10))
		case 2:
			return "s"
		case 3:
			return map[string]any{"kept": "k", "free": int64(1), "nested": map[string]any{"x": nil}}
		case 4:
			return []any{int64(1), "x"}
		}
		return true
	}
	for _, f := range []string{"size", "legacy", "replicas", "extra", "unknown"} {
		if r.Intn(2) == 0 {
			spec[f] = pick()
		}
	}
	md := map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": "ns"}
	switch r.Intn(8) {
	case 0:
		md["labels"] = map[string]any{"a": "b"}
	case 1:
		md["unknownMeta"] = "x"
	case 2:
		md["generation"] = int64(r.Intn(3))
	case 3:
		md["annotations"] = map[string]any{}
	}
	obj := map[string]any{"apiVersion": "example.com/" + vs[r.Intn(3)], "kind": "Widget", "metadata": md, "spec": spec}
	switch r.Intn(12) {
	case 0:
		obj["status"] = map[string]any{"x": int64(1)}
	case 1:
		obj["spec"] = nil
	case 2:
		obj["top"] = "level"
	case 3:
		obj["kind"] = "Gadget"
	}
	return obj
}

// TestNonePruned: strategy None with pruning by the target version's schema (the widgets CRD:
// fields known to some versions only, preserve-unknown-fields in one), against the storage
// codec's conversion.
func TestNonePruned(t *testing.T) {
	data, err := os.ReadFile("../../testdata/conversion/widgets-crd.yaml")
	require.NoError(t, err)
	var typed v1.CustomResourceDefinition
	require.NoError(t, yaml.Unmarshal(data, &typed))
	typed.Spec.Conversion = &v1.CustomResourceConversion{Strategy: v1.NoneConverter}
	f, err := refconversion.NewCRConverterFactory(nil, nil)
	require.NoError(t, err)
	safe, _, err := f.NewConverter(&typed)
	require.NoError(t, err)
	schemas := map[string]*structuralschema.Structural{}
	for _, v := range typed.Spec.Versions {
		var internal apiextensionsinternal.CustomResourceValidation
		require.NoError(t, v1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil))
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		require.NoError(t, err)
		s = s.DeepCopy()
		require.NoError(t, structuraldefaulting.PruneDefaults(s))
		schemas[v.Name] = s
	}
	crd, err := conversion.FromCRDBytes(data)
	require.NoError(t, err)
	ours, err := conversion.New(crd, conversion.Options{})
	require.NoError(t, err)
	r := rand.New(rand.NewSource(3))
	n := count(3000, 100000)
	fails := 0
	for i := 0; i < n && fails < 10; i++ {
		in := genPruned(r, i)
		to := []string{"v1alpha1", "v1beta1", "v1"}[r.Intn(3)]
		want, refErr := refStorageConvert(safe, schemas, in, schema.GroupVersion{Group: "example.com", Version: to})
		got, err := ours.ConvertAndPrune(in, to)
		ok := assert.Equal(t, refErr == nil, err == nil, "case %d: %v / %v", i, refErr, err)
		if refErr == nil && err == nil {
			ok = assert.Equal(t, want, got, "case %d: %v to %s", i, in, to) && ok
		}
		if !ok {
			fails++
		}
	}
	t.Logf("None with pruning: %d cases", n)
}
