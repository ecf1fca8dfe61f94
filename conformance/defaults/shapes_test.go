package defaults

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// shapesFile is the Go-shape table schema/defaults walks: for every Go struct of
// k8s.io/api reachable from a served kind, its JSON fields in Go order (embedded structs
// flattened) with omitempty and the field's Go shape. It is generated here, by reflection over
// the reference types, because the OpenAPI-derived structured-merge-diff catalogue does not say
// which fields are pointers, slices or custom-marshalled, and the JSON encoder's output depends
// on it.
const shapesFile = "../../schema/defaults/shapes.go"

// openAPIName is the OpenAPI definition name of a Go type ("io.k8s.api.core.v1.Pod").
func openAPIName(t reflect.Type) string {
	p := t.PkgPath()
	i := strings.IndexByte(p, '/')
	dom := strings.Split(p[:i], ".")
	for l, r := 0, len(dom)-1; l < r; l, r = l+1, r-1 {
		dom[l], dom[r] = dom[r], dom[l]
	}
	return strings.Join(dom, ".") + "." + strings.ReplaceAll(p[i+1:], "/", ".") + "." + t.Name()
}

var (
	tQuantity  = reflect.TypeOf(resource.Quantity{})
	tTime      = reflect.TypeOf(metav1.Time{})
	tMicroTime = reflect.TypeOf(metav1.MicroTime{})
	tDuration  = reflect.TypeOf(metav1.Duration{})
	tIntOrStr  = reflect.TypeOf(intstr.IntOrString{})
	tRawExt    = reflect.TypeOf(runtime.RawExtension{})
	tFieldsV1  = reflect.TypeOf(metav1.FieldsV1{})
	// apiextensions.k8s.io/v1's custom-marshalled schema types.
	tJSON          = reflect.TypeOf(apiextensionsv1.JSON{})
	tPropsOrArray  = reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrArray{})
	tPropsOrBool   = reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrBool{})
	tPropsOrString = reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrStringArray{})
	tProps         = reflect.TypeOf(apiextensionsv1.JSONSchemaProps{})
)

type shapeGen struct {
	structs map[string]string
	queue   []reflect.Type
}

// shape encodes a Go type: "p." pointer, "l." slice, "m." map, "L." core/v1 ResourceList, "T:<name>" struct, and the
// scalars s (string), i (int64), j (int32), b (bool), f (float), B ([]byte), q (Quantity), t (Time),
// u (MicroTime), d (Duration), I (IntOrString), R (RawExtension), F (FieldsV1), A (anything),
// J (apiextensions JSON), and apiextensions' JSONSchemaPropsOrArray "X.", OrBool "Y.",
// OrStringArray "Z." of the JSONSchemaProps struct.
func (g *shapeGen) shape(t reflect.Type) string {
	switch t {
	case tQuantity:
		return "q"
	case tTime:
		return "t"
	case tMicroTime:
		return "u"
	case tDuration:
		return "d"
	case tIntOrStr:
		return "I"
	case tRawExt:
		return "R"
	case tFieldsV1:
		return "F"
	case tJSON:
		return "J"
	case tPropsOrArray:
		return "X." + g.shape(tProps)
	case tPropsOrBool:
		return "Y." + g.shape(tProps)
	case tPropsOrString:
		return "Z." + g.shape(tProps)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "p." + g.shape(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "B"
		}
		return "l." + g.shape(t.Elem())
	case reflect.Map:
		if t.Name() == "ResourceList" && t.PkgPath() == "k8s.io/api/core/v1" {
			return "L." + g.shape(t.Elem())
		}
		return "m." + g.shape(t.Elem())
	case reflect.String:
		return "s"
	case reflect.Bool:
		return "b"
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return "i"
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return "j"
	case reflect.Float32, reflect.Float64:
		return "f"
	case reflect.Interface:
		return "A"
	case reflect.Struct:
		n := openAPIName(t)
		if _, ok := g.structs[n]; !ok {
			g.structs[n] = ""
			g.queue = append(g.queue, t)
		}
		return "T:" + n
	}
	panic(fmt.Sprintf("unhandled type %v", t))
}

func (g *shapeGen) fields(t reflect.Type, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		name := parts[0]
		inline := false
		omit := ""
		for _, p := range parts[1:] {
			switch p {
			case "inline":
				inline = true
			case "omitempty":
				omit += "e"
			case "omitzero":
				omit += "z"
			}
		}
		if f.Anonymous && (name == "" || inline) && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, out)
			continue
		}
		if name == "" {
			name = f.Name
		}
		*out = append(*out, name+":"+omit+":"+g.shape(f.Type))
	}
}

func generateShapes(t *testing.T) []byte {
	g := &shapeGen{structs: map[string]string{}}
	for _, sc := range []*runtime.Scheme{legacyscheme.Scheme, extScheme} {
		for gvk, typ := range sc.AllKnownTypes() {
			p := typ.PkgPath()
			if gvk.Version == runtime.APIVersionInternal || !(strings.HasPrefix(p, "k8s.io/api/") ||
				p == "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1" || p == "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1") {
				continue
			}
			g.shape(typ)
		}
	}
	for len(g.queue) > 0 {
		typ := g.queue[0]
		g.queue = g.queue[1:]
		var fs []string
		g.fields(typ, &fs)
		g.structs[openAPIName(typ)] = strings.Join(fs, ";")
	}
	names := make([]string, 0, len(g.structs))
	for n := range g.structs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("// Code generated by conformance/defaults (UPDATE_GOLDEN=1 go test -run TestShapes). DO NOT EDIT.\n\n")
	b.WriteString("package defaults\n\n")
	b.WriteString("// builtinShapes holds, per OpenAPI name of a Go struct of k8s.io/api v0.37.2, its JSON\n")
	b.WriteString("// fields in Go order as name:omit:shape (see shape in conformance/defaults/shapes_test.go).\n")
	b.WriteString("var builtinShapes = map[string]string{\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q: %q,\n", n, g.structs[n])
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestShapes checks that schema's shape table is the one the reference types give.
func TestShapes(t *testing.T) {
	want := generateShapes(t)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(shapesFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(shapesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date: run UPDATE_GOLDEN=1 go test -run TestShapes in conformance/defaults", shapesFile)
	}
}
