// Command gotypes generates schema/gotypes/data/gotypes.json.gz, the Go type information of every
// built-in kind of writepath's catalogue: for each kind, the graph of k8s.io/api Go types its
// JSON decoder walks, with each struct's Go name, the JSON-visible fields (and the Go names of
// the embedded structs a promoted field is reached through) and each type's reflect string.
// gotypes.DecodeError (package schema/gotypes) reads it to word the JSON decoder's UnmarshalTypeError as kube-apiserver
// does ("json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of
// type int32").
//
// The kinds and their Go type names come from the catalogue internal/gen writes
// (schema/data/kinds.json); the Go types from client-go's, apiextensions-apiserver's and
// kube-aggregator's schemes. It is a package of the internal/gen module, so k8s.io/* stays out
// of the library's go.mod. Run it from the repository root with
//
//	go generate ./schema/...
//
// or directly with `cd internal/gen && go run ./gotypes -out ../../schema/gotypes/data`. With -verify
// it regenerates in memory and fails if the committed file differs (schema/gotypes' tests use it).
package main

import (
	"encoding"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/writepath/writepath/internal/gen/genio"
	"github.com/writepath/writepath/internal/gen/jsonfields"
)

const outFile = "gotypes.json.gz"

func main() {
	out := flag.String("out", "../../schema/gotypes/data", "directory gotypes.json.gz is written to")
	kinds := flag.String("kinds", "../../schema/data/kinds.json", "the catalogue the kinds are read from")
	verify := flag.Bool("verify", false, "do not write; fail if the file in -out differs from what would be generated")
	flag.Parse()
	if err := run(*kinds, *out, *verify); err != nil {
		fmt.Fprintln(os.Stderr, "gotypes:", err)
		os.Exit(1)
	}
}

func run(kindsFile, out string, verify bool) error {
	kinds, err := genio.ReadKinds(kindsFile)
	if err != nil {
		return err
	}
	data, err := generate(kinds)
	if err != nil {
		return err
	}
	err = genio.Write(filepath.Join(out, outFile), data, verify)
	if errors.Is(err, genio.ErrStale) {
		return fmt.Errorf("%w: run `go generate ./schema/...` and commit schema/gotypes/data", err)
	}
	return err
}

// goTypes maps "pkgpath.Name" to the Go type of every kind the reference schemes register.
func goTypes() (map[string]reflect.Type, error) {
	s, err := genio.Scheme()
	if err != nil {
		return nil, err
	}
	m := map[string]reflect.Type{}
	for _, t := range s.AllKnownTypes() {
		m[t.PkgPath()+"."+t.Name()] = t
	}
	return m, nil
}

// The output: one node per Go type reachable from a kind, in depth-first order from the kinds
// (sorted by group, version, kind), so the file is deterministic.
type dto struct {
	Kinds []kindDTO `json:"kinds"`
	Types []typeDTO `json:"types"`
}

type kindDTO struct {
	Group   string `json:"g"`
	Version string `json:"v"`
	Kind    string `json:"k"`
	Type    int    `json:"t"`
}

type typeDTO struct {
	// String is reflect.Type.String(), what UnmarshalTypeError prints ("v1.Container",
	// "*int32", "[]v1.Container", "map[string]string", "v1.ResourceList").
	String string `json:"s"`
	// Kind is reflect.Kind's name ("struct", "ptr", "slice", "map", "string", "int32", ...).
	Kind string `json:"k"`
	// Name is reflect.Type.Name() of a struct, the UnmarshalTypeError's Struct.
	Name string `json:"n,omitempty"`
	// Unmarshaler is "pkgpath.Name" of a type whose pointer implements json.Unmarshaler: the
	// decoder hands it the raw value, and its own errors are its own.
	Unmarshaler string `json:"u,omitempty"`
	// Elem is the element type of a ptr, slice or map, -1 otherwise.
	Elem int `json:"e"`
	// Fields are a struct's JSON-visible fields in Go order; for the custom-unmarshalled types of
	// innerDecoded, their exported fields by Go name.
	Fields []fieldDTO `json:"f,omitempty"`
}

type fieldDTO struct {
	// JSON is the field's JSON name.
	JSON string `json:"j"`
	Type int    `json:"t"`
	// Via lists the Go names of the embedded fields a promoted field is reached through
	// ("ProbeHandler" for Probe's exec), which the decoder's field stack holds.
	Via []string `json:"m,omitempty"`
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// innerDecoded lists the custom-unmarshalled types whose UnmarshalJSON hands an object or an array
// to encoding/json, into one of their fields (apiextensions.k8s.io/v1's schema unions): errors
// inside come from that decoder.
var innerDecoded = map[string]bool{
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":       true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":        true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": true,
}

type builder struct {
	ids   map[reflect.Type]int
	types []typeDTO
	errs  []string
}

func generate(kinds []genio.Kind) ([]byte, error) {
	known, err := goTypes()
	if err != nil {
		return nil, err
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := kinds[i], kinds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	b := &builder{ids: map[reflect.Type]int{}}
	var out dto
	for _, k := range kinds {
		t, ok := known[k.GoType]
		if !ok {
			return nil, fmt.Errorf("kind %s/%s %s: Go type %q is in no scheme", k.Group, k.Version, k.Kind, k.GoType)
		}
		out.Kinds = append(out.Kinds, kindDTO{Group: k.Group, Version: k.Version, Kind: k.Kind, Type: b.id(t)})
	}
	if len(b.errs) > 0 {
		return nil, fmt.Errorf("types the table cannot describe:\n%s", strings.Join(b.errs, "\n"))
	}
	out.Types = b.types
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// id returns the node of t, adding t and everything the decoder can reach from it on first sight.
func (b *builder) id(t reflect.Type) int {
	if id, ok := b.ids[t]; ok {
		return id
	}
	id := len(b.types)
	b.ids[t] = id
	b.types = append(b.types, typeDTO{String: t.String(), Kind: t.Kind().String(), Elem: -1})
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		if pt.Implements(unmarshalerType) {
			name := t.PkgPath() + "." + t.Name()
			b.types[id].Unmarshaler = name
			if innerDecoded[name] {
				// Its fields by Go name: what its UnmarshalJSON decodes an object or array into.
				var fields []fieldDTO
				for i := 0; i < t.NumField(); i++ {
					if sf := t.Field(i); sf.IsExported() {
						fields = append(fields, fieldDTO{JSON: sf.Name, Type: b.id(sf.Type)})
					}
				}
				b.types[id].Fields = fields
			}
			return id
		}
		if pt.Implements(textUnmarshalerType) {
			b.errs = append(b.errs, t.String()+": an encoding.TextUnmarshaler")
		}
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		e := b.id(t.Elem())
		b.types[id].Elem = e
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			b.errs = append(b.errs, t.String()+": a map key that is not a string")
		}
		e := b.id(t.Elem())
		b.types[id].Elem = e
	case reflect.Array:
		b.errs = append(b.errs, t.String()+": an array")
	case reflect.Interface:
		if t.NumMethod() != 0 {
			b.errs = append(b.errs, t.String()+": a non-empty interface")
		}
	case reflect.Struct:
		b.types[id].Name = t.Name()
		var fields []fieldDTO
		for _, f := range jsonfields.Of(t, jsonRules) {
			if f.Quoted {
				b.errs = append(b.errs, t.String()+"."+f.Name+": a ,string field")
			}
			var via []string
			st := t
			for i, ind := range f.Index {
				sf := st.Field(ind)
				if i < len(f.Index)-1 {
					via = append(via, sf.Name)
				}
				st = sf.Type
				if st.Kind() == reflect.Pointer {
					if i < len(f.Index)-1 {
						if !sf.IsExported() {
							b.errs = append(b.errs, t.String()+"."+f.Name+": behind an embedded pointer to an unexported struct")
						}
						st = st.Elem()
					}
				}
			}
			fields = append(fields, fieldDTO{JSON: f.Name, Type: b.id(st), Via: via})
		}
		b.types[id].Fields = fields
	}
	return id
}

// jsonRules are the decoder's: sigs.k8s.io/json's fork of today's encoding/json explores
// unexported embedded structs.
var jsonRules = jsonfields.Rules{ExploreUnexportedEmbedded: true}
