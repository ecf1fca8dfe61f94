// Package schemacrd compares writepath's schema package with k8s.io/apiextensions-apiserver
// v0.37.2 on generated CRD schemas and objects: structural-schema construction and its errors,
// pruning, defaulting, embedded-metadata coercion and validation, the OpenAPI schema validator
// (with and without ratcheting) and list-set/list-map validation.
package schemacrd

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	kfield "k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

func sampleSize() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100000
	}
	return 1500
}

// refSchema converts a JSON schema to the apiserver's internal JSONSchemaProps the way a CRD
// is decoded and converted.
func refSchema(t testing.TB, s map[string]any) *apiextensions.JSONSchemaProps {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var v1 apiextensionsv1.JSONSchemaProps
	require.NoError(t, json.Unmarshal(b, &v1), "schema %s", b)
	var internal apiextensions.JSONSchemaProps
	require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil))
	return &internal
}

func kStrings(l kfield.ErrorList) []string {
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

func wStrings(l field.ErrorList) []string {
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

type stats struct {
	cases, structural, nonStructural, constructErr, objects, updates int
	disagreements                                                    []string
	kinds                                                            map[string]int
}

func (s *stats) disagree(format string, args ...any) {
	if s.kinds == nil {
		s.kinds = map[string]int{}
	}
	s.kinds[strings.Fields(format)[0]]++
	if len(s.disagreements) < 20 {
		s.disagreements = append(s.disagreements, fmt.Sprintf(format, args...))
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestDifferential(t *testing.T) {
	n := sampleSize()
	g := &gen{r: rand.New(rand.NewSource(20260101))}
	st := &stats{}
	for i := 0; i < n; i++ {
		s := g.rootSchema()
		runCase(t, g, s, st)
	}
	t.Logf("cases=%d structural=%d nonStructural=%d constructErrors=%d objects=%d updates=%d disagreements=%d",
		st.cases, st.structural, st.nonStructural, st.constructErr, st.objects, st.updates, len(st.disagreements))
	assert.Empty(t, st.kinds)
	assert.Empty(t, st.disagreements)
}

func runCase(t *testing.T, g *gen, s map[string]any, st *stats) {
	st.cases++
	b, _ := json.Marshal(s)
	ref := refSchema(t, s)
	refS, refErr := structuralschema.NewStructural(ref)
	props, err := schema.ParseProps(deepCopy(s), "openAPIV3Schema")
	require.NoError(t, err)
	myS, myErr := schema.NewStructural(props)
	if errString(refErr) != errString(myErr) {
		st.disagree("NewStructural %s: ref=%v mine=%v", b, refErr, myErr)
		return
	}
	if refErr != nil {
		st.constructErr++
		return
	}
	path := kfield.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	refErrs := kStrings(structuralschema.ValidateStructural(path, refS))
	myErrs := wStrings(schema.ValidateStructural(field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema"), myS))
	if !assert.ObjectsAreEqual(refErrs, myErrs) {
		st.disagree("ValidateStructural %s:\nref=%q\nmine=%q", b, refErrs, myErrs)
		return
	}
	if len(refErrs) > 0 {
		st.nonStructural++
		return
	}
	st.structural++
	refS = refS.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(refS); err != nil {
		myPD, myErr := schema.PruneDefaults(myS)
		if myErr == nil {
			st.disagree("PruneDefaults %s: ref=%v mine ok", b, err)
		}
		_ = myPD
		return
	}
	myS, err = schema.PruneDefaults(myS)
	if err != nil {
		st.disagree("PruneDefaults %s: ref ok, mine=%v", b, err)
		return
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(ref)
	require.NoError(t, err)
	myValidator := schema.NewValidator(props)

	for j := 0; j < 4; j++ {
		st.objects++
		obj := g.object(s)
		ob, _ := json.Marshal(obj)
		// pruning
		refObj := deepCopy(obj).(map[string]any)
		refPruned := pruning.PruneWithOptions(refObj, refS, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		myObjAny, myPruned := schema.Prune(obj, myS, schema.PruneOptions{IsResourceRoot: true, ReturnPruned: true})
		myObj := myObjAny.(map[string]any)
		if !reflect.DeepEqual(refObj, myObj) || !reflect.DeepEqual(nilIfEmpty(refPruned), nilIfEmpty(myPruned)) {
			st.disagree("Prune %s obj %s:\nref=%v %q\nmine=%v %q", b, ob, refObj, refPruned, myObj, myPruned)
			continue
		}
		// embedded metadata coercion
		refErrC, refUnknown := schemaobjectmeta.CoerceWithOptions(nil, refObj, refS, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		myObj2, myUnknown, myErrC := coerceEmbedded(myS, myObj)
		if (refErrC == nil) != (myErrC == nil) {
			st.disagree("Coerce %s obj %s: ref=%v mine=%v", b, ob, refErrC, myErrC)
			continue
		}
		if refErrC != nil {
			// The apiserver stops at the first bad embedded resource in Go map order (random),
			// writepath in sorted key order: its error must be one the apiserver can give.
			if !possibleCoerceErrors(myObj, refS)[myErrC.Error()] {
				st.disagree("Coerce error %s obj %s: ref=%v mine=%v", b, ob, refErrC, myErrC)
			}
			continue
		}
		if !reflect.DeepEqual(refObj, myObj2) || !reflect.DeepEqual(nilIfEmpty(refUnknown), nilIfEmpty(myUnknown)) {
			st.disagree("Coerce %s obj %s:\nref=%v %q\nmine=%v %q", b, ob, refObj, refUnknown, myObj2, myUnknown)
			continue
		}
		// defaulting
		structuraldefaulting.Default(refObj, refS)
		myObj3 := schema.Default(myObj2, myS).(map[string]any)
		if !reflect.DeepEqual(refObj, myObj3) {
			st.disagree("Default %s obj %s:\nref=%v\nmine=%v", b, ob, refObj, myObj3)
			continue
		}
		// validation of the unpruned object (all of the validator's paths) and of the defaulted one
		for _, o := range []map[string]any{obj, refObj} {
			re := kStrings(apiservervalidation.ValidateCustomResource(nil, runtime.DeepCopyJSON(o), validator))
			me := wStrings(myValidator.Validate(field.Path{}, deepCopy(o)))
			if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
				st.disagree("Validate %s obj %s:\nref=%q\nmine=%q", b, mustJSON(o), re, me)
			}
		}
		// list sets and maps
		re := kStrings(listtype.ValidateListSetsAndMaps(nil, refS, refObj))
		me := wStrings(schema.ValidateListSetsAndMaps(field.Path{}, myS, myObj3))
		if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
			st.disagree("ListSetsAndMaps %s obj %s:\nref=%q\nmine=%q", b, mustJSON(refObj), re, me)
		}
		// embedded resources' metadata
		re = kStrings(schemaobjectmeta.Validate(context.Background(), nil, refObj, refS, false))
		me = wStrings(schema.ValidateEmbeddedResources(field.Path{}, myObj3, myS, false))
		if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
			st.disagree("objectmeta.Validate %s obj %s:\nref=%q\nmine=%q", b, mustJSON(refObj), re, me)
		}
		// ratcheting
		st.updates++
		old := g.mutate(refObj, s, 0)
		if g.chance(0.3) {
			old = deepCopy(refObj)
		}
		newObj := g.mutate(refObj, s, 0)
		corr := common.NewCorrelatedObject(runtime.DeepCopyJSONValue(newObj), runtime.DeepCopyJSONValue(old), &model.Structural{Structural: refS})
		re = kStrings(apiservervalidation.ValidateCustomResourceUpdate(nil, corr.Value, corr.OldValue, validator, apiservervalidation.WithRatcheting(corr)))
		me = wStrings(myValidator.ValidateUpdate(field.Path{}, deepCopy(newObj), deepCopy(old), myS))
		if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
			st.disagree("ValidateUpdate %s new %s old %s:\nref=%q\nmine=%q", b, mustJSON(newObj), mustJSON(old), re, me)
		}
	}
}

// coerceEmbedded runs writepath's embedded-metadata coercion through the public Coerce of a
// throwaway CRD version would need a whole CRD; the schema package exposes it as CoerceEmbedded.
func coerceEmbedded(s *schema.Structural, obj map[string]any) (map[string]any, []string, error) {
	return schema.CoerceEmbedded(obj, s, true)
}

func possibleCoerceErrors(obj map[string]any, s *structuralschema.Structural) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < 64; i++ {
		err, _ := schemaobjectmeta.CoerceWithOptions(nil, runtime.DeepCopyJSON(obj), s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if err != nil {
			out[err.Error()] = true
		}
	}
	return out
}

func nilIfEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
