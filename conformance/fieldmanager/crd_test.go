package fieldmanager

import (
	"math/rand"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/apply"
	wschema "github.com/writepath/writepath/schema"
)

var widgetGVK = k8sschema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

func str() spec.Schema   { return *spec.StringProperty() }
func integ() spec.Schema { return *spec.Int64Property() }

func object(props map[string]spec.Schema, ext map[string]any) spec.Schema {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}}
	s.Extensions = ext
	return s
}

func array(items spec.Schema, ext map[string]any) spec.Schema {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &items}}}
	s.Extensions = ext
	return s
}

// widgetOpenAPI is a CRD-like schema with every list and map flavour.
func widgetOpenAPI() map[string]*spec.Schema { return widgetOpenAPIVersions("v1") }

// widgetOpenAPIVersions is the Widget schema served at several versions of example.com.
func widgetOpenAPIVersions(versions ...string) map[string]*spec.Schema {
	labels := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: spec.StringProperty()}}}
	meta := object(map[string]spec.Schema{
		"name": str(), "namespace": str(), "uid": str(), "resourceVersion": str(), "generation": integ(),
		"creationTimestamp": str(), "labels": labels, "annotations": labels,
		"finalizers":    array(str(), map[string]any{"x-kubernetes-list-type": "set"}),
		"managedFields": array(object(map[string]spec.Schema{}, map[string]any{"x-kubernetes-preserve-unknown-fields": true}), map[string]any{"x-kubernetes-list-type": "atomic"}),
	}, nil)
	item := object(map[string]spec.Schema{"name": str(), "kind": str(), "value": str()}, nil)
	item.Required = []string{"name", "kind"}
	specS := object(map[string]spec.Schema{
		"replicas": integ(),
		"tags":     array(str(), map[string]any{"x-kubernetes-list-type": "set"}),
		"items":    array(item, map[string]any{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name", "kind"}}),
		"args":     array(str(), map[string]any{"x-kubernetes-list-type": "atomic"}),
		"config":   object(map[string]spec.Schema{"a": str(), "b": str()}, map[string]any{"x-kubernetes-map-type": "atomic"}),
		"labels":   labels,
	}, nil)
	status := object(map[string]spec.Schema{"phase": str(), "count": integ()}, nil)
	root := object(map[string]spec.Schema{"apiVersion": str(), "kind": str(), "metadata": meta, "spec": specS, "status": status},
		map[string]any{"x-kubernetes-group-version-kind": gvkList(versions)})
	return map[string]*spec.Schema{"com.example.v1.Widget": &root}
}

// widgetTypes builds both sides' type converters from the same OpenAPI (the schema conversion is
// kube-openapi's on both sides: this scenario tests apply's layers, not CRD schema conversion).
func widgetTypes() (managedfields.TypeConverter, apply.TypeConverter) {
	models := widgetOpenAPI()
	ref, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		panic(err)
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		panic(err)
	}
	parser := &typed.Parser{Schema: smdschema.Schema{Types: s.Types}}
	return ref, apply.Types{wschema.GroupVersionKind(widgetGVK): parser.Type("com.example.v1.Widget")}
}

func genWidget(r *rand.Rand) map[string]any {
	md := map[string]any{"name": "w", "namespace": "ns"}
	if r.Intn(3) == 0 {
		md["labels"] = randLabels(r)
	}
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": md}
	s := map[string]any{}
	if r.Intn(2) == 0 {
		s["replicas"] = int64(r.Intn(3))
	}
	if r.Intn(2) == 0 {
		var tags []any
		for _, t := range []string{"x", "y", "z"} {
			if r.Intn(2) == 0 {
				tags = append(tags, t)
			}
		}
		s["tags"] = tags
	}
	if r.Intn(2) == 0 {
		var items []any
		for _, n := range []string{"p", "q"} {
			for _, k := range []string{"A", "B"} {
				if r.Intn(3) == 0 {
					it := map[string]any{"name": n, "kind": k}
					if r.Intn(2) == 0 {
						it["value"] = pick(r, "1", "2")
					}
					items = append(items, it)
				}
			}
		}
		s["items"] = items
	}
	if r.Intn(3) == 0 {
		s["args"] = []any{pick(r, "a", "b")}
	}
	if r.Intn(3) == 0 {
		c := map[string]any{}
		if r.Intn(2) == 0 {
			c["a"] = pick(r, "1", "2")
		}
		if r.Intn(2) == 0 {
			c["b"] = pick(r, "1", "2")
		}
		s["config"] = c
	}
	if r.Intn(3) == 0 {
		s["labels"] = randLabels(r)
	}
	if len(s) > 0 {
		obj["spec"] = s
	}
	if r.Intn(4) == 0 {
		st := map[string]any{"phase": pick(r, "A", "B")}
		if r.Intn(2) == 0 {
			st["count"] = int64(r.Intn(3))
		}
		obj["status"] = st
	}
	if r.Intn(25) == 0 {
		if sp, ok := obj["spec"].(map[string]any); ok {
			sp["tags"] = []any{"x", "x"}
		}
	}
	return obj
}

func genDeduced(r *rand.Rand) map[string]any {
	obj := genWidget(r)
	obj["apiVersion"] = "example.com/v2"
	obj["kind"] = "Gadget"
	return obj
}

func gvkList(versions []string) []any {
	var out []any
	for _, v := range versions {
		out = append(out, map[string]any{"group": "example.com", "version": v, "kind": "Widget"})
	}
	return out
}
