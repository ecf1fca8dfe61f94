package main

import (
	"bytes"
	"github.com/writepath/writepath/internal/gen/jsonfields"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

func TestOpenAPIName(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[appsv1.Deployment]():                        "io.k8s.api.apps.v1.Deployment",
		reflect.TypeFor[metav1.ObjectMeta]():                        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
		reflect.TypeFor[apiextensionsv1.CustomResourceDefinition](): "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
		reflect.TypeFor[apiregistrationv1.APIService]():             "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
	} {
		if got := openAPIName(typ); got != want {
			t.Errorf("openAPIName(%v) = %q, want %q", typ, got, want)
		}
	}
}

func TestWithoutGVKs(t *testing.T) {
	a, err := withoutGVKs([]byte(`{"type":"object","x-kubernetes-group-version-kind":[{"group":"","kind":"WatchEvent","version":"v1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := withoutGVKs([]byte(`{"x-kubernetes-group-version-kind":[],"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a != `{"type":"object"}` {
		t.Errorf("withoutGVKs: %s vs %s", a, b)
	}
}

// TestJSONFieldsEmbedded: TypeMeta's fields are promoted, ObjectMeta is a named field.
func TestJSONFieldsEmbedded(t *testing.T) {
	var names []string
	for _, f := range jsonfields.Of(reflect.TypeFor[appsv1.Deployment](), jsonfields.Rules{}) {
		names = append(names, f.Name)
	}
	want := []string{"kind", "apiVersion", "metadata", "spec", "status"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("jsonFields(Deployment) = %v, want %v", names, want)
	}
}

// TestGenerateDeterministic: the generator's output depends on its inputs only (schemaconv and
// Go maps iterate in random order; the output must not).
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate("testdata/discovery", "../../cluster/data/openapi/v3")
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate("testdata/discovery", "../../cluster/data/openapi/v3")
	if err != nil {
		t.Fatal(err)
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// TestGeneratedCurrent: schema/data holds what the generator writes from its recorded inputs.
func TestGeneratedCurrent(t *testing.T) {
	if err := run("../../schema/data", "testdata/discovery", "../../cluster/data/openapi/v3", true); err != nil {
		t.Fatal(err)
	}
}
