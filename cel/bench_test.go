package cel_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

func cronTab(b *testing.B) (*schema.Structural, map[string]any) {
	data, err := os.ReadFile("../testdata/cel/crontab-crd.yaml")
	require.NoError(b, err)
	crd, err := schema.FromCRDBytes(data)
	require.NoError(b, err)
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "cron-1", "namespace": "default"},
		"spec": map[string]any{"image": "busybox", "replicas": int64(3), "minReplicas": int64(1), "maxReplicas": int64(5),
			"tags": []any{"a", "b"}, "ports": []any{map[string]any{"name": "http", "port": int64(80)}}}}
	return crd.Version("v1").Structural, obj
}

// BenchmarkValidate evaluates the CronTab rules on a valid object (compiled once).
func BenchmarkValidate(b *testing.B) {
	s, obj := cronTab(b)
	v := cel.NewValidator(s, true, cel.Options{})
	b.ReportAllocs()
	for b.Loop() {
		if r := v.Validate(context.Background(), field.Path{}, obj, obj, cel.RuntimeCELCostBudget); len(r.Errors) > 0 {
			b.Fatal(r.Errors)
		}
	}
}

// BenchmarkCompile compiles the CronTab rules (what Validators.For does once per schema).
func BenchmarkCompile(b *testing.B) {
	s, _ := cronTab(b)
	b.ReportAllocs()
	for b.Loop() {
		if cel.NewValidator(s, true, cel.Options{}) == nil {
			b.Fatal("no validator")
		}
	}
}
