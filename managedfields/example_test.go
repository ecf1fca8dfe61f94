package managedfields_test

import (
	"fmt"
	"os"

	"sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/managedfields"
)

const liveDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  managedFields:
  - manager: kube-controller-manager
    operation: Update
    apiVersion: apps/v1
    time: "2026-01-02T03:04:05Z"
    fieldsType: FieldsV1
    fieldsV1: {"f:spec": {"f:replicas": {}}}
    subresource: scale
  - manager: kubectl
    operation: Apply
    apiVersion: apps/v1
    time: "2026-01-01T00:00:00Z"
    fieldsType: FieldsV1
    fieldsV1: {"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}}
spec:
  replicas: 3
`

func object(y string) map[string]any {
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.UnmarshalCaseSensitivePreserveInts(j, &m); err != nil {
		panic(err)
	}
	return m
}

func ExampleOwnersOf() {
	owners, err := managedfields.OwnersOf(object(liveDeployment), ".spec.replicas")
	if err != nil {
		panic(err)
	}
	for _, f := range owners {
		for _, o := range f.Owners {
			fmt.Println(f.Path, o.Manager, o.Operation, o.Subresource)
		}
	}
	// Output:
	// .spec.replicas kube-controller-manager Update scale
	// .spec.replicas kubectl Apply
}

func ExampleWriteTable() {
	if err := managedfields.WriteTable(os.Stdout, object(liveDeployment), ""); err != nil {
		panic(err)
	}
	// Output:
	// MANAGER                  OPERATION  APIVERSION  TIME                  SUBRESOURCE  FIELDS
	// kube-controller-manager  Update     apps/v1     2026-01-02T03:04:05Z  scale        .spec.replicas
	// kubectl                  Apply      apps/v1     2026-01-01T00:00:00Z  <none>       .spec.replicas,.spec.template.spec.containers[name="app"].image,.spec.template.spec.containers[name="app"].name
}

func ExampleDecode() {
	entries, _, err := managedfields.FromObject(object(liveDeployment))
	if err != nil {
		panic(err)
	}
	managed, err := managedfields.Decode(entries)
	if err != nil {
		panic(err)
	}
	encoded, err := managedfields.Encode(managed)
	if err != nil {
		panic(err)
	}
	// The apiserver's order: Apply entries first, then by time.
	fmt.Println(string(managedfields.MarshalEntries(encoded)))

	_, err = managedfields.Decode([]managedfields.Entry{{Manager: "m", Operation: "Patch", APIVersion: "v1"}})
	fmt.Println(err)
	// Output:
	// [{"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}},{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}]
	// operation must be `Apply` or `Update`
}

func tryObject(y string) (m map[string]any, ok bool) {
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		return nil, false
	}
	if err := json.UnmarshalCaseSensitivePreserveInts(j, &m); err != nil {
		return nil, false
	}
	return m, true
}

func ExampleUpgrade() {
	entries := []managedfields.Entry{
		{Manager: "kubectl-client-side-apply", Operation: managedfields.OperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1",
			FieldsV1: []byte(`{"f:data":{"f:a":{},"f:b":{}}}`)},
		{Manager: "kubectl", Operation: managedfields.OperationApply, APIVersion: "v1", FieldsType: "FieldsV1",
			FieldsV1: []byte(`{"f:data":{"f:c":{}}}`)},
	}
	// What kubectl does after its first server-side apply of an object it applied client-side.
	out, err := managedfields.Upgrade(entries, []string{"kubectl-client-side-apply"}, "kubectl", "")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(managedfields.MarshalEntries(out)))
	// Output:
	// [{"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:b":{},"f:c":{}}}}]
}

func ExampleFieldsOf() {
	fields, err := managedfields.FieldsOf(object(liveDeployment), "kube-controller-manager")
	fmt.Println(fields, err)
	// Output:
	// [.spec.replicas] <nil>
}

func ExampleValidate() {
	errs := managedfields.Validate([]managedfields.Entry{{Manager: "m", Operation: "Patch", FieldsType: "FieldsV2"}}, field.NewPath("metadata", "managedFields"))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// metadata.managedFields[0].operation: Unsupported value: "Patch": supported values: "Apply", "Update"
	// metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`
}

func ExampleRename() {
	entries, _, _ := managedfields.FromObject(object(liveDeployment))
	out, err := managedfields.Rename(entries, "kubectl", "web-operator", "")
	if err != nil {
		panic(err)
	}
	for _, e := range out {
		fmt.Println(e.Manager, e.Operation)
	}
	// Output:
	// kube-controller-manager Update
	// web-operator Apply
}
