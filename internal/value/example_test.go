package value_test

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/internal/value"
)

func ExampleValidate() {
	fmt.Println(value.Validate(map[string]any{"replicas": int64(3)}))
	fmt.Println(value.Validate(map[string]any{"replicas": 3}))
	// Output:
	// <nil>
	// value: replicas: unsupported type int
}

func ExampleDeepCopy() {
	orig := []any{map[string]any{"a": int64(1)}}
	c, _ := value.DeepCopy(orig)
	c.([]any)[0].(map[string]any)["a"] = int64(2)
	fmt.Println(orig, c)
	// Output: [map[a:1]] [map[a:2]]
}

func ExampleDeepCopyMap() {
	obj := map[string]any{"metadata": map[string]any{"name": "web"}}
	c, err := value.DeepCopyMap(obj)
	c["metadata"].(map[string]any)["name"] = "copy"
	fmt.Println(obj["metadata"], c["metadata"], err)
	// Output: map[name:web] map[name:copy] <nil>
}

func ExampleEqual() {
	fmt.Println(value.Equal(map[string]any{"a": int64(1)}, map[string]any{"a": int64(1)}))
	fmt.Println(value.Equal(int64(1), float64(1)))
	fmt.Println(value.Equal(map[string]any{"l": []any{}}, map[string]any{"l": []any(nil)}))
	// Output:
	// true
	// false
	// true
}

func ExampleGet() {
	obj := map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"image": "nginx"}}}}
	v, found, err := value.Get(obj, value.NewPath("spec", "containers").Index(0).Key("image"))
	fmt.Println(v, found, err)
	_, found, err = value.Get(obj, value.NewPath("spec", "replicas"))
	fmt.Println(found, err)
	// Output:
	// nginx true <nil>
	// false <nil>
}

func ExampleSet() {
	obj := map[string]any{"metadata": map[string]any{"name": "web"}}
	out, err := value.Set(obj, value.NewPath("metadata", "labels", "app"), "web")
	fmt.Println(out, err)
	fmt.Println(obj)
	// Output:
	// map[metadata:map[labels:map[app:web] name:web]] <nil>
	// map[metadata:map[name:web]]
}

func ExampleSetMap() {
	obj := map[string]any{"spec": map[string]any{"replicas": int64(1)}}
	out, _ := value.SetMap(obj, value.NewPath("spec", "replicas"), int64(3))
	fmt.Println(out["spec"], obj["spec"])
	// Output: map[replicas:3] map[replicas:1]
}

func ExampleRemove() {
	obj := map[string]any{"items": []any{"a", "b", "c"}}
	out, removed, err := value.Remove(obj, value.NewPath("items").Index(1))
	fmt.Println(out, removed, err, obj)
	// Output: map[items:[a c]] true <nil> map[items:[a b c]]
}

func ExampleWalk() {
	obj := map[string]any{"b": []any{int64(1)}, "a": "x"}
	_ = value.Walk(obj, func(p value.Path, v any) error {
		fmt.Printf("%q %v\n", p.String(), v)
		return nil
	})
	// Output:
	// "" map[a:x b:[1]]
	// "a" x
	// "b" [1]
	// "b[0]" 1
}

func ExampleNewPath() {
	fmt.Println(value.NewPath("spec", "template").Key("spec").Key("containers").Index(0).Key("image"))
	// Output: spec.template.spec.containers[0].image
}

func ExamplePathError() {
	_, err := value.Set(map[string]any{"kind": "Pod"}, value.NewPath("kind", "x"), int64(1))
	var pe *value.PathError
	fmt.Println(errors.As(err, &pe), pe.Path, pe.StatusCode(), err)
	// Output: true kind.x 400 value: kind.x: expected a map, found string
}

func ExamplePath_String() {
	p := value.Path{value.Key("metadata"), value.Key("labels"), value.Key("app")}
	fmt.Println(p.String(), len(p.Index(0)), len(p))
	// Output: metadata.labels.app 4 3
}

func ExampleElement() {
	for _, e := range value.NewPath("spec", "containers").Index(2) {
		if e.IsIndex() {
			fmt.Println("index", e.IndexValue())
		} else {
			fmt.Println("key", e.KeyName())
		}
	}
	// Output:
	// key spec
	// key containers
	// index 2
}

func ExampleTypeError() {
	_, err := value.DeepCopy(map[string]any{"spec": map[string]any{"replicas": int32(3)}})
	var te *value.TypeError
	fmt.Println(errors.As(err, &te), te.Path, te.Type, te.StatusCode(), te.Reason())
	// Output: true spec.replicas int32 500 InternalError
}

func ExampleKey() {
	obj := map[string]any{"data": map[string]any{"a.b": "dotted key"}}
	v, _, _ := value.Get(obj, value.Path{value.Key("data"), value.Key("a.b")})
	fmt.Println(v)
	// Output: dotted key
}

func ExampleIndex() {
	v, _, _ := value.Get([]any{"x", "y"}, value.Path{value.Index(1)})
	fmt.Println(v)
	// Output: y
}

func ExampleDepthError() {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	err := value.Validate(cyclic)
	var de *value.DepthError
	fmt.Println(errors.As(err, &de), de.StatusCode(), err)
	// Output: true 500 value: nested deeper than 100000 levels (or cyclic)
}
