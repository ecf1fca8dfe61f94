package bench

import (
	"context"
	"path/filepath"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kcel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

	wcel "github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// celSubject is a CRD version with rules and an object of it, for both implementations.
type celSubject struct {
	mine *wcel.Validator
	ref  *kcel.Validator
	refS *structuralschema.Structural
	obj  map[string]any
	old  map[string]any
}

func loadCELSubject(b *testing.B, crd map[string]any, version string, obj map[string]any) celSubject {
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
	for _, pv := range parsed.Spec.Versions {
		if pv.Name != version {
			continue
		}
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(pv.Schema, internal, nil); err != nil {
			b.Fatal(err)
		}
		if refS, err = structuralschema.NewStructural(internal.OpenAPIV3Schema); err != nil {
			b.Fatal(err)
		}
		if err := structuraldefaulting.PruneDefaults(refS); err != nil {
			b.Fatal(err)
		}
	}
	res, err := v.Process(schema.Request{Object: obj})
	if err != nil {
		b.Fatal(err)
	}
	return celSubject{
		mine: wcel.NewValidator(v.Structural, true, wcel.Options{}),
		ref:  kcel.NewValidator(refS, true, celconfig.PerCallLimit),
		refS: refS,
		obj:  res.Object,
		old:  runtime.DeepCopyJSON(res.Object),
	}
}

func (s celSubject) run(b *testing.B) {
	ctx := context.Background()
	b.Run("op=create/impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if r := s.mine.Validate(ctx, field.Path{}, s.obj, nil, wcel.RuntimeCELCostBudget); len(r.Errors) > 0 {
				b.Fatal(r.Errors)
			}
		}
	})
	b.Run("op=create/impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs, _ := s.ref.Validate(ctx, nil, s.refS, s.obj, nil, celconfig.RuntimeCELCostBudget); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("op=update/impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if r := s.mine.Validate(ctx, field.Path{}, s.obj, s.old, wcel.RuntimeCELCostBudget); len(r.Errors) > 0 {
				b.Fatal(r.Errors)
			}
		}
	})
	b.Run("op=update/impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			corr := common.NewCorrelatedObject(s.obj, s.old, &model.Structural{Structural: s.refS})
			if errs, _ := s.ref.Validate(ctx, nil, s.refS, s.obj, s.old, celconfig.RuntimeCELCostBudget, kcel.WithRatcheting(corr)); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkCELHTTPRoute evaluates the x-kubernetes-validations rules of the Gateway API
// HTTPRoute CRD on a full HTTPRoute (create, and update against an equal stored object with
// ratcheting), compiled once, side by side with apiextensions' schema/cel validator.
func BenchmarkCELHTTPRoute(b *testing.B) {
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
	version := obj["apiVersion"].(string)[len("gateway.networking.k8s.io/"):]
	loadCELSubject(b, crd, version, obj).run(b)
}

// BenchmarkCELCronTab evaluates testdata/cel/crontab-crd.yaml's rules (messages,
// messageExpression, transition rule, list set and map) on a valid CronTab.
func BenchmarkCELCronTab(b *testing.B) {
	crd := yamlDocs(b, filepath.Join("..", "..", "testdata", "cel", "crontab-crd.yaml"))[0]
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "cron-1", "namespace": "default"},
		"spec": map[string]any{"image": "busybox", "replicas": int64(3), "minReplicas": int64(1), "maxReplicas": int64(5),
			"tags": []any{"a", "b", "c"}, "ports": []any{map[string]any{"name": "http", "port": int64(80)}, map[string]any{"name": "https", "port": int64(443)}}}}
	loadCELSubject(b, crd, "v1", obj).run(b)
}
