package schema_test

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1, maximum: 10}
              color: {type: string, enum: [red, blue], default: red}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer, default: 80}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`

func mustCRD() *schema.CRD {
	crd, err := schema.FromCRDBytes([]byte(widgetCRD))
	if err != nil {
		panic(err)
	}
	return crd
}

func mustObject(yaml string) map[string]any {
	obj, err := codec.DecodeObject([]byte(yaml))
	if err != nil {
		panic(err)
	}
	return obj
}

func printJSON(v any) {
	b, err := codec.EncodeJSON(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
}

// FromCRD reads a CustomResourceDefinition; a bad one is rejected with the apiserver's 422.
func ExampleFromCRD() {
	crd := mustCRD()
	v := crd.Version("v1")
	fmt.Println(v.GVK(), crd.Namespaced(), v.Subresources.Status, v.Structural.Properties["spec"].Properties["ports"].XListType)

	_, err := schema.FromCRDBytes([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            properties:
              size: {type: integer}
`))
	fmt.Println(err)
	// Output:
	// example.com/v1, Kind=Widget true true map
	// CustomResourceDefinition.apiextensions.k8s.io "gadgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields
}

// Process runs a create through pruning, defaulting and validation.
func ExampleVersion_Process() {
	v := mustCRD().Version("v1")
	res, err := v.Process(schema.Request{
		Object: mustObject(`
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: default, bogus: 1}
spec:
  size: 12
  shape: round
  ports: [{name: http}, {name: http, port: 8080}]
`),
		FieldValidation: schema.FieldValidationWarn,
	})
	if err != nil {
		panic(err)
	}
	printJSON(res.Object)
	fmt.Println(res.Warnings)
	for _, e := range res.Errors {
		fmt.Println(e)
	}
	// Output:
	// {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"generation":1,"name":"w1","namespace":"default"},"spec":{"color":"red","ports":[{"name":"http","port":80},{"name":"http","port":8080}],"size":12}}
	// [unknown field "metadata.bogus" unknown field "spec.shape"]
	// spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10
	// spec.ports[1]: Duplicate value: {"name":"http"}
}

// Strict field validation fails the request like the apiserver (400).
func ExampleFieldValidationFindings() {
	_, err := schema.FieldValidationFindings(schema.FieldValidationStrict, []string{`duplicate field "spec.size"`}, []string{"spec.shape"})
	fmt.Println(err)
	w, _ := schema.FieldValidationFindings(schema.FieldValidationWarn, nil, []string{"spec.shape"})
	fmt.Println(w)
	// Output:
	// strict decoding error: duplicate field "spec.size", unknown field "spec.shape"
	// [unknown field "spec.shape"]
}

// Prune removes what the schema does not specify and says what it removed.
func ExamplePrune() {
	s := mustCRD().Version("v1").Structural
	out, pruned := schema.Prune(mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"size":1,"x":{"y":1}},"status":{"free":true},"top":1}`),
		s, schema.PruneOptions{IsResourceRoot: true, ReturnPruned: true})
	printJSON(out)
	fmt.Println(pruned)
	// Output:
	// {"apiVersion":"example.com/v1","kind":"Widget","spec":{"size":1},"status":{"free":true}}
	// [spec.x top]
}

// Default fills in defaults, also inside list items.
func ExampleDefault() {
	s := mustCRD().Version("v1").Structural
	printJSON(schema.Default(mustObject(`{"spec":{"ports":[{"name":"a"},{"name":"b","port":1}]}}`), s))
	// Output:
	// {"spec":{"color":"red","ports":[{"name":"a","port":80},{"name":"b","port":1}]}}
}

// Validate reports schema violations with the apiserver's wording.
func ExampleValidator_Validate() {
	v := mustCRD().Version("v1")
	for _, e := range v.Validator().Validate(field.Path{}, mustObject(`{"spec":{"color":"green","size":"3"}}`)) {
		fmt.Println(e)
	}
	// Output:
	// spec.color: Unsupported value: "green": supported values: "red", "blue"
	// spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"
}

// ValidateUpdate ratchets: an invalid value that did not change is accepted.
func ExampleValidator_ValidateUpdate() {
	v := mustCRD().Version("v1")
	old := mustObject(`{"spec":{"size":50,"color":"red"}}`)
	fmt.Println(v.Validator().ValidateUpdate(field.Path{}, mustObject(`{"spec":{"size":50,"color":"blue"}}`), old, v.Structural))
	fmt.Println(v.Validator().ValidateUpdate(field.Path{}, mustObject(`{"spec":{"size":51,"color":"blue"}}`), old, v.Structural))
	// Output:
	// []
	// [spec.size: Invalid value: 51: spec.size in body should be less than or equal to 10]
}

// ValidateStructural lists the structural-schema violations of a schema.
func ExampleValidateStructural() {
	p, err := schema.ParseProps(mustObject(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]},"b":{}}}`), "openAPIV3Schema")
	if err != nil {
		panic(err)
	}
	s, err := schema.NewStructural(p)
	if err != nil {
		panic(err)
	}
	for _, e := range schema.ValidateStructural(field.NewPath("openAPIV3Schema"), s) {
		fmt.Println(e)
	}
	// Output:
	// openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural
	// openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields
	// openAPIV3Schema.properties[b].type: Required value: must not be empty for specified object fields
}

// ValidateListSetsAndMaps finds duplicate set items and list-map keys.
func ExampleValidateListSetsAndMaps() {
	s := mustCRD().Version("v1").Structural
	fmt.Println(schema.ValidateListSetsAndMaps(field.Path{}, s, mustObject(`{"spec":{"ports":[{"name":"a"},{"name":"a"}]}}`)))
	// Output:
	// [spec.ports[1]: Duplicate value: {"name":"a"}]
}

// Coerce is the decode-time treatment: metadata through ObjectMeta, pruning, null removal.
func ExampleVersion_Coerce() {
	v := mustCRD().Version("v1")
	out, unknown, err := v.Coerce(mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{},"creationTimestamp":"2024-05-01T10:00:00+02:00"},"spec":{"size":null,"color":null}}`), true)
	if err != nil {
		panic(err)
	}
	printJSON(out)
	fmt.Println(unknown)
	// Output:
	// {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"creationTimestamp":"2024-05-01T08:00:00Z","name":"w"},"spec":{"color":null}}
	// []
}

// SMDType gives apply the apiserver's list and map semantics for a custom resource.
func ExampleVersion_SMDType() {
	v := mustCRD().Version("v1")
	t, err := v.SMDType()
	if err != nil {
		panic(err)
	}
	tv, err := t.FromUnstructured(mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"ports":[{"name":"http","port":80}]},"status":{"free":{"form":1}}}`))
	if err != nil {
		panic(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		panic(err)
	}
	fmt.Println(v.SMDTypeName())
	fmt.Println(set)
	// Output:
	// com.example.v1.Widget
	// .apiVersion
	// .kind
	// .metadata.name
	// .spec.size
	// .spec.ports[name="http"]
	// .spec.ports[name="http"].name
	// .spec.ports[name="http"].port
	// .status.free
	// .status.free.form
}

// UnknownFields finds the fields a built-in kind does not have, for field validation.
func ExampleUnknownFields() {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		panic(err)
	}
	t, err := k.SMDType()
	if err != nil {
		panic(err)
	}
	unknown := schema.UnknownFields(t, mustObject(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"any":"x"}},"spec":{"replica":3,"template":{"spec":{"containers":[{"name":"c","imagePullPolicy":"Always","img":"x"}]}}}}`))
	fmt.Println(unknown)
	_, err = schema.FieldValidationFindings(schema.FieldValidationStrict, nil, unknown)
	fmt.Println(err)
	// Output:
	// [spec.replica spec.template.spec.containers[0].img]
	// strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].img"
}

// ValidateStatusUpdate validates a write to the status subresource.
func ExampleVersion_ValidateStatusUpdate() {
	crd, err := schema.FromCRDBytes([]byte(strings.Replace(widgetCRD, "x-kubernetes-preserve-unknown-fields: true", "properties: {phase: {type: string, enum: [Ready, Failed]}}", 1)))
	if err != nil {
		panic(err)
	}
	v := crd.Version("v1")
	old := mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"d","resourceVersion":"3"},"spec":{"size":1}}`)
	res, err := v.Process(schema.Request{Subresource: "status", Old: old,
		Object: mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"d","resourceVersion":"3"},"spec":{"size":9},"status":{"phase":"Done"}}`)})
	if err != nil {
		panic(err)
	}
	printJSON(res.Object["spec"])
	fmt.Println(res.Errors)
	// Output:
	// {"size":1}
	// [status.phase: Unsupported value: "Done": supported values: "Ready", "Failed"]
}

// ValidateEmbeddedResources checks apiVersion, kind and metadata of embedded objects.
func ExampleValidateEmbeddedResources() {
	p, err := schema.ParseProps(mustObject(`{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`), "openAPIV3Schema")
	if err != nil {
		panic(err)
	}
	s, err := schema.NewStructural(p)
	if err != nil {
		panic(err)
	}
	for _, e := range schema.ValidateEmbeddedResources(field.Path{}, mustObject(`{"template":{"kind":"Pod","metadata":{"name":"a/b"}}}`), s, false) {
		fmt.Println(e)
	}
	out, unknown, err := schema.CoerceEmbedded(mustObject(`{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","bogus":true}}}`), s, true)
	fmt.Println(out, unknown, err)
	// Output:
	// template.apiVersion: Required value
	// template.metadata.name: Invalid value: "a/b": may not contain '/'
	// map[template:map[apiVersion:v1 kind:Pod metadata:map[name:p]]] [template.metadata.bogus] <nil>
}

// PruneDefaults is what the apiserver does to defaults before serving a CRD version.
func ExamplePruneDefaults() {
	p, err := schema.ParseProps(mustObject(`{"type":"object","properties":{"spec":{"type":"object","default":{"a":1,"b":2},"properties":{"a":{"type":"integer"}}}}}`), "openAPIV3Schema")
	if err != nil {
		panic(err)
	}
	s, err := schema.NewStructural(p)
	if err != nil {
		panic(err)
	}
	pruned, err := schema.PruneDefaults(s)
	fmt.Println(s.Properties["spec"].Default, pruned.Properties["spec"].Default, err)
	// Output:
	// map[a:1 b:2] map[a:1] <nil>
}

// ParseFieldValidation checks the fieldValidation parameter.
func ExampleParseFieldValidation() {
	fv, err := schema.ParseFieldValidation("Warn")
	fmt.Println(fv, err)
	_, err = schema.ParseFieldValidation("Loose")
	fmt.Println(err)
	// Output:
	// Warn <nil>
	// fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"
}

// Read is the storage decoding: bad metadata fields are dropped, defaults applied.
func ExampleVersion_Read() {
	v := mustCRD().Version("v1")
	out, err := v.Read(mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":"oops"},"spec":{"size":2,"old":true}}`))
	if err != nil {
		panic(err)
	}
	printJSON(out)
	// Output:
	// {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"generation":1,"name":"w"},"spec":{"color":"red","size":2}}
}

// A custom resource's list keys for server-side apply come from x-kubernetes-list-type and
// list-map-keys; custom resources take no strategic merge patch.
func ExampleVersion_Explain() {
	info, err := mustCRD().Version("v1").Explain("spec.ports")
	if err != nil {
		panic(err)
	}
	fmt.Print(info)
	info, err = mustCRD().Version("v1").Explain("spec.ports.port")
	if err != nil {
		panic(err)
	}
	fmt.Println(info.SchemaType, info.Default)
	// Output:
	// PATH:           spec.ports
	// TYPE:           list
	// LIST TYPE:      map
	// SSA KEYS:       name
	// ELEMENT:        map
	// SCHEMA TYPE:    array
	// SMP STRATEGY:   not supported (custom resources take merge or JSON patches; a strategic merge patch is a 415)
	// integer 80
}

func ExampleValidFieldPath() {
	s := &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"labels": {Type: "object", AdditionalProperties: &schema.StructuralOrBool{Bool: true, Structural: &schema.Structural{Type: "string"}}},
	}}
	p, _, err := schema.ValidFieldPath(".labels['app.kubernetes.io/name']", s, true)
	fmt.Println(p.String(), err)
	_, _, err = schema.ValidFieldPath(".nope", s, true)
	fmt.Println(err)
	// Output:
	// labels[app.kubernetes.io/name] <nil>
	// does not refer to a valid field
}
