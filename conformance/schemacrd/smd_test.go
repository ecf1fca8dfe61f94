package schemacrd

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/schemaconv"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/conformance/internal/ratcheting"
	"github.com/writepath/writepath/schema"
)

// refSMD is the apiserver's path to the structured-merge-diff type of a CRD version: the
// OpenAPI v3 the CRD builder makes for apply (buildOpenAPIModelsForApply), through
// schemaconv.ToSchemaFromOpenAPI.
func refSMD(t testing.TB, crd map[string]any, version, name string) (smdschema.TypeDef, error) {
	var v1 apiextensionsv1.CustomResourceDefinition
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(runtime.DeepCopyJSON(crd), &v1))
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	spec, err := builder.BuildOpenAPIV3(&v1, version, builder.Options{})
	if err != nil {
		return smdschema.TypeDef{}, err
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(spec.Components.Schemas, v1.Spec.PreserveUnknownFields)
	if err != nil {
		return smdschema.TypeDef{}, err
	}
	for _, td := range s.Types {
		if td.Name == name {
			return td, nil
		}
	}
	return smdschema.TypeDef{}, fmt.Errorf("no type %s", name)
}

// normalize sorts struct fields so that map iteration order does not matter.
func normalizeAtom(a *smdschema.Atom) {
	if a.Map != nil {
		sort.Slice(a.Map.Fields, func(i, j int) bool { return a.Map.Fields[i].Name < a.Map.Fields[j].Name })
		for i := range a.Map.Fields {
			normalizeRef(&a.Map.Fields[i].Type)
		}
		normalizeRef(&a.Map.ElementType)
		if len(a.Map.Unions) == 0 {
			a.Map.Unions = nil
		}
	}
	if a.List != nil {
		normalizeRef(&a.List.ElementType)
	}
}

func normalizeRef(r *smdschema.TypeRef) {
	normalizeAtom(&r.Inlined)
}

func TestSMDTypes(t *testing.T) {
	n := sampleSize() / 3
	g := &gen{r: rand.New(rand.NewSource(777))}
	compared, fieldSets := 0, 0
	var disagreements []string
	for i := 0; i < n; i++ {
		s := g.rootSchema()
		crdObj := crdFor(s, true)
		c, err := schema.FromCRD(crdObj)
		if err != nil {
			continue
		}
		v := c.Version("v1")
		ref, err := refSMD(t, crdObj, "v1", v.SMDTypeName())
		require.NoError(t, err, "reference SMD of %s", mustJSON(s))
		unpruned, err := schema.NewStructural(v.Props)
		require.NoError(t, err)
		mine, err := schema.SMDSchema(v.SMDTypeName(), unpruned, false)
		require.NoError(t, err)
		got := mine.Types[0]
		normalizeAtom(&ref.Atom)
		normalizeAtom(&got.Atom)
		compared++
		if !reflect.DeepEqual(ref, got) {
			if len(disagreements) < 5 {
				disagreements = append(disagreements, fmt.Sprintf("%s:\nref=%s\nmine=%s", mustJSON(s), mustJSON(ref.Atom), mustJSON(got.Atom)))
			}
			continue
		}
		// The type works on objects: the field sets apply would track.
		pt, err := v.SMDType()
		require.NoError(t, err)
		for j := 0; j < 2; j++ {
			obj := g.object(s)
			pruned, _, err := v.Coerce(obj, false)
			if err != nil {
				continue
			}
			tv, err := pt.FromUnstructured(schema.Default(pruned, v.Structural))
			if err != nil {
				continue
			}
			if _, err := tv.ToFieldSet(); err == nil {
				fieldSets++
			}
		}
	}
	t.Logf("smd types compared=%d (field sets built: %d) disagreements=%d", compared, fieldSets, len(disagreements))
	assert.Empty(t, disagreements)
	assert.Greater(t, compared, 10)
	_ = typed.DeducedParseableType
}

// TestGatewaySMD compares the structured-merge-diff types of the Gateway API CRD versions.
func TestGatewaySMD(t *testing.T) {
	dir := ratcheting.Dir(t)
	compared := 0
	for _, crd := range ratcheting.LoadDocs(t, dir+"/crds") {
		c, err := schema.FromCRD(crd)
		require.NoError(t, err)
		for _, v := range c.Versions {
			ref, err := refSMD(t, crd, v.Name, v.SMDTypeName())
			require.NoError(t, err)
			unpruned, err := schema.NewStructural(v.Props)
			require.NoError(t, err)
			mine, err := schema.SMDSchema(v.SMDTypeName(), unpruned, c.PreserveUnknownFields)
			require.NoError(t, err)
			got := mine.Types[0]
			normalizeAtom(&ref.Atom)
			normalizeAtom(&got.Atom)
			assert.True(t, reflect.DeepEqual(ref, got), "%s", v.SMDTypeName())
			compared++
		}
	}
	t.Logf("gateway api smd types compared=%d", compared)
}
