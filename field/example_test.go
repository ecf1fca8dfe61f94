package field_test

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/field"
)

func ExampleNewPath() {
	containers := field.NewPath("spec", "template", "spec").Child("containers")
	fmt.Println(containers.Index(0).Child("image"))
	fmt.Println(field.NewPath("metadata").Child("labels").Key("app"))
	fmt.Println(field.Path{})
	// Output:
	// spec.template.spec.containers[0].image
	// metadata.labels[app]
	// <nil>
}

func ExamplePath_Child() {
	spec := field.NewPath("spec")
	// siblings built from one parent are independent values.
	a := spec.Child("replicas")
	b := spec.Child("selector", "matchLabels")
	fmt.Println(spec, a, b)
	// Output: spec spec.replicas spec.selector.matchLabels
}

func ExamplePath_Index() {
	fmt.Println(field.NewPath("spec", "containers").Index(2).Child("ports").Index(0))
	// Output: spec.containers[2].ports[0]
}

func ExamplePath_Key() {
	fmt.Println(field.NewPath("data").Key("config.yaml"))
	// Output: data[config.yaml]
}

func ExamplePath_Segments() {
	p := field.NewPath("spec", "containers").Index(1).Child("env")
	for _, s := range p.Segments() {
		fmt.Println(s.Kind, s.Name, s.Index)
	}
	fmt.Println(p.Len(), p.Parent(), p.IsEmpty())
	// Output:
	// 1 spec 0
	// 1 containers 0
	// 2  1
	// 1 env 0
	// 4 spec.containers[1] false
}

func ExampleInvalid() {
	err := field.Invalid(field.NewPath("spec", "replicas"), int64(-1), "must be greater than or equal to 0")
	fmt.Println(err)
	fmt.Println(err.ErrorBody())
	// Output:
	// spec.replicas: Invalid value: -1: must be greater than or equal to 0
	// Invalid value: -1: must be greater than or equal to 0
}

func ExampleTypeInvalid() {
	fmt.Println(field.TypeInvalid(field.NewPath("spec", "replicas"), "three", "must be of type integer"))
	// Output: spec.replicas: Invalid value: "three": must be of type integer
}

func ExampleRequired() {
	fmt.Println(field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	// Output: metadata.name: Required value: name or generateName is required
}

func ExampleForbidden() {
	fmt.Println(field.Forbidden(field.NewPath("spec", "selector"), "field is immutable"))
	// Output: spec.selector: Forbidden: field is immutable
}

func ExampleNotFound() {
	fmt.Println(field.NotFound(field.NewPath("spec", "volumes").Index(0).Child("name"), "data"))
	// Output: spec.volumes[0].name: Not found: "data"
}

func ExampleDuplicate() {
	fmt.Println(field.Duplicate(field.NewPath("spec", "ports").Index(1), map[string]any{"port": int64(80), "protocol": "TCP"}))
	// Output: spec.ports[1]: Duplicate value: {"port":80,"protocol":"TCP"}
}

func ExampleNotSupported() {
	fmt.Println(field.NotSupported(field.NewPath("spec", "restartPolicy"), "Sometimes", []string{"Always", "OnFailure", "Never"}))
	// Output: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"
}

func ExampleTooLong() {
	fmt.Println(field.TooLong(field.NewPath("metadata", "annotations"), "...", 262144))
	// Output: metadata.annotations: Too long: may not be more than 262144 bytes
}

func ExampleTooLongCharacters() {
	fmt.Println(field.TooLongCharacters(field.NewPath("metadata", "name"), "a-very-long-name", 1))
	// Output: metadata.name: Too long: may not be more than 1 character
}

func ExampleTooShort() {
	fmt.Println(field.TooShort(field.NewPath("spec", "key"), "ab", 3))
	// Output: spec.key: Too short: must be at least 3 characters
}

func ExampleTooMany() {
	fmt.Println(field.TooMany(field.NewPath("spec", "items"), 12, 10))
	fmt.Println(field.TooMany(field.NewPath("spec", "items"), -1, 1))
	// Output:
	// spec.items: Too many: 12: must have at most 10 items
	// spec.items: Too many: must have at most 1 item
}

func ExampleTooFew() {
	fmt.Println(field.TooFew(field.NewPath("spec", "items"), 0, 1))
	// Output: spec.items: Too few: 0: must have at least 1 item
}

func ExampleInternalError() {
	cause := errors.New("etcd is unreachable")
	err := field.InternalError(field.NewPath("spec"), cause)
	fmt.Println(err)
	fmt.Println(errors.Is(err, cause))
	// Output:
	// spec: Internal error: etcd is unreachable
	// true
}

func ExampleErrorType_String() {
	fmt.Println(field.ErrorTypeNotSupported, field.ErrorTypeNotSupported.String() == "Unsupported value")
	// Output: Unsupported value true
}

func ExampleErrorList_ToAggregate() {
	spec := field.NewPath("spec")
	errs := field.ErrorList{
		field.Invalid(spec.Child("replicas"), int64(-1), "must be greater than or equal to 0"),
		field.Required(spec.Child("selector"), ""),
		field.Required(spec.Child("selector"), ""), // same message: kept once
	}
	err := errs.ToAggregate()
	fmt.Println(err)
	var fe *field.Error
	fmt.Println(errors.As(err, &fe), fe.Field)
	fmt.Println(errs[:1].ToAggregate())
	fmt.Println(field.ErrorList{}.ToAggregate() == nil)
	// Output:
	// [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]
	// true spec.replicas
	// spec.replicas: Invalid value: -1: must be greater than or equal to 0
	// true
}

func ExampleErrorList_Filter() {
	p := field.NewPath("spec")
	errs := field.ErrorList{
		field.Required(p.Child("a"), ""),
		field.Invalid(p.Child("b"), "x", "bad"),
	}
	fmt.Println(errs.Filter(field.OfType(field.ErrorTypeRequired)).ToAggregate())
	// Output: spec.b: Invalid value: "x": bad
}

func ExampleOfType() {
	p := field.NewPath("spec")
	errs := field.ErrorList{field.Required(p.Child("a"), ""), field.Forbidden(p.Child("b"), "no")}
	for _, e := range errs {
		fmt.Println(field.OfType(field.ErrorTypeForbidden)(e))
	}
	// Output:
	// false
	// true
}

func ExamplePath_Parent() {
	p := field.NewPath("spec", "containers").Index(0)
	fmt.Println(p.Parent(), p.Parent().Parent(), field.Path{}.Parent().IsEmpty())
	// Output: spec.containers spec true
}

func ExampleError_Unwrap() {
	cause := errors.New("decoder failed")
	err := fmt.Errorf("validating: %w", field.InternalError(field.NewPath("spec"), cause))
	var fe *field.Error
	fmt.Println(errors.As(err, &fe), string(fe.Type), errors.Is(err, cause))
	// Output: true InternalError true
}
