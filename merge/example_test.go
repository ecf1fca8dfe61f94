package merge_test

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/schema"
)

func ExampleApplyMergePatch() {
	live := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web", "tier": "fe"}},
		"spec":     map[string]any{"ports": []any{int64(80), int64(443)}},
	}
	res, err := merge.ApplyMergePatch(live, []byte(`{"metadata":{"labels":{"tier":null}},"spec":{"ports":[8080]}}`), merge.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Object)

	_, err = merge.ApplyMergePatch(live, []byte(`["not","an","object"]`), merge.Options{})
	var me *merge.Error
	if errors.As(err, &me) {
		fmt.Println(me.StatusCode(), me.Error())
	}
	// Output:
	// map[metadata:map[labels:map[app:web] name:web] spec:map[ports:[8080]]]
	// 400 error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}
}

func ExampleCreateMergePatch() {
	p, err := merge.CreateMergePatch(
		map[string]any{"spec": map[string]any{"replicas": int64(1), "paused": true}},
		map[string]any{"spec": map[string]any{"replicas": int64(3)}},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(p))
	// Output:
	// {"spec":{"paused":null,"replicas":3}}
}

func ExampleCreateThreeWayMergePatch() {
	lastApplied := map[string]any{"spec": map[string]any{"replicas": int64(3), "size": "small"}}
	config := map[string]any{"spec": map[string]any{"replicas": int64(3)}}
	live := map[string]any{"spec": map[string]any{"replicas": int64(12), "size": "small", "owner": "hpa"}}
	p, err := merge.CreateThreeWayMergePatch(lastApplied, config, live)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(p))
	// Output:
	// {"spec":{"replicas":3,"size":null}}
}

func ExampleApplyStrategic() {
	kind, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		panic(err)
	}
	meta, err := merge.KindMeta(kind)
	if err != nil {
		panic(err)
	}
	live := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:1"},
			map[string]any{"name": "sidecar", "image": "envoy"},
		}}}},
	}
	res, err := merge.ApplyStrategic(live, []byte(`{"spec":{"template":{"spec":{"containers":[
		{"name":"app","image":"nginx:2"},
		{"name":"sidecar","$patch":"delete"}]}}}}`), meta, merge.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"])

	// A kind without patch metadata (a custom resource) is refused.
	_, err = merge.ApplyStrategic(live, []byte(`{}`), nil, merge.Options{})
	fmt.Println(err)
	// Output:
	// map[containers:[map[image:nginx:2 name:app]]]
	// the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml
}

func ExampleCreateStrategic() {
	kind, _ := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	meta, _ := merge.KindMeta(kind)
	p, err := merge.CreateStrategic(
		map[string]any{"metadata": map[string]any{"finalizers": []any{"a", "b"}}},
		map[string]any{"metadata": map[string]any{"finalizers": []any{"b"}}},
		meta)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(p))
	// Output:
	// {"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"$setElementOrder/finalizers":["b"]}}
}

func ExampleCreateThreeWayStrategic() {
	kind, _ := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	meta, _ := merge.KindMeta(kind)
	lastApplied := map[string]any{"spec": map[string]any{"replicas": int64(3)}}
	config := map[string]any{"spec": map[string]any{"replicas": int64(3), "paused": true}}
	live := map[string]any{"spec": map[string]any{"replicas": int64(12)}} // scaled by an HPA
	p, err := merge.CreateThreeWayStrategic(lastApplied, config, live, meta, true)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(p))
	// Output:
	// {"spec":{"paused":true,"replicas":3}}
}

func ExampleClientSideApply() {
	kind, _ := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	meta, _ := merge.KindMeta(kind)
	config := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"replicas": int64(3)}}

	created, _ := merge.ClientSideApply(config, nil, merge.ClientApplyOptions{Meta: meta})
	fmt.Print(created.Created, " ", created.Object["metadata"].(map[string]any)["annotations"].(map[string]any)[merge.LastAppliedAnnotation])

	live := created.Object
	live["spec"] = map[string]any{"replicas": int64(12)} // an HPA scaled it
	res, err := merge.ClientSideApply(config, live, merge.ClientApplyOptions{Meta: meta})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.PatchType, string(res.Patch), res.Object["spec"])
	// Output:
	// true {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"replicas":3}}
	// application/strategic-merge-patch+json {"spec":{"replicas":3}} map[replicas:3]
}

func ExampleLastAppliedConfiguration() {
	s, _ := merge.LastAppliedConfiguration(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c"}, "data": map[string]any{"html": "<b>"}})
	fmt.Print(s)
	// Output:
	// {"apiVersion":"v1","data":{"html":"\u003cb\u003e"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c"}}
}

func ExampleModifiedConfiguration() {
	b, _ := merge.ModifiedConfiguration(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}})
	fmt.Print(string(b))
	// Output:
	// {"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n"},"name":"c"}}
}

func ExampleKindMeta() {
	kind, _ := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	meta, _ := merge.KindMeta(kind)
	spec, _, _ := meta.LookupStruct("spec")
	_, containers, _ := spec.LookupSlice("containers")
	fmt.Println(containers.Strategies, containers.MergeKey)
	// Output:
	// [merge] name
}
