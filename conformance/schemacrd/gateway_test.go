package schemacrd

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/writepath/writepath/conformance/internal/ratcheting"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

type gwVersion struct {
	mine      *schema.Version
	ref       *structuralschema.Structural
	validator apiservervalidation.SchemaValidator
}

func loadGateway(t testing.TB) (map[string]gwVersion, []map[string]any, []map[string]any) {
	dir := ratcheting.Dir(t)
	versions := map[string]gwVersion{}
	for _, crd := range ratcheting.LoadDocs(t, filepath.Join(dir, "crds")) {
		mine, err := schema.FromCRD(crd)
		require.NoError(t, err, "FromCRD %v", crd["metadata"])
		var parsed apiextensionsv1.CustomResourceDefinition
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(crd, &parsed))
		for _, v := range parsed.Spec.Versions {
			internal := &apiextensionsinternal.CustomResourceValidation{}
			require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil))
			s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
			require.NoError(t, err)
			s = s.DeepCopy()
			require.NoError(t, structuraldefaulting.PruneDefaults(s))
			validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
			require.NoError(t, err)
			key := parsed.Spec.Group + "/" + v.Name + "/" + parsed.Spec.Names.Kind
			versions[key] = gwVersion{mine: mine.Version(v.Name), ref: s, validator: validator}
		}
	}
	return versions, ratcheting.LoadDocs(t, filepath.Join(dir, "valid")), ratcheting.LoadDocs(t, filepath.Join(dir, "invalid"))
}

func gvkKey(obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return av + "/" + k
}

// refPrepare is what the apiserver does to a decoded custom object before validation: prune,
// drop non-nullable nulls, coerce embedded metadata, default.
func refPrepare(obj map[string]any, s *structuralschema.Structural) (map[string]any, []string, error) {
	o := runtime.DeepCopyJSON(obj)
	unknown := pruning.PruneWithOptions(o, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(o, s)
	if err, _ := schemaobjectmeta.CoerceWithOptions(nil, o, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); err != nil {
		return nil, nil, err
	}
	structuraldefaulting.Default(o, s)
	return o, unknown, nil
}

func TestGatewayAPI(t *testing.T) {
	versions, valid, invalid := loadGateway(t)
	require.NotEmpty(t, versions)
	byGVK := map[string][]map[string]any{}
	checked, updates := 0, 0
	var disagreements []string
	for _, set := range [][]map[string]any{valid, invalid} {
		for _, obj := range set {
			v, ok := versions[gvkKey(obj)]
			if !ok {
				continue
			}
			checked++
			refObj, refUnknown, err := refPrepare(obj, v.ref)
			require.NoError(t, err)
			// The decode path (Coerce, then Default). Coerce normalises the root metadata
			// through ObjectMeta, as the apiserver's decoder does; refPrepare does not, so
			// compare everything but metadata here.
			coerced, _, err := v.mine.Coerce(obj, false)
			require.NoError(t, err)
			res := schema.Result{Object: schema.Default(coerced, v.mine.Structural).(map[string]any)}
			a, b := withoutMeta(refObj), withoutMeta(res.Object)
			if !reflect.DeepEqual(a, b) {
				disagreements = append(disagreements, "prepare "+mustJSON(obj)+"\nref="+mustJSON(a)+"\nmine="+mustJSON(b))
				continue
			}
			_, myPruned := schema.Prune(obj, v.mine.Structural, schema.PruneOptions{IsResourceRoot: true, ReturnPruned: true})
			if !reflect.DeepEqual(nilIfEmpty(refUnknown), nilIfEmpty(myPruned)) {
				disagreements = append(disagreements, "pruned paths "+mustJSON(obj))
			}
			re := kStrings(apiservervalidation.ValidateCustomResource(nil, runtime.DeepCopyJSON(refObj), v.validator))
			re = append(re, kStrings(listtype.ValidateListSetsAndMaps(nil, v.ref, refObj))...)
			re = append(re, kStrings(schemaobjectmeta.Validate(context.Background(), nil, refObj, v.ref, false))...)
			me := wStrings(v.mine.Validator().Validate(field.Path{}, res.Object))
			me = append(me, wStrings(schema.ValidateListSetsAndMaps(field.Path{}, v.mine.Structural, res.Object))...)
			me = append(me, wStrings(schema.ValidateEmbeddedResources(field.Path{}, res.Object, v.mine.Structural, false))...)
			if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
				disagreements = append(disagreements, "validate "+mustJSON(obj)+"\nref="+strings.Join(re, "\n")+"\nmine="+strings.Join(me, "\n"))
			}
			byGVK[gvkKey(obj)] = append(byGVK[gvkKey(obj)], refObj)
		}
	}
	// Updates between every pair of objects of a kind, with ratcheting, as apiextensions'
	// BenchmarkRatcheting pairs them.
	for key, objs := range byGVK {
		v := versions[key]
		for i, old := range objs {
			for j, obj := range objs {
				if os.Getenv("WRITEPATH_LONG") == "" && (i+j)%6 != 0 {
					continue // the fixed sample; WRITEPATH_LONG runs every pair
				}
				updates++
				corr := common.NewCorrelatedObject(runtime.DeepCopyJSON(obj), runtime.DeepCopyJSON(old), &model.Structural{Structural: v.ref})
				re := kStrings(apiservervalidation.ValidateCustomResourceUpdate(nil, corr.Value, corr.OldValue, v.validator, apiservervalidation.WithRatcheting(corr)))
				me := wStrings(v.mine.Validator().ValidateUpdate(field.Path{}, obj, old, v.mine.Structural))
				if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
					disagreements = append(disagreements, "update old="+mustJSON(old)+" new="+mustJSON(obj)+"\nref="+strings.Join(re, "\n")+"\nmine="+strings.Join(me, "\n"))
				}
			}
		}
	}
	t.Logf("gateway api: versions=%d objects=%d updates=%d disagreements=%d", len(versions), checked, updates, len(disagreements))
	if len(disagreements) > 5 {
		disagreements = disagreements[:5]
	}
	assert.Empty(t, disagreements)
	assert.Greater(t, checked, 30)
}

func withoutMeta(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if k != "metadata" {
			c[k] = v
		}
	}
	return c
}
