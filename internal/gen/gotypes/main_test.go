package main

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/writepath/writepath/internal/gen/genio"
	"github.com/writepath/writepath/internal/gen/jsonfields"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestTypeFieldsEmbedded: promoted fields carry the index path through the embedded structs,
// whose Go names the decoder's field stack holds.
func TestTypeFieldsEmbedded(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		json string
		via  []string
	}{
		{reflect.TypeFor[corev1.Probe](), "exec", []string{"ProbeHandler"}},
		{reflect.TypeFor[corev1.Probe](), "initialDelaySeconds", nil},
		{reflect.TypeFor[corev1.Volume](), "emptyDir", []string{"VolumeSource"}},
		{reflect.TypeFor[corev1.EphemeralContainer](), "image", []string{"EphemeralContainerCommon"}},
		{reflect.TypeFor[corev1.EphemeralContainer](), "targetContainerName", nil},
		{reflect.TypeFor[admissionregistrationv1.NamedRuleWithOperations](), "apiGroups", []string{"RuleWithOperations", "Rule"}},
		{reflect.TypeFor[corev1.Pod](), "kind", []string{"TypeMeta"}},
	} {
		var found bool
		for _, f := range jsonfields.Of(tc.typ, jsonRules) {
			if f.Name != tc.json {
				continue
			}
			found = true
			var via []string
			st := tc.typ
			for i, ind := range f.Index {
				sf := st.Field(ind)
				if i < len(f.Index)-1 {
					via = append(via, sf.Name)
				}
				st = sf.Type
			}
			if !reflect.DeepEqual(via, tc.via) {
				t.Errorf("%v.%s: through %v, want %v", tc.typ, tc.json, via, tc.via)
			}
		}
		if !found {
			t.Errorf("%v has no JSON field %s", tc.typ, tc.json)
		}
	}
}

// TestGenerateDeterministic: the table depends on the catalogue only (Go maps and the schemes'
// type registries iterate in random order; the output must not).
func TestGenerateDeterministic(t *testing.T) {
	kinds, err := genio.ReadKinds("../../../schema/data/kinds.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := generate(kinds)
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate(append([]genio.Kind(nil), kinds...))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two runs differ")
	}
}

// TestGeneratedCurrent: schema/gotypes/data/gotypes.json.gz is what the generator writes.
func TestGeneratedCurrent(t *testing.T) {
	if err := run("../../../schema/data/kinds.json", "../../../schema/gotypes/data", true); err != nil {
		t.Fatal(err)
	}
}
