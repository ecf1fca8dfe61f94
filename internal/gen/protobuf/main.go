// Command protobuf generates internal/codec/protobuf/table.json.gz, the Kubernetes protobuf
// field table of every built-in kind of writepath's catalogue: for each message (a k8s.io Go
// type whose pointer has the generated MarshalToSizedBuffer method) its fields with their
// protobuf number, wire kind, JSON name and omitempty, whether they are pointers (written only
// when set), repeated, maps, nested messages (by index) or inline (a JSON-inlined embedded
// struct that protobuf nests, such as Volume's VolumeSource), and the special encodings
// (metav1.Time, MicroTime, Duration, resource.Quantity, IntOrString, RawExtension, FieldsV1,
// apiextensions JSON and its JSONSchemaPropsOr* unions, named slices such as ExtraValue).
//
// The messages are found by reflection over the `protobuf:"..."` and `json:"..."` struct tags of
// the Go types client-go's, apiextensions-apiserver's and kube-aggregator's schemes register for
// the catalogue's kinds (schema/data/kinds.json), their List kinds, and the meta.k8s.io/v1 kinds
// a client sends or receives (Status, the option kinds, WatchEvent, PartialObjectMetadata). The
// generator fails on any shape it does not know how to encode, so the table never guesses.
//
// It is a package of the internal/gen module, so k8s.io/* stays out of the library's go.mod.
// Run it from the repository root with
//
//	go generate ./internal/codec/protobuf/
//
// or directly with `cd internal/gen && go run ./protobuf -out ../codec/protobuf`. With -verify it
// regenerates in memory and fails if the committed file differs.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/writepath/writepath/internal/gen/genio"
)

const outFile = "table.json.gz"

func main() {
	out := flag.String("out", "../codec/protobuf", "directory table.json.gz is written to")
	kinds := flag.String("kinds", "../../schema/data/kinds.json", "the catalogue internal/gen writes")
	verify := flag.Bool("verify", false, "do not write; fail if the file in -out differs from what would be generated")
	flag.Parse()
	if err := run(*out, *kinds, *verify); err != nil {
		fmt.Fprintln(os.Stderr, "protobuf:", err)
		os.Exit(1)
	}
}

func run(out, kindsPath string, verify bool) error {
	kinds, err := genio.ReadKinds(kindsPath)
	if err != nil {
		return err
	}
	t, err := Generate(kinds)
	if err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	err = genio.Write(filepath.Join(out, outFile), append(data, '\n'), verify)
	if errors.Is(err, genio.ErrStale) {
		return fmt.Errorf("%w: run `go generate ./internal/codec/protobuf/` and commit it", err)
	}
	return err
}

// Table is the generated file.
type Table struct {
	// Source says what the table was generated from.
	Source   string    `json:"source"`
	Kinds    []Kind    `json:"kinds"`
	Messages []Message `json:"messages"`
}

// Kind maps an apiVersion and kind to the message of its Go type.
type Kind struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Message    int    `json:"m"`
}

// Message is one Go type with a protobuf encoding.
type Message struct {
	// Name is the Go type, "pkgpath.Name".
	Name string `json:"name"`
	// Special names an encoding the fields alone do not describe: "time", "microtime",
	// "quantity" (no protobuf tags; their own marshalers), "duration", "intorstring",
	// "rawextension", "fieldsv1", "json", "propsorbool", "propsorarray", "propsorstringarray"
	// (generated protobuf, custom JSON), "items" (a named slice encoded as {items: 1}).
	Special string  `json:"special,omitempty"`
	Fields  []Field `json:"fields,omitempty"`
}

// Field is one protobuf field of a message, in field number order.
type Field struct {
	Number int    `json:"n"`
	JSON   string `json:"j,omitempty"`
	// OmitEmpty is the json tag's omitempty.
	OmitEmpty bool `json:"o,omitempty"`
	// OmitZero is the json tag's omitzero (metadata.creationTimestamp since 1.35).
	OmitZero bool `json:"z,omitempty"`
	// Type is the value's kind: string, bytes, bool, int32, int64, uint32, uint64, float64,
	// message (Message holds its index), map (Key and Value describe the entries).
	Type    string `json:"t"`
	Message int    `json:"m,omitempty"`
	// Pointer fields are written only when set (nil pointers are absent on the wire).
	Pointer bool `json:"p,omitempty"`
	// Repeated fields are slices, one wire field per element, unpacked.
	Repeated bool `json:"r,omitempty"`
	// Inline fields are embedded structs JSON inlines into the parent object.
	Inline bool `json:"i,omitempty"`
	// Map entries: key type (always string) and value type, message or bytes.
	MapValue        string `json:"mv,omitempty"`
	MapValueMessage int    `json:"mm,omitempty"`
}

// special Go types, by "pkgpath.Name".
var specials = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                                                  "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                                             "microtime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":                                              "duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":                                              "fieldsv1",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                                              "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":                                            "intorstring",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                                               "rawextension",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":                              "json",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":             "propsorbool",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":            "propsorarray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray":      "propsorstringarray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON":                         "json",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrBool":        "propsorbool",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrArray":       "propsorarray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSONSchemaPropsOrStringArray": "propsorstringarray",
}

// noTags are specials whose protobuf encoding is hand-written in apimachinery, not in tags.
var noTags = map[string]bool{"time": true, "microtime": true, "quantity": true}

// metaKinds are the meta.k8s.io/v1 kinds a client sends or receives besides the catalogue's.
var metaKinds = []struct {
	apiVersion string
	obj        any
}{
	{"v1", &metav1.Status{}},
	{"meta.k8s.io/v1", &metav1.Status{}},
	{"meta.k8s.io/v1", &metav1.DeleteOptions{}},
	{"meta.k8s.io/v1", &metav1.ListOptions{}},
	{"meta.k8s.io/v1", &metav1.GetOptions{}},
	{"meta.k8s.io/v1", &metav1.CreateOptions{}},
	{"meta.k8s.io/v1", &metav1.UpdateOptions{}},
	{"meta.k8s.io/v1", &metav1.PatchOptions{}},
	{"meta.k8s.io/v1", &metav1.WatchEvent{}},
	{"meta.k8s.io/v1", &metav1.PartialObjectMetadata{}},
	{"meta.k8s.io/v1", &metav1.PartialObjectMetadataList{}},
	{"meta.k8s.io/v1beta1", &metav1beta1.PartialObjectMetadataList{}},
}

// Generate builds the table for the catalogue's kinds.
func Generate(kinds []genio.Kind) (*Table, error) {
	scheme, err := genio.Scheme()
	if err != nil {
		return nil, err
	}
	known := scheme.AllKnownTypes()
	byName := map[string]reflect.Type{}
	for _, t := range known {
		byName[t.PkgPath()+"."+t.Name()] = t
	}
	b := &builder{ids: map[reflect.Type]int{}}
	table := &Table{Source: "k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver, k8s.io/kube-aggregator v0.37.2 Go types (protobuf and json struct tags), for the kinds of schema/data/kinds.json; go generate ./internal/codec/protobuf/"}
	seen := map[[2]string]bool{}
	addKind := func(apiVersion, kind string, t reflect.Type) error {
		if seen[[2]string{apiVersion, kind}] {
			return nil
		}
		seen[[2]string{apiVersion, kind}] = true
		id, err := b.message(t)
		if err != nil {
			return fmt.Errorf("%s %s: %w", apiVersion, kind, err)
		}
		table.Kinds = append(table.Kinds, Kind{APIVersion: apiVersion, Kind: kind, Message: id})
		return nil
	}
	sorted := append([]genio.Kind(nil), kinds...)
	sort.Slice(sorted, func(i, j int) bool {
		a, c := sorted[i], sorted[j]
		if a.Group != c.Group {
			return a.Group < c.Group
		}
		if a.Version != c.Version {
			return a.Version < c.Version
		}
		return a.Kind < c.Kind
	})
	for _, k := range sorted {
		t, ok := byName[k.GoType]
		if !ok {
			return nil, fmt.Errorf("%s: no Go type registered", k.GoType)
		}
		apiVersion := k.Version
		if k.Group != "" {
			apiVersion = k.Group + "/" + k.Version
		}
		if !isMessage(t) {
			// A kind without protobuf (none today): JSON only, as the apiserver serves it.
			continue
		}
		if err := addKind(apiVersion, k.Kind, t); err != nil {
			return nil, err
		}
		for _, v := range k.Verbs {
			if v != "list" {
				continue
			}
			gvk := scheme.AllKnownTypes()
			lt, ok := gvk[gvkOf(k.Group, k.Version, k.Kind+"List")]
			if !ok {
				return nil, fmt.Errorf("%s/%s %sList: not registered", k.Group, k.Version, k.Kind)
			}
			if err := addKind(apiVersion, k.Kind+"List", lt); err != nil {
				return nil, err
			}
		}
	}
	for _, mk := range metaKinds {
		t := reflect.TypeOf(mk.obj).Elem()
		if err := addKind(mk.apiVersion, t.Name(), t); err != nil {
			return nil, err
		}
	}
	table.Messages = b.messages
	return table, nil
}

type builder struct {
	ids      map[reflect.Type]int
	messages []Message
}

var sizedBuffer = "MarshalToSizedBuffer"

func isMessage(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName(sizedBuffer)
	return ok
}

func typeName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// message returns the index of the message of Go type t, adding it and what it reaches first.
func (b *builder) message(t reflect.Type) (int, error) {
	if id, ok := b.ids[t]; ok {
		return id, nil
	}
	if !isMessage(t) {
		return 0, fmt.Errorf("%s: not a protobuf message", t)
	}
	id := len(b.messages)
	b.ids[t] = id
	name := typeName(t)
	b.messages = append(b.messages, Message{Name: name, Special: specials[name]})
	special := specials[name]
	if noTags[special] {
		return id, nil
	}
	var fields []Field
	switch t.Kind() {
	case reflect.Slice:
		// A named slice with its own message (ExtraValue, OptionalNames...): {repeated items = 1}.
		f, err := b.value(t.Elem())
		if err != nil {
			return 0, fmt.Errorf("%s items: %w", t, err)
		}
		f.Number, f.Repeated = 1, true
		b.messages[id].Special = "items"
		fields = []Field{f}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			ptag, hasP := sf.Tag.Lookup("protobuf")
			jtag := sf.Tag.Get("json")
			jname, jopts, _ := strings.Cut(jtag, ",")
			if !hasP {
				if sf.Anonymous && sf.Type == reflect.TypeFor[metav1.TypeMeta]() {
					continue // apiVersion and kind travel in the envelope
				}
				if jtag == "-" || !sf.IsExported() {
					continue
				}
				return 0, fmt.Errorf("%s.%s: JSON-visible field without a protobuf tag", t, sf.Name)
			}
			parts := strings.Split(ptag, ",")
			if len(parts) < 3 {
				return 0, fmt.Errorf("%s.%s: protobuf tag %q", t, sf.Name, ptag)
			}
			num, err := strconv.Atoi(parts[1])
			if err != nil {
				return 0, fmt.Errorf("%s.%s: protobuf tag %q", t, sf.Name, ptag)
			}
			ft := sf.Type
			f := Field{Number: num, JSON: jname}
			if jtag == "-" {
				f.JSON = ""
			}
			for _, o := range strings.Split(jopts, ",") {
				if o == "omitempty" {
					f.OmitEmpty = true
				}
				if o == "omitzero" {
					f.OmitZero = true
				}
				if o == "inline" {
					f.Inline = true
				}
			}
			if sf.Anonymous && jname == "" && jtag != "-" {
				f.Inline = true
			}
			if ft.Kind() == reflect.Pointer {
				f.Pointer = true
				ft = ft.Elem()
			}
			var vf Field
			switch {
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 && !isMessage(ft):
				el := ft.Elem()
				if el.Kind() == reflect.Pointer {
					return 0, fmt.Errorf("%s.%s: slice of pointers", t, sf.Name)
				}
				vf, err = b.value(el)
				vf.Repeated = true
			case ft.Kind() == reflect.Map && !isMessage(ft):
				vf, err = b.mapField(ft)
			default:
				vf, err = b.value(ft)
			}
			if err != nil {
				return 0, fmt.Errorf("%s.%s: %w", t, sf.Name, err)
			}
			if f.Inline && vf.Type != "message" {
				return 0, fmt.Errorf("%s.%s: inline non-message", t, sf.Name)
			}
			vf.Number, vf.JSON, vf.OmitEmpty, vf.OmitZero, vf.Inline, vf.Pointer = f.Number, f.JSON, f.OmitEmpty, f.OmitZero, f.Inline, f.Pointer
			// The tag's wire kind is not authoritative (ListMeta.remainingItemCount says
			// "bytes", the generated marshaler writes a varint): the Go type decides, as it
			// does for the generated code.
			fields = append(fields, vf)
		}
	default:
		return 0, fmt.Errorf("%s: message of kind %s", t, t.Kind())
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Number < fields[j].Number })
	for i := 1; i < len(fields); i++ {
		if fields[i].Number == fields[i-1].Number {
			return 0, fmt.Errorf("%s: field number %d twice", t, fields[i].Number)
		}
	}
	b.messages[id].Fields = fields
	return id, nil
}

// value describes a single (non-repeated, non-map) value of Go type t.
func (b *builder) value(t reflect.Type) (Field, error) {
	if isMessage(t) {
		id, err := b.message(t)
		return Field{Type: "message", Message: id}, err
	}
	switch t.Kind() {
	case reflect.String:
		return Field{Type: "string"}, nil
	case reflect.Bool:
		return Field{Type: "bool"}, nil
	case reflect.Int32:
		return Field{Type: "int32"}, nil
	case reflect.Int64:
		return Field{Type: "int64"}, nil
	case reflect.Uint32:
		return Field{Type: "uint32"}, nil
	case reflect.Uint64:
		return Field{Type: "uint64"}, nil
	case reflect.Float64:
		return Field{Type: "float64"}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return Field{Type: "bytes"}, nil
		}
	}
	return Field{}, fmt.Errorf("unsupported type %s", t)
}

func (b *builder) mapField(t reflect.Type) (Field, error) {
	if t.Key().Kind() != reflect.String {
		return Field{}, fmt.Errorf("map key %s", t.Key())
	}
	v, err := b.value(t.Elem())
	if err != nil {
		return Field{}, err
	}
	switch v.Type {
	case "string", "bytes":
		return Field{Type: "map", MapValue: v.Type}, nil
	case "message":
		return Field{Type: "map", MapValue: "message", MapValueMessage: v.Message}, nil
	}
	return Field{}, fmt.Errorf("map value %s", t.Elem())
}

func gvkOf(group, version, kind string) runtimeschema.GroupVersionKind {
	return runtimeschema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}
