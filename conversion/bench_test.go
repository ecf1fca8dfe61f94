package conversion_test

import (
	"fmt"
	"testing"

	"github.com/writepath/writepath/conversion"
)

func benchList(n int) ([]map[string]any, map[string]any) {
	items := make([]any, n)
	objs := make([]map[string]any, n)
	for i := range items {
		o := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i), "namespace": "default", "generation": int64(1)},
			"spec":     map[string]any{"size": int64(i), "replicas": int64(2), "extra": map[string]any{"kept": "k"}}}
		items[i], objs[i] = o, o
	}
	return objs, map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "items": items}
}

// BenchmarkConvertList: strategy None on a 1,000-item list (the converter alone).
func BenchmarkConvertList(b *testing.B) {
	c, _ := conversion.New(widgets(), conversion.Options{})
	_, list := benchList(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ConvertList(list, "v1alpha1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadList: 1,000 stored objects read through another version (decode, default,
// convert, prune).
func BenchmarkReadList(b *testing.B) {
	c, _ := conversion.New(widgets(), conversion.Options{})
	objs, _ := benchList(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ReadList(objs, "v1beta1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegistryWebhook: one object through the whole webhook protocol, answered in process.
func BenchmarkRegistryWebhook(b *testing.B) {
	reg := conversion.NewRegistry("v1")
	id := func(o map[string]any) (map[string]any, error) { return o, nil }
	_ = reg.Register("v1beta1", conversion.Spoke{ToHub: id, FromHub: id})
	crd := widgets()
	crd.Strategy = conversion.StrategyWebhook
	crd.Webhook = &conversion.Webhook{ConversionReviewVersions: []string{"v1"}}
	c, _ := conversion.New(crd, conversion.Options{Caller: reg})
	objs, _ := benchList(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Convert(objs[0], "v1beta1"); err != nil {
			b.Fatal(err)
		}
	}
}
