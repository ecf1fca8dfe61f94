package labels_test

import (
	"fmt"

	"github.com/writepath/writepath/internal/labels"
)

func ExampleParse() {
	sel, err := labels.Parse("tier in (front,back),app=web,!canary")
	if err != nil {
		panic(err)
	}
	fmt.Println(sel.String())
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "front"}))
	_, err = labels.Parse("app=web,")
	fmt.Println(err)
	// Output:
	// app=web,!canary,tier in (back,front)
	// true
	// found '', expected: identifier after ','
}

func ExampleFromLabelSelector() {
	sel, _ := labels.FromLabelSelector(map[string]any{
		"matchLabels":      map[string]any{"app": "web"},
		"matchExpressions": []any{map[string]any{"key": "track", "operator": "NotIn", "values": []any{"canary"}}},
	})
	pod := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web", "track": "stable"}}}
	fmt.Println(sel, sel.MatchesObject(pod))
	// Output: app=web,track notin (canary) true
}
