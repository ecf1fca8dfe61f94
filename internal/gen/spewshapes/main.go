// Command spewshapes generates controllers/deployment/data/podtemplatespec.json.gz, the Go shape
// of k8s.io/api/core/v1.PodTemplateSpec and of every type it reaches, as go-spew walks them when
// kube-controller-manager computes a pod-template-hash (controller.ComputeHash: fnv-32a over
// spew's "%#v" of the typed template). For each type: its reflect string (what spew prints in
// parentheses, "v1.Container", "*int64", "map[string]string", "v1.ResourceList"), its kind, the
// element (and key) of a pointer, slice or map, and every struct field in Go order, exported or
// not, with its Go name and where its value comes from in the stored JSON: a JSON name, or inline
// (an embedded struct whose fields the JSON object holds, such as Volume's VolumeSource).
//
// Types with their own JSON form (resource.Quantity, metav1.Time, intstr.IntOrString,
// metav1.FieldsV1) are
// marked special and their internal fields (Quantity's i, d, s and Format down to big.Int's
// words, time.Time's wall, ext and loc down to time.Location) are listed by Go name: the library
// fills them from the JSON value as the informer's protobuf decode leaves them. The generator
// fails on any shape the printer does not know (interfaces, arrays, non-string map keys, a JSON
// field without a protobuf tag, a custom-JSON type not listed), so the table never guesses.
//
// It is a package of the internal/gen module, so k8s.io/* stays out of the library's go.mod.
// Run it from the repository root with
//
//	go generate ./controllers/deployment/
//
// or directly with `cd internal/gen && go run ./spewshapes -out ../../controllers/deployment/data`.
// With -verify it regenerates in memory and fails if the committed file differs (the deployment
// package's tests use it).
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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/writepath/writepath/internal/gen/genio"
	"github.com/writepath/writepath/internal/gen/jsonfields"
)

const outFile = "podtemplatespec.json.gz"

func main() {
	out := flag.String("out", "../../controllers/deployment/data", "directory podtemplatespec.json.gz is written to")
	verify := flag.Bool("verify", false, "do not write; fail if the file in -out differs from what would be generated")
	flag.Parse()
	if err := run(*out, *verify); err != nil {
		fmt.Fprintln(os.Stderr, "spewshapes:", err)
		os.Exit(1)
	}
}

func run(out string, verify bool) error {
	t, err := Generate(reflect.TypeFor[corev1.PodTemplateSpec]())
	if err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	err = genio.Write(filepath.Join(out, outFile), append(data, '\n'), verify)
	if errors.Is(err, genio.ErrStale) {
		return fmt.Errorf("%w: run `go generate ./controllers/deployment/` and commit it", err)
	}
	return err
}

// Table is the generated file: Types[Root] is the root type.
type Table struct {
	// Source says what the table was generated from.
	Source string `json:"source"`
	Root   int    `json:"root"`
	Types  []Type `json:"types"`
}

// Type is one Go type.
type Type struct {
	// String is reflect.Type.String(), what spew prints in parentheses.
	String string `json:"s"`
	// Kind is reflect.Kind's name ("struct", "ptr", "slice", "map", "string", "bool", "int32",
	// "uint64", ...).
	Kind string `json:"k"`
	// Special names a type with its own JSON form: "quantity", "time", "intorstring",
	// "fieldsv1".
	Special string `json:"x,omitempty"`
	// Elem is the element of a ptr, slice or map, Key the key of a map; -1 otherwise.
	Elem int `json:"e"`
	Key  int `json:"key"`
	// Fields are a struct's fields in Go order.
	Fields []Field `json:"f,omitempty"`
}

// Field is one struct field.
type Field struct {
	// Name is the Go name, which spew prints before the colon.
	Name string `json:"n"`
	Type int    `json:"t"`
	// JSON is the key the value is found under: the JSON name, or for the internals of a special
	// type the Go name. Empty for an inline field.
	JSON string `json:"j,omitempty"`
	// Inline is an embedded struct whose fields are the enclosing JSON object's.
	Inline bool `json:"i,omitempty"`
}

// specials are the types with their own JSON (and protobuf) form the printer fills from the JSON
// value.
var specials = map[reflect.Type]string{
	reflect.TypeFor[resource.Quantity]():  "quantity",
	reflect.TypeFor[metav1.Time]():        "time",
	reflect.TypeFor[intstr.IntOrString](): "intorstring",
	reflect.TypeFor[metav1.FieldsV1]():    "fieldsv1",
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

type builder struct {
	ids map[reflect.Type]int
	t   []Type
	// inSpecial: the internals of a special type, listed by Go name without JSON checks.
	errs []string
}

// Generate returns the table of root and everything it reaches.
func Generate(root reflect.Type) (*Table, error) {
	b := &builder{ids: map[reflect.Type]int{}}
	r := b.id(root, false)
	if len(b.errs) > 0 {
		sort.Strings(b.errs)
		return nil, fmt.Errorf("shapes the printer cannot describe:\n%s", strings.Join(b.errs, "\n"))
	}
	return &Table{Source: "k8s.io/api v0.37.2 " + root.PkgPath() + "." + root.Name(), Root: r, Types: b.t}, nil
}

// id returns the index of t, adding t and what it reaches on first sight. internal says t is
// reached through a special type's internals, whose fields are keyed by Go name.
func (b *builder) id(t reflect.Type, internal bool) int {
	if id, ok := b.ids[t]; ok {
		return id
	}
	id := len(b.t)
	b.ids[t] = id
	b.t = append(b.t, Type{String: t.String(), Kind: t.Kind().String(), Elem: -1, Key: -1})
	special := specials[t]
	b.t[id].Special = special
	if special != "" {
		internal = true
	} else if !internal && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType) {
		b.errs = append(b.errs, t.String()+": a custom JSON form the printer does not know")
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		e := b.id(t.Elem(), internal)
		b.t[id].Elem = e
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			b.errs = append(b.errs, t.String()+": a map key that is not a string")
		}
		k := b.id(t.Key(), internal)
		e := b.id(t.Elem(), internal)
		b.t[id].Key, b.t[id].Elem = k, e
	case reflect.Struct:
		var fields []Field
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			f := Field{Name: sf.Name}
			if internal {
				f.JSON = sf.Name
			} else {
				name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
				switch {
				case !sf.IsExported() && !sf.Anonymous:
					b.errs = append(b.errs, t.String()+"."+sf.Name+": an unexported field outside a special type")
				case name == "-":
					b.errs = append(b.errs, t.String()+"."+sf.Name+": a field JSON never sets")
				case sf.Anonymous && name == "":
					if sf.Type.Kind() != reflect.Struct {
						b.errs = append(b.errs, t.String()+"."+sf.Name+": an embedded non-struct")
					}
					f.Inline = true
				case name == "":
					b.errs = append(b.errs, t.String()+"."+sf.Name+": a field without a JSON name")
				default:
					f.JSON = name
				}
				_ = opts
				if sf.Tag.Get("protobuf") == "" && !f.Inline {
					b.errs = append(b.errs, t.String()+"."+sf.Name+": a field protobuf does not carry")
				}
			}
			f.Type = b.id(sf.Type, internal)
			fields = append(fields, f)
		}
		b.t[id].Fields = fields
		if !internal {
			b.checkJSON(t)
		}
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
	default:
		b.errs = append(b.errs, t.String()+": a "+t.Kind().String())
	}
	return id
}

// checkJSON fails when the JSON names the table reaches in t (its fields and, through inline
// fields, theirs) are not exactly what encoding/json sees.
func (b *builder) checkJSON(t reflect.Type) {
	var mine []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if sf.Anonymous && name == "" {
				walk(sf.Type)
				continue
			}
			mine = append(mine, name)
		}
	}
	walk(t)
	var theirs []string
	for _, f := range jsonfields.Of(t, jsonfields.Rules{ExploreUnexportedEmbedded: true}) {
		theirs = append(theirs, f.Name)
	}
	sort.Strings(mine)
	sort.Strings(theirs)
	if strings.Join(mine, ",") != strings.Join(theirs, ",") {
		b.errs = append(b.errs, fmt.Sprintf("%s: inline fields reach %v, encoding/json %v", t, mine, theirs))
	}
}
