package schema_test

import (
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// ExampleValidateObjectMeta validates the metadata of a namespaced object being created, as
// every strategy of a kind without its own name rule does.
func ExampleValidateObjectMeta() {
	md := map[string]any{
		"name":       "Web_1",
		"labels":     map[string]any{"app": "web"},
		"finalizers": []any{"orphan", "foregroundDeletion"},
	}
	errs, err := schema.ValidateObjectMeta(md, schema.ObjectMetaOptions{Namespaced: true}, field.NewPath("metadata"))
	if err != nil {
		fmt.Println("does not decode:", err)
		return
	}
	for _, e := range errs {
		fmt.Println(e.Field, e.Type)
	}
	// Output:
	// metadata.name Invalid value
	// metadata.namespace Required value
	// metadata.finalizers Invalid value
}

// ExampleValidateObjectMetaUpdate refuses a new finalizer on an object being deleted; the
// registry has already given the update the stored resourceVersion.
func ExampleValidateObjectMetaUpdate() {
	old := map[string]any{"name": "web", "namespace": "prod", "resourceVersion": "7",
		"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": []any{"example.com/a"}}
	md := map[string]any{"name": "web", "namespace": "prod",
		"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": []any{"example.com/a", "example.com/b"}}
	errs, err := schema.ValidateObjectMetaUpdate(md, old, schema.ObjectMetaOptions{ResourceVersionSet: true}, field.NewPath("metadata"))
	if err != nil {
		fmt.Println("does not decode:", err)
		return
	}
	for _, e := range errs {
		fmt.Println(e.Error())
	}
	// Output:
	// metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}
}
