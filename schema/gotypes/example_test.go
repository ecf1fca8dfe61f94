package gotypes_test

import (
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

// The JSON decoder's error for a value of the wrong type in a built-in object, as
// kube-apiserver 1.37 words it (a webhook's patch, a PUT body).
func ExampleDecodeError() {
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	msg, _ := gotypes.DecodeError(deployment, "spec.replicas", "3")
	fmt.Println(msg)
	msg, _ = gotypes.DecodeError(deployment, "spec.template.spec.containers[0].livenessProbe.exec.command", "ls")
	fmt.Println(msg)
	_, failed := gotypes.DecodeError(deployment, "spec.replicas", int64(3))
	fmt.Println(failed)
	// Output:
	// json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
	// json: cannot unmarshal string into Go struct field ExecAction.spec.template.spec.containers.livenessProbe.ProbeHandler.exec.command of type []string
	// false
}

// Where a built-in kind's Go type holds pointers, at any depth: an empty object there decodes
// to a pointer to a zero value, which is not the nil that null or an absent field gives.
func ExamplePointerField() {
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	fmt.Println(gotypes.PointerField(pod, "spec.volumes[0].emptyDir"))
	fmt.Println(gotypes.PointerField(pod, "spec.volumes[0].name"))
	t, _ := gotypes.Of(pod)
	fmt.Println(t.Field("spec").Field("securityContext"))
	// Output:
	// true
	// false
	// *v1.PodSecurityContext
}
