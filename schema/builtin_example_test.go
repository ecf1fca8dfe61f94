package schema_test

import (
	"fmt"

	"github.com/writepath/writepath/schema"
)

// Builtin answers how a built-in kind is served.
func ExampleBuiltin() {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Resource, k.Namespaced, k.Subresources.Status, k.Subresources.Scale.SpecReplicasPath)

	_, err = schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"})
	fmt.Println(err)
	// Output:
	// deployments true true .spec.replicas
	// no matches for kind "Deployment" in version "apps/v1beta1"
}

func ExampleBuiltinForResource() {
	k, err := schema.BuiltinForResource(schema.GroupVersionResource{Group: "", Version: "v1", Resource: "namespaces"})
	if err != nil {
		panic(err)
	}
	fmt.Println(k.GVK.Kind, k.Namespaced)
	// Output: Namespace false
}

func ExampleBuiltinKinds() {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		panic(err)
	}
	for _, k := range kinds {
		if k.GVK.Group == "apps" {
			fmt.Println(k.GVK.Kind, k.Resource)
		}
	}
	// Output:
	// ControllerRevision controllerrevisions
	// DaemonSet daemonsets
	// Deployment deployments
	// ReplicaSet replicasets
	// StatefulSet statefulsets
}

// Server-side apply and strategic merge patch key container ports differently.
func ExampleKind_Explain() {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		panic(err)
	}
	info, err := k.Explain("spec.template.spec.containers.ports")
	if err != nil {
		panic(err)
	}
	fmt.Print(info)
	// Output:
	// PATH:           spec.template.spec.containers.ports
	// TYPE:           list
	// LIST TYPE:      map
	// SSA KEYS:       containerPort, protocol
	// ELEMENT:        map io.k8s.api.core.v1.ContainerPort
	// SMP STRATEGY:   merge
	// SMP MERGE KEY:  containerPort
	// GO TYPE:        slice
}

// A strategic-merge-patch implementation walks PatchMeta like strategicpatch's LookupPatchMeta.
func ExampleKind_PatchMeta() {
	k, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		panic(err)
	}
	pod, err := k.PatchMeta()
	if err != nil {
		panic(err)
	}
	spec, _, err := pod.LookupField("spec")
	if err != nil {
		panic(err)
	}
	volume, info, err := spec.LookupSlice("volumes")
	if err != nil {
		panic(err)
	}
	fmt.Println(volume.TypeName(), info.Strategies(), info.MergeKey)
	_, _, err = spec.LookupField("volume")
	fmt.Println(err)
	// Output:
	// Volume [merge retainKeys] name
	// unable to find api field in struct PodSpec for the json field "volume"
}

// SMDType is the structured-merge-diff type server-side apply uses for the kind.
func ExampleKind_SMDType() {
	k, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	if err != nil {
		panic(err)
	}
	typ, err := k.SMDType()
	if err != nil {
		panic(err)
	}
	tv, err := typ.FromUnstructured(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c"},
		"data":     map[string]any{"k": "v"},
	})
	if err != nil {
		panic(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		panic(err)
	}
	fmt.Println(set.String())
	// Output:
	// .apiVersion
	// .kind
	// .data.k
	// .metadata.name
}

func ExampleBuiltinParser() {
	p, err := schema.BuiltinParser()
	if err != nil {
		panic(err)
	}
	_, err = p.Type("io.k8s.api.core.v1.Pod").FromUnstructured(map[string]any{"spec": map[string]any{"containers": "nope"}})
	fmt.Println(err)
	// Output:
	// .spec.containers: expected list, got &{nope}
}

func ExampleDeducedType() {
	tv, err := schema.DeducedType().FromUnstructured(map[string]any{"spec": map[string]any{"size": int64(3)}})
	if err != nil {
		panic(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		panic(err)
	}
	fmt.Println(set.String())
	// Output:
	// .spec
	// .spec.size
}

func ExampleParseAPIVersion() {
	gv, err := schema.ParseAPIVersion("apps/v1")
	if err != nil {
		panic(err)
	}
	fmt.Println(gv.Group, gv.Version, gv.WithKind("Deployment"))
	_, err = schema.ParseAPIVersion("a/b/c")
	fmt.Println(err)
	// Output:
	// apps v1 apps/v1, Kind=Deployment
	// unexpected GroupVersion string: a/b/c
}

func ExampleFromAPIVersionAndKind() {
	gvk, err := schema.FromAPIVersionAndKind("v1", "Pod")
	if err != nil {
		panic(err)
	}
	fmt.Println(gvk, gvk.APIVersion())
	// Output: /v1, Kind=Pod v1
}
