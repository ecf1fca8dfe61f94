package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// The Gateway API CRDs and HTTPRoutes that apiextensions ships for its ratcheting tests.
func gatewayDir(b *testing.B) string {
	gomodcache := os.Getenv("GOMODCACHE")
	if gomodcache == "" {
		home, _ := os.UserHomeDir()
		gomodcache = filepath.Join(home, "go", "pkg", "mod")
	}
	dir := filepath.Join(gomodcache, "k8s.io", "apiextensions-apiserver@v0.37.2", "test", "integration", "ratcheting_test_cases")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("gateway api test cases not in the module cache: %v", err)
	}
	return dir
}

func yamlDocs(b *testing.B, path string) []map[string]any {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []map[string]any
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			b.Fatal(err)
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		var m map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
			b.Fatal(err)
		}
		out = append(out, m)
	}
}

// BenchmarkSchemaHTTPRoute decodes-time coercion (metadata, pruning, nulls, embedded metadata),
// defaulting and validation (schema, list sets and maps, embedded metadata) of a Gateway API
// HTTPRoute: the work the apiserver does between decoding a custom object and storing it,
// except CEL.
func BenchmarkSchemaHTTPRoute(b *testing.B) {
	dir := gatewayDir(b)
	var crd map[string]any
	for _, d := range yamlDocs(b, filepath.Join(dir, "crds", "standard-install.yaml")) {
		if md, _ := d["metadata"].(map[string]any); md != nil && md["name"] == "httproutes.gateway.networking.k8s.io" {
			crd = d
		}
	}
	if crd == nil {
		b.Skip("no HTTPRoute CRD")
	}
	obj := yamlDocs(b, filepath.Join(dir, "valid", "http-redirect-rewrite", "httproute-redirect-full.yaml"))[0]
	if av, _ := obj["apiVersion"].(string); av != "gateway.networking.k8s.io/v1beta1" && av != "gateway.networking.k8s.io/v1" {
		b.Fatalf("unexpected object %v", av)
	}
	version := obj["apiVersion"].(string)[len("gateway.networking.k8s.io/"):]

	mine, err := schema.FromCRD(crd)
	if err != nil {
		b.Fatal(err)
	}
	v := mine.Version(version)

	var parsed apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(crd, &parsed); err != nil {
		b.Fatal(err)
	}
	var refS *structuralschema.Structural
	var validator apiservervalidation.SchemaValidator
	for _, pv := range parsed.Spec.Versions {
		if pv.Name != version {
			continue
		}
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(pv.Schema, internal, nil); err != nil {
			b.Fatal(err)
		}
		refS, err = structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			b.Fatal(err)
		}
		refS = refS.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(refS); err != nil {
			b.Fatal(err)
		}
		validator, _, err = apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			b.Fatal(err)
		}
	}

	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o, _, err := v.Coerce(obj, true)
			if err != nil {
				b.Fatal(err)
			}
			o = schema.Default(o, v.Structural).(map[string]any)
			errs := v.Validator().Validate(field.Path{}, o)
			errs = append(errs, schema.ValidateListSetsAndMaps(field.Path{}, v.Structural, o)...)
			errs = append(errs, schema.ValidateEmbeddedResources(field.Path{}, o, v.Structural, false)...)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o := runtime.DeepCopyJSON(obj)
			meta, _, _, err := schemaobjectmeta.GetObjectMetaWithOptions(o, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
			if err != nil {
				b.Fatal(err)
			}
			pruning.PruneWithOptions(o, refS, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(o, refS)
			if err, _ := schemaobjectmeta.CoerceWithOptions(nil, o, refS, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); err != nil {
				b.Fatal(err)
			}
			if err := schemaobjectmeta.SetObjectMeta(o, meta); err != nil {
				b.Fatal(err)
			}
			structuraldefaulting.Default(o, refS)
			errs := apiservervalidation.ValidateCustomResource(nil, o, validator)
			errs = append(errs, listtype.ValidateListSetsAndMaps(nil, refS, o)...)
			errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, o, refS, false)...)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}
