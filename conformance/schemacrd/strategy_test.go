package schemacrd

import (
	"context"
	"encoding/json"
	"errors"
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
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

func crdFor(s map[string]any, namespaced bool) map[string]any {
	return crdWith(s, namespaced, nil)
}

func crdWith(s map[string]any, namespaced bool, subresources map[string]any) map[string]any {
	scope := "Cluster"
	if namespaced {
		scope = "Namespaced"
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group":    "example.com",
			"scope":    scope,
			"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{versionWith(s, subresources)},
		},
	}
}

func versionWith(s map[string]any, subresources map[string]any) map[string]any {
	v := map[string]any{
		"name": "v1", "served": true, "storage": true,
		"schema": map[string]any{"openAPIV3Schema": deepCopy(s)},
	}
	if subresources != nil {
		v["subresources"] = deepCopy(subresources)
	}
	return v
}

// withScale adds spec.replicas, status.replicas and status.selector to a root schema.
func withScale(s map[string]any) map[string]any {
	s = deepCopy(s).(map[string]any)
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	for _, k := range []string{"spec", "status"} {
		p, ok := props[k].(map[string]any)
		if !ok || p["type"] != "object" {
			p = map[string]any{"type": "object"}
			props[k] = p
		}
		pp, _ := p["properties"].(map[string]any)
		if pp == nil {
			pp = map[string]any{}
			p["properties"] = pp
		}
		pp["replicas"] = map[string]any{"type": "integer", "x-kubernetes-int-or-string": false}
		delete(pp["replicas"].(map[string]any), "x-kubernetes-int-or-string")
		if k == "status" {
			pp["selector"] = map[string]any{"x-kubernetes-preserve-unknown-fields": true}
			pp["conditions"] = map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"type"},
				"items": map[string]any{"type": "object", "required": []any{"type"}, "properties": map[string]any{"type": map[string]any{"type": "string"}, "status": map[string]any{"type": "string", "enum": []any{"True", "False"}}}}}
		}
		delete(p, "additionalProperties")
	}
	return s
}

var scaleSubresources = map[string]any{"status": map[string]any{}, "scale": map[string]any{
	"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}}

func randomReplicas(g *gen) any { return g.pick2(int64(1), int64(-1), int64(1)<<40, "two", nil, 1.5) }

func setReplicas(g *gen, obj map[string]any) {
	for _, k := range []string{"spec", "status"} {
		if g.chance(0.7) {
			m, ok := obj[k].(map[string]any)
			if !ok {
				m = map[string]any{}
				obj[k] = m
			}
			m["replicas"] = randomReplicas(g)
			if k == "status" {
				if g.chance(0.5) {
					m["selector"] = g.pick2("app=x", int64(1), map[string]any{"a": "b"})
				}
				if g.chance(0.5) {
					m["conditions"] = []any{map[string]any{"type": "Ready", "status": g.pick("True", "Maybe")}, map[string]any{"type": g.pick("Ready", "Synced"), "status": "False"}}
				}
			}
		}
	}
}

// refCoerce is apiextensions' unstructuredSchemaCoercer.apply for a request (strict decoding,
// metadata not dropped) followed by the decoder's defaulting.
func refCoerce(obj map[string]any, s *structuralschema.Structural) (map[string]any, []string, error) {
	return refCoerceWith(obj, s, false)
}

// refCoerceWith is refCoerce, or with fromStorage the storage codec's decoding (malformed
// metadata dropped, generation repaired, no unknown-field tracking).
func refCoerceWith(obj map[string]any, s *structuralschema.Structural, fromStorage bool) (map[string]any, []string, error) {
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, nil, err
	}
	om, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: !fromStorage, DropMalformedFields: fromStorage})
	if err != nil {
		return nil, nil, err
	}
	gv, err := kschema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, err
	}
	if gv.Group == "example.com" && kind == "Widget" {
		unknown = append(unknown, pruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: !fromStorage})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s)
		err, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: !fromStorage, DropInvalidFields: fromStorage})
		if err != nil {
			return nil, nil, err
		}
		unknown = append(unknown, paths...)
		if fromStorage && om != nil && om.Generation == 0 {
			om.Generation = 1
		}
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, om); err != nil {
			return nil, nil, err
		}
	}
	structuraldefaulting.Default(u.Object, s)
	return u.Object, unknown, nil
}

// TestStrategy compares whole writes: the decode-time coercion and defaulting of a Version with
// apiextensions' coercer, and ValidateCreate/ValidateUpdate with the custom resource strategy's
// Validate/ValidateUpdate (which include metadata validation, the schema validator with
// ratcheting, list sets and maps and embedded metadata; CEL has no rules in these schemas).
func TestStrategy(t *testing.T) {
	n := sampleSize() / 2
	g := &gen{r: rand.New(rand.NewSource(424242))}
	var disagreements []string
	kinds := map[string]int{}
	disagree := func(kind, msg string) {
		kinds[kind]++
		if len(disagreements) < 10 {
			disagreements = append(disagreements, kind+" "+msg)
		}
	}
	crds, rejected, objects, updates := 0, 0, 0, 0
	crdKinds := map[string]int{}
	columnErrs, selectableErrs, selectableCRDs, refPanics := 0, 0, 0, 0
	var crdSamples []string
	for i := 0; i < n; i++ {
		s := g.rootSchema()
		namespaced := g.chance(0.5)
		var subresources map[string]any
		if g.chance(0.3) {
			s = withScale(s)
			subresources = scaleSubresources
		}
		crdObj := crdWith(s, namespaced, subresources)
		if g.chance(0.2) {
			// A second version: same or another schema, storage flags and deprecation varied.
			second := versionWith(s, subresources)
			second["name"] = g.pick("v2", "v1", "V3")
			second["storage"] = g.chance(0.3)
			if g.chance(0.5) {
				second["schema"] = map[string]any{"openAPIV3Schema": g.rootSchema()}
			}
			if g.chance(0.3) {
				second["deprecated"] = true
				second["deprecationWarning"] = g.pick("", "use v1", "gone soon")
			} else if g.chance(0.1) {
				second["deprecationWarning"] = "not deprecated"
			}
			if g.chance(0.2) {
				delete(second, "subresources")
			}
			spec := crdObj["spec"].(map[string]any)
			spec["versions"] = append(spec["versions"].([]any), second)
			if g.chance(0.1) {
				spec["versions"].([]any)[0].(map[string]any)["storage"] = false
			}
		}
		if g.chance(0.15) {
			cols := []any{map[string]any{"name": "Size", "type": g.pick("integer", "int", ""), "jsonPath": g.pick(".spec.size", "spec.size", "")}}
			if g.chance(0.5) {
				cols = append(cols, map[string]any{"name": g.pick("", "Age"), "type": "date", "format": g.pick("date-time", "uuid", ""), "jsonPath": ".metadata.creationTimestamp", "priority": int64(1)})
			}
			for _, v := range crdObj["spec"].(map[string]any)["versions"].([]any) {
				if g.chance(0.8) {
					v.(map[string]any)["additionalPrinterColumns"] = deepCopy(cols)
				}
			}
		}
		if g.chance(0.25) {
			// Selectable fields: the same in every version (hoisted to spec.selectableFields) or
			// drawn per version against that version's schema.
			sfs := g.selectableFields(s)
			for i, v := range crdObj["spec"].(map[string]any)["versions"].([]any) {
				vm := v.(map[string]any)
				switch {
				case i > 0 && g.chance(0.4):
					if sc, ok := vm["schema"].(map[string]any); ok {
						vm["selectableFields"] = g.selectableFields(sc["openAPIV3Schema"].(map[string]any))
					}
				case i > 0 && g.chance(0.2):
				default:
					vm["selectableFields"] = deepCopy(sfs)
				}
			}
		}
		protected := g.chance(0.05)
		if protected {
			// A protected community group: API approval annotation rules.
			spec := crdObj["spec"].(map[string]any)
			spec["group"] = g.pick("things.k8s.io", "x.kubernetes.io", "k8s.io")
			md := crdObj["metadata"].(map[string]any)
			md["name"] = "widgets." + spec["group"].(string)
			switch g.r.Intn(4) {
			case 0:
				md["annotations"] = map[string]any{"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"}
			case 1:
				md["annotations"] = map[string]any{"api-approved.kubernetes.io": "unapproved, testing"}
			case 2:
				md["annotations"] = map[string]any{"api-approved.kubernetes.io": "yes"}
			}
		}
		c, err := schema.FromCRD(crdObj)
		refCRDErrs, refPanic := refValidateCRDRecover(t, crdObj)
		if refPanic != nil {
			// The apiserver dereferences a missing schema in a selectable field path (a 500);
			// writepath reports the path as invalid. Counted, not compared.
			refPanics++
			continue
		}
		for _, e := range refCRDErrs {
			if strings.Contains(e, "additionalPrinterColumns") {
				columnErrs++
			}
			if strings.Contains(e, "selectableFields") {
				selectableErrs++
			}
		}
		if _, ok := crdObj["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["selectableFields"]; ok {
			selectableCRDs++
		}
		if (err == nil) != (len(refCRDErrs) == 0) {
			crdKinds[fmt.Sprintf("mineOK=%v", err == nil)]++
			if len(crdSamples) < 6 {
				crdSamples = append(crdSamples, fmt.Sprintf("%s\nref=%q\nmine=%v", mustJSON(s), refCRDErrs, err))
			}
		}
		if err != nil {
			rejected++
			var se *status.Error
			if errors.As(err, &se) && se.Details != nil && len(refCRDErrs) > 0 {
				var mine []string
				for _, c := range se.Details.Causes {
					mine = append(mine, c.Field+": "+c.Message)
				}
				sort.Strings(mine)
				if !reflect.DeepEqual(refCRDErrs, mine) {
					crdKinds["errors"]++
					if d := os.Getenv("WRITEPATH_DEBUG_DIR"); d != "" {
						_ = os.WriteFile(d+"/ref.txt", []byte(strings.Join(refCRDErrs, "\n")), 0o644)
						_ = os.WriteFile(d+"/mine.txt", []byte(strings.Join(mine, "\n")), 0o644)
					}
					if len(crdSamples) < 6 {
						crdSamples = append(crdSamples, fmt.Sprintf("%s\nref=%q\nmine=%q", mustJSON(s), refCRDErrs, mine))
					}
				}
			}
			continue
		}
		crds++
		if protected {
			continue
		}
		v := c.Version("v1")
		ref := refSchema(t, s)
		refS, err := structuralschema.NewStructural(ref)
		require.NoError(t, err)
		refS = refS.DeepCopy()
		require.NoError(t, structuraldefaulting.PruneDefaults(refS))
		validator, _, err := apiservervalidation.NewSchemaValidator(ref)
		require.NoError(t, err)
		gvk := kschema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
		var statusValidator apiservervalidation.SchemaValidator
		var refStatus *apiextensions.CustomResourceSubresourceStatus
		var refScale *apiextensions.CustomResourceSubresourceScale
		if subresources != nil {
			refStatus = &apiextensions.CustomResourceSubresourceStatus{}
			sel := ".status.selector"
			refScale = &apiextensions.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &sel}
			if st, ok := ref.Properties["status"]; ok {
				statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st)
				require.NoError(t, err)
			}
		}
		strategy := customresource.NewStrategy(nil, namespaced, gvk, validator, statusValidator, refS, refStatus, refScale, nil)
		statusStrategy := customresource.NewStatusStrategy(strategy)

		var prev map[string]any
		for j := 0; j < 3; j++ {
			objects++
			obj := g.object(s)
			if subresources != nil {
				setReplicas(g, obj)
			}
			if namespaced && g.chance(0.7) {
				if md, ok := obj["metadata"].(map[string]any); ok {
					md["namespace"] = "default"
				}
			}
			if g.chance(0.5) {
				if md, ok := obj["metadata"].(map[string]any); ok {
					md["resourceVersion"] = "5"
				}
			}
			refObj, refUnknown, refErr := refCoerce(obj, refS)
			myObj, myUnknown, myErr := v.Coerce(obj, true)
			if (refErr == nil) != (myErr == nil) {
				disagree("coerce-error", fmt.Sprintf("%s obj %s: ref=%v mine=%v", mustJSON(s), mustJSON(obj), refErr, myErr))
				continue
			}
			if refErr != nil {
				continue
			}
			myObj = schema.Default(myObj, v.Structural).(map[string]any)
			// Reading the (raw) object back from storage.
			if rr, _, rerr := refCoerceWith(obj, refS, true); rerr == nil {
				mr, merr := v.Read(obj)
				if merr != nil || !reflect.DeepEqual(rr, mr) {
					disagree("read", fmt.Sprintf("%s obj %s:\nref=%s\nmine=%s %v", mustJSON(s), mustJSON(obj), mustJSON(rr), mustJSON(mr), merr))
				}
			} else if _, merr := v.Read(obj); merr == nil {
				disagree("read-error", fmt.Sprintf("%s obj %s: ref=%v mine ok", mustJSON(s), mustJSON(obj), rerr))
			}
			if !reflect.DeepEqual(refObj, myObj) || !reflect.DeepEqual(nilIfEmpty(refUnknown), nilIfEmpty(myUnknown)) {
				disagree("coerce", fmt.Sprintf("%s obj %s:\nref=%s %q\nmine=%s %q", mustJSON(s), mustJSON(obj), mustJSON(refObj), refUnknown, mustJSON(myObj), myUnknown))
				continue
			}
			re := kStrings(strategy.Validate(context.Background(), &unstructured.Unstructured{Object: runtime.DeepCopyJSON(refObj)}))
			me := wStrings(v.ValidateCreate(myObj))
			if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
				disagree("validate", fmt.Sprintf("%s obj %s:\nref=%q\nmine=%q", mustJSON(s), mustJSON(refObj), re, me))
			}
			if prev != nil {
				updates++
				re := kStrings(strategy.ValidateUpdate(context.Background(), &unstructured.Unstructured{Object: runtime.DeepCopyJSON(refObj)}, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(prev)}))
				me := wStrings(v.ValidateUpdate(myObj, prev))
				if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
					disagree("validate-update", fmt.Sprintf("%s obj %s old %s:\nref=%q\nmine=%q", mustJSON(s), mustJSON(refObj), mustJSON(prev), re, me))
				}
			}
			if prev != nil && subresources != nil {
				// A status update: the status strategy keeps the stored object but its status.
				updates++
				uNew := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(refObj)}
				uOld := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(prev)}
				statusStrategy.PrepareForUpdate(context.Background(), uNew, uOld)
				prepared := runtime.DeepCopyJSON(uNew.Object)
				re := kStrings(statusStrategy.ValidateUpdate(context.Background(), uNew, uOld))
				me := wStrings(v.ValidateStatusUpdate(prepared, prev))
				if !reflect.DeepEqual(nilIfEmpty(re), nilIfEmpty(me)) {
					disagree("validate-status-update", fmt.Sprintf("%s obj %s old %s:\nref=%q\nmine=%q", mustJSON(s), mustJSON(prepared), mustJSON(prev), re, me))
				}
				res, err := v.Process(schema.Request{Object: obj, Old: prev, Subresource: "status", FieldValidation: schema.FieldValidationIgnore})
				if err == nil && !reflect.DeepEqual(withoutStatus(res.Object), withoutStatus(prepared)) {
					disagree("status-prepare", fmt.Sprintf("%s:\nref=%s\nmine=%s", mustJSON(s), mustJSON(prepared), mustJSON(res.Object)))
				}
			}
			prev = refObj
		}
	}
	t.Logf("crds=%d rejected=%d objects=%d updates=%d disagreements=%v", crds, rejected, objects, updates, kinds)
	t.Logf("CRD acceptance and error disagreements: %v (printer column errors compared: %d; CRDs with selectable fields: %d, their errors compared: %d; reference panics skipped: %d)\n%s",
		crdKinds, columnErrs, selectableCRDs, selectableErrs, refPanics, strings.Join(crdSamples, "\n"))
	assert.Empty(t, crdKinds)
	assert.Empty(t, kinds)
	assert.Empty(t, disagreements)
}

// refValidateCRD is apiextensions' ValidateCustomResourceDefinition on the CRD.
func refValidateCRD(t testing.TB, crd map[string]any) []string {
	var v1 apiextensionsv1.CustomResourceDefinition
	b, _ := json.Marshal(crd)
	require.NoError(t, json.Unmarshal(b, &v1))
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var internal apiextensions.CustomResourceDefinition
	require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil))
	return kStrings(crdvalidation.ValidateCustomResourceDefinition(context.Background(), &internal))
}

// refValidateCRDRecover is refValidateCRD, returning the panic the reference raised, if any.
func refValidateCRDRecover(t testing.TB, crd map[string]any) (errs []string, panicked any) {
	defer func() { panicked = recover() }()
	return refValidateCRD(t, crd), nil
}

func withoutStatus(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if k != "status" {
			c[k] = v
		}
	}
	return c
}
