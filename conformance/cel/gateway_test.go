package cel

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kcel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	wcel "github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/conformance/internal/ratcheting"
	"github.com/writepath/writepath/schema"
)

type gwVersion struct {
	mine  *schema.Version
	ref   *structuralschema.Structural
	refV  *kcel.Validator
	rules int
}

func countRules(s *schema.Structural) int {
	if s == nil {
		return 0
	}
	n := len(s.XValidations) + countRules(s.Items) + countRules(s.AdditionalPropertiesSchema())
	for _, p := range s.Properties {
		n += countRules(p)
	}
	return n
}

func loadGateway(t testing.TB) (map[string]*gwVersion, []map[string]any, []map[string]any) {
	dir := ratcheting.Dir(t)
	versions := map[string]*gwVersion{}
	for _, crd := range ratcheting.LoadDocs(t, filepath.Join(dir, "crds")) {
		mine, err := schema.FromCRD(crd)
		require.NoError(t, err)
		var parsed apiextensionsv1.CustomResourceDefinition
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(crd, &parsed))
		for _, v := range parsed.Spec.Versions {
			internal := &apiextensionsinternal.CustomResourceValidation{}
			require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil))
			s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
			require.NoError(t, err)
			require.NoError(t, structuraldefaulting.PruneDefaults(s))
			key := parsed.Spec.Group + "/" + v.Name + "/" + parsed.Spec.Names.Kind
			mv := mine.Version(v.Name)
			versions[key] = &gwVersion{mine: mv, ref: s, refV: kcel.NewValidator(s, true, celconfig.PerCallLimit), rules: countRules(mv.Structural)}
		}
	}
	return versions, ratcheting.LoadDocs(t, filepath.Join(dir, "valid")), ratcheting.LoadDocs(t, filepath.Join(dir, "invalid"))
}

func gvkKey(obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return av + "/" + k
}

// refPrepare is the apiserver's decode path before validation: prune, drop non-nullable nulls,
// coerce embedded metadata, default.
func refPrepare(obj map[string]any, s *structuralschema.Structural) map[string]any {
	o := runtime.DeepCopyJSON(obj)
	pruning.PruneWithOptions(o, s, true, structuralschema.UnknownFieldPathOptions{})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(o, s)
	_, _ = schemaobjectmeta.CoerceWithOptions(nil, o, s, false, schemaobjectmeta.CoerceOptions{})
	structuraldefaulting.Default(o, s)
	return o
}

// TestGatewayAPIRules evaluates the Gateway API CRDs' x-kubernetes-validations rules (the CRDs
// and objects apiextensions' ratcheting integration test ships) through both validators: every
// object on create, and pairs of objects of a kind as updates with ratcheting.
func TestGatewayAPIRules(t *testing.T) {
	versions, valid, invalid := loadGateway(t)
	rules := 0
	for _, v := range versions {
		rules += v.rules
	}
	byGVK := map[string][]map[string]any{}
	var validators wcel.Validators
	checked, rejected, updates, disagreements := 0, 0, 0, 0
	for _, set := range [][]map[string]any{valid, invalid} {
		for _, raw := range set {
			v, ok := versions[gvkKey(raw)]
			if !ok {
				continue
			}
			obj := refPrepare(raw, v.ref)
			checked++
			want := refValidate(v.ref, v.refV, obj, nil)
			got := myValidate(validators.For(v.mine.Structural), obj, nil)
			if len(want.errs) > 0 {
				rejected++
			}
			if !assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "create %s", mustJSON(obj)) {
				disagreements++
			}
			byGVK[gvkKey(raw)] = append(byGVK[gvkKey(raw)], obj)
		}
	}
	for key, objs := range byGVK {
		v := versions[key]
		for i, old := range objs {
			for j, obj := range objs {
				if os.Getenv("WRITEPATH_LONG") == "" && (i+j)%4 != 0 {
					continue
				}
				updates++
				want := refValidate(v.ref, v.refV, obj, old)
				got := myValidate(validators.For(v.mine.Structural), obj, old)
				if !assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "update old=%s new=%s", mustJSON(old), mustJSON(obj)) {
					disagreements++
				}
			}
		}
	}
	t.Logf("gateway api: %d versions with %d rules, %d objects (%d rejected by rules), %d updates, %d disagreements", len(versions), rules, checked, rejected, updates, disagreements)
	assert.Greater(t, checked, 30)
	assert.Positive(t, rejected)
}
