package schema_test

import (
	"fmt"

	"github.com/writepath/writepath/schema"
)

// The JSON decoder's error for a value of the wrong type in a built-in object, as
// kube-apiserver 1.37 words it (a webhook's patch, a PUT body).
func ExampleGoDecodeError() {
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	msg, _ := schema.GoDecodeError(deployment, "spec.replicas", "3")
	fmt.Println(msg)
	msg, _ = schema.GoDecodeError(deployment, "spec.template.spec.containers[0].livenessProbe.exec.command", "ls")
	fmt.Println(msg)
	_, failed := schema.GoDecodeError(deployment, "spec.replicas", int64(3))
	fmt.Println(failed)
	// Output:
	// json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
	// json: cannot unmarshal string into Go struct field ExecAction.spec.template.spec.containers.livenessProbe.ProbeHandler.exec.command of type []string
	// false
}
