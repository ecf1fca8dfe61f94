package bench

import (
	"fmt"
	"os"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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

// Strategy None on a 1,000-item list of the widgets CRD (testdata/conversion/widgets-crd.yaml),
// items stored at v1 and read through v1alpha1:
//   - ConversionNoneList1000: the converter alone (writepath ConvertList vs the apiserver's
//     safe crConverter ConvertToVersion on an UnstructuredList: copy, version checks, apiVersion
//     rewrite of every item);
//   - ConversionNoneRead1000: each item converted and then coerced by the target version's
//     schema, as the storage codec does for a list read (writepath Converter.Read without the
//     storage-side defaulting: ConvertAndPrune, vs crConverter + the
//     unstructuredSchemaCoercer steps with apiextensions' functions).

func conversionBenchCRD(b *testing.B) (*apiextensionsv1.CustomResourceDefinition, *conversion.CRD) {
	data, err := os.ReadFile("../../testdata/conversion/widgets-crd.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var typed apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &typed); err != nil {
		b.Fatal(err)
	}
	if typed.Spec.Conversion == nil { // v1 defaulting, which the apiserver applies on decode
		typed.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	}
	ours, err := conversion.FromCRDBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	return &typed, ours
}

func conversionBenchList() map[string]any {
	items := make([]any, 1000)
	for i := range items {
		items[i] = map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i), "namespace": "default", "uid": fmt.Sprintf("uid-%d", i),
				"resourceVersion": fmt.Sprint(1000 + i), "generation": int64(1), "labels": map[string]any{"app": "w"}},
			"spec": map[string]any{"size": int64(i), "replicas": int64(2), "extra": map[string]any{"kept": "k"}}}
	}
	return map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "5000"}, "items": items}
}

func BenchmarkConversionNoneList1000(b *testing.B) {
	typed, ours := conversionBenchCRD(b)
	list := conversionBenchList()
	c, err := conversion.New(ours, conversion.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := refconversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	safe, _, err := f.NewConverter(typed)
	if err != nil {
		b.Fatal(err)
	}
	refList := &unstructured.UnstructuredList{}
	refList.SetUnstructuredContent(runtime.DeepCopyJSON(list))
	gv := schema.GroupVersion{Group: "example.com", Version: "v1alpha1"}
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.ConvertList(list, "v1alpha1"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := safe.ConvertToVersion(refList, gv); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkConversionNoneRead1000(b *testing.B) {
	typed, ours := conversionBenchCRD(b)
	list := conversionBenchList()
	items := list["items"].([]any)
	c, err := conversion.New(ours, conversion.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := refconversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	safe, _, err := f.NewConverter(typed)
	if err != nil {
		b.Fatal(err)
	}
	var internal apiextensionsinternal.CustomResourceValidation
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(typed.Spec.Versions[0].Schema, &internal, nil); err != nil {
		b.Fatal(err)
	}
	refS, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		b.Fatal(err)
	}
	gv := schema.GroupVersion{Group: "example.com", Version: "v1alpha1"}
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, it := range items {
				if _, err := c.ConvertAndPrune(it.(map[string]any), "v1alpha1"); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, it := range items {
				out, err := safe.ConvertToVersion(&unstructured.Unstructured{Object: it.(map[string]any)}, gv)
				if err != nil {
					b.Fatal(err)
				}
				o := out.(*unstructured.Unstructured).Object
				meta, _, _, err := schemaobjectmeta.GetObjectMetaWithOptions(o, schemaobjectmeta.ObjectMetaOptions{})
				if err != nil {
					b.Fatal(err)
				}
				pruning.PruneWithOptions(o, refS, true, structuralschema.UnknownFieldPathOptions{})
				structuraldefaulting.PruneNonNullableNullsWithoutDefaults(o, refS)
				if err, _ := schemaobjectmeta.CoerceWithOptions(nil, o, refS, false, schemaobjectmeta.CoerceOptions{}); err != nil {
					b.Fatal(err)
				}
				if err := schemaobjectmeta.SetObjectMeta(o, meta); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
