package apply_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
)

func mustObject(y string) map[string]any {
	m, err := codec.DecodeObject([]byte(y))
	if err != nil {
		panic(err)
	}
	return m
}

const deploymentConfig = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "nginx:1.27"}
`

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ExampleApply() {
	// Create on apply: there is no live object yet.
	res, err := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "alice", Now: t0})
	if err != nil {
		panic(err)
	}
	entries, _, _ := managedfields.FromObject(res.Object)
	fmt.Println(string(managedfields.MarshalEntries(entries)))

	// Another manager applies a different replica count: 409.
	live := res.Object
	_, err = apply.Apply(apply.Request{Live: live, Manager: "hpa-bot", Now: t0.Add(time.Minute), Config: mustObject(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {replicas: 5}
`)})
	var conflict *apply.ConflictError
	fmt.Println(errors.As(err, &conflict), conflict.StatusCode(), err)
	// Output:
	// [{"manager":"alice","operation":"Apply","apiVersion":"apps/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}}]
	// true 409 Apply failed with 1 conflict: conflict with "alice": .spec.replicas
}

func ExampleExplain() {
	live, _ := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "alice", Now: t0})
	req := apply.Request{Live: live.Object, Manager: "bob", Now: t0.Add(time.Hour), Config: mustObject(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - {name: app, image: "nginx:1.28"}
`)}
	_, err := apply.Apply(req)
	var conflict *apply.ConflictError
	if !errors.As(err, &conflict) {
		panic(err)
	}
	apply.Explain(req, conflict).WriteTo(os.Stdout)
	// Output:
	// FIELD                                             OWNER  OPERATION  APIVERSION  TIME                  SUBRESOURCE  LIVE          REQUESTED
	// .spec.replicas                                    alice  Apply      apps/v1     2026-01-01T00:00:00Z  <none>       3             2
	// .spec.template.spec.containers[name="app"].image  alice  Apply      apps/v1     2026-01-01T00:00:00Z  <none>       "nginx:1.27"  "nginx:1.28"
	// --force-conflicts would take .spec.replicas, .spec.template.spec.containers[name="app"].image from "alice" and give them to "bob"
}

func ExampleUpdate() {
	live, _ := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "alice", Now: t0})
	// A controller scales through a PUT: it takes .spec.replicas from alice.
	scaled := mustObject(deploymentConfig)
	scaled["spec"].(map[string]any)["replicas"] = int64(7)
	scaled["metadata"].(map[string]any)["managedFields"] = live.Object["metadata"].(map[string]any)["managedFields"]
	res, err := apply.Update(apply.UpdateRequest{Live: live.Object, Object: scaled, Manager: "autoscaler", Now: t0.Add(time.Hour)})
	if err != nil {
		panic(err)
	}
	managedfields.WriteTable(os.Stdout, res.Object, ".spec.replicas")
	// Output:
	// MANAGER     OPERATION  APIVERSION  TIME                  SUBRESOURCE  FIELDS
	// autoscaler  Update     apps/v1     2026-01-01T01:00:00Z  <none>       .spec.replicas
}

func ExampleWouldConflict() {
	live, _ := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "alice", Now: t0})
	conflicts, err := apply.WouldConflict(apply.Request{Live: live.Object, Manager: "bob", Now: t0, Config: mustObject(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {replicas: 3, paused: true}
`)})
	// Same value: shared ownership, no conflict.
	fmt.Println(len(conflicts), err)
	// Output:
	// 0 <nil>
}

func ExampleScale() {
	// alice applied the Deployment; the autoscaler then scales it through /scale.
	live, _ := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "alice", Now: t0})
	paths := apply.ScaleReplicasPaths(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	scale, err := apply.ScaleOf(live.Object, paths, nil)
	if err != nil {
		panic(err)
	}
	scale["spec"].(map[string]any)["replicas"] = int64(6)
	res, err := apply.Scale(apply.ScaleRequest{Parent: live.Object, Scale: scale, Manager: "horizontal-pod-autoscaler", Now: t0.Add(time.Hour), ReplicasPaths: paths})
	if err != nil {
		panic(err)
	}
	managedfields.WriteTable(os.Stdout, res.Object, ".spec.replicas")
	// alice's next apply of replicas: 3 would now conflict with the autoscaler.
	_, err = apply.Apply(apply.Request{Live: res.Object, Config: mustObject(deploymentConfig), Manager: "alice", Now: t0.Add(2 * time.Hour)})
	fmt.Println(err)
	// Output:
	// MANAGER                    OPERATION  APIVERSION  TIME    SUBRESOURCE  FIELDS
	// horizontal-pod-autoscaler  Update     apps/v1     <none>  scale        .spec.replicas
	// Apply failed with 1 conflict: conflict with "horizontal-pod-autoscaler" with subresource "scale" using apps/v1: .spec.replicas
}

func ExampleConfigureCRD() {
	data, err := os.ReadFile("../testdata/apply/recorded/widget-crd.yaml")
	if err != nil {
		panic(err)
	}
	crd, err := schema.FromCRDBytes(data)
	if err != nil {
		panic(err)
	}
	req := apply.Request{Manager: "alice", Now: t0, Config: mustObject(`
apiVersion: apply.writepath.example/v1
kind: Widget
metadata: {name: w}
spec: {replicas: 2}
status: {phase: ignored}
`)}
	if err := apply.ConfigureCRD(&req, crd, ""); err != nil {
		panic(err)
	}
	res, err := apply.Apply(req)
	if err != nil {
		panic(err)
	}
	// The CRD has a status subresource: status is neither stored nor owned on the main resource.
	_, hasStatus := res.Object["status"]
	fields, _ := managedfields.FieldsOf(res.Object, "alice")
	fmt.Println(hasStatus, fields)
	// Output:
	// false [.spec.replicas]
}

func ExampleResetFields() {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	fmt.Println(apply.ResetPaths(gvk, ""), apply.ResetPaths(gvk, "status"))
	_, ok := apply.ResetFields(gvk, "status")["apps/v1"]
	fmt.Println(ok)
	// Output:
	// [[status]] [[spec] [metadata labels]]
	// true
}

func ExampleStrategyReset() {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	live := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "a"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1.27",
			"resources": map[string]any{"requests": map[string]any{"cpu": "100m"}}}}}}
	// A resize that also tries to change the image and a label: the configuration's fields are
	// all recorded (no reset fields), but only the resources are written.
	config := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "b"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1.28",
			"resources": map[string]any{"requests": map[string]any{"cpu": "200m"}}}}}}
	res, err := apply.Apply(apply.Request{Live: live, Config: config, Manager: "vpa", Subresource: "resize", Force: true, Now: t0,
		ResetFields: apply.ResetFields(gvk, "resize"), Reset: apply.StrategyReset(gvk, "resize")})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := res.Object["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	fmt.Println(c["image"], c["resources"], res.Object["metadata"].(map[string]any)["labels"])
	// Output:
	// nginx:1.27 map[requests:map[cpu:200m]] map[app:a]
}

func ExampleSameSchema() {
	convert := apply.SameSchema("example.com/v1", "example.com/v2")
	v1 := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}
	out, err := convert.Convert(map[string]any{"apiVersion": "example.com/v1", "kind": "Thing"}, v1, schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Thing"})
	fmt.Println(out["apiVersion"], err)
	_, err = convert.Convert(map[string]any{"apiVersion": "example.com/v1", "kind": "Thing"}, v1, schema.GroupVersionKind{Group: "example.com", Version: "v0", Kind: "Thing"})
	fmt.Println(errors.Is(err, apply.ErrVersionUnknown))
	// Output:
	// example.com/v2 <nil>
	// true
}

func ExamplePlanRename() {
	live, _ := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "old-operator", Now: t0})
	// The operator is renamed and applies a configuration that changes the image.
	changed := mustObject(deploymentConfig)
	changed["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:1.28"
	plan, err := apply.PlanRename(apply.Request{Live: live.Object, Config: changed, Manager: "new-operator", Now: t0.Add(time.Hour)}, "old-operator")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(plan.Owned), "fields owned by old-operator")
	for _, c := range plan.Conflicts {
		fmt.Println("conflict:", c.Path, "with", c.Owner.Manager)
	}
	fmt.Println(len(plan.Shared), "fields shared without migration")
	// Output:
	// 6 fields owned by old-operator
	// conflict: .spec.template.spec.containers[name="app"].image with old-operator
	// 5 fields shared without migration
}
