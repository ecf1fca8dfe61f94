package merge_test

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/merge"
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
