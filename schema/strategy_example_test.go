package schema_test

import (
	"fmt"

	"github.com/writepath/writepath/schema"
)

// BuiltinStrategy answers what a built-in kind's REST strategy does on writes and deletes.
func ExampleBuiltinStrategy() {
	pod, _ := schema.BuiltinStrategy(schema.GroupVersionKind{Kind: "Pod"})
	job, _ := schema.BuiltinStrategy(schema.GroupVersionKind{Group: "batch", Kind: "Job"})
	fmt.Println(pod.GracefulDelete, pod.ReturnDeletedObject, pod.ResetPaths("status"))
	fmt.Printf("%q %v\n", job.GCPolicy, job.Generation.Why)
	_, ok := schema.BuiltinStrategy(schema.GroupVersionKind{Group: "authorization.k8s.io", Kind: "SubjectAccessReview"})
	fmt.Println(ok)
	// Output:
	// true true [[spec] [metadata deletionTimestamp] [metadata ownerReferences]]
	// "OrphanDependents" Job bumps metadata.generation on any change to spec
	// false
}

func ExampleGenerationRule_Tracked() {
	cm, _ := schema.BuiltinStrategy(schema.GroupVersionKind{Kind: "ConfigMap"})
	pc, _ := schema.BuiltinStrategy(schema.GroupVersionKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"})
	fmt.Println(cm.Generation.Tracked(), pc.Generation.Tracked())
	// Output: false true
}

func ExampleCustomResourceStrategy() {
	s := schema.CustomResourceStrategy(true)
	fmt.Println(s.Generation.AllExcept, s.ResetPaths(""), s.ResetPaths("status"))
	// Output: [metadata status] [[status]] [[metadata] [spec]]
}

// GuessResource is the plural a RESTMapper falls back to for a kind it was not told about.
func ExampleGuessResource() {
	for _, kind := range []string{"Widget", "Policy", "Ingress", "Endpoints", ""} {
		plural, singular := schema.GuessResource(kind)
		fmt.Printf("%q %q\n", plural, singular)
	}
	// Output:
	// "widgets" "widget"
	// "policies" "policy"
	// "ingresses" "ingress"
	// "endpoints" "endpoints"
	// "" ""
}
