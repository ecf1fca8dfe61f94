package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// smdSources are the generated apply-configuration schemas the catalogue is built from: the
// schemas applyconfiguration-gen derives from the same OpenAPI definitions the apiserver's field
// manager converts with schemaconv, so their list and map semantics are the apiserver's.
var smdSources = []struct{ module, file string }{
	{"k8s.io/client-go", "applyconfigurations/internal/internal.go"},
	{"k8s.io/apiextensions-apiserver", "pkg/client/applyconfiguration/internal/internal.go"},
	{"k8s.io/kube-aggregator", "pkg/client/applyconfiguration/internal/internal.go"},
}

type smdSchema struct {
	types map[string]schema.TypeDef
}

func (s *smdSchema) has(name string) bool { _, ok := s.types[name]; return ok }

// buildSMD parses every source schema, merges them (a type defined by several sources, such as
// ObjectMeta, must be defined identically) and adds the types they lack.
func buildSMD() (*smdSchema, error) {
	out := &smdSchema{types: map[string]schema.TypeDef{}}
	for _, src := range smdSources {
		yamlText, err := schemaYAMLFromSource(src.module, src.file)
		if err != nil {
			return nil, err
		}
		p, err := typed.NewParser(typed.YAMLObject(yamlText))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src.module, err)
		}
		for _, td := range p.Schema.Types {
			if prev, ok := out.types[td.Name]; ok {
				if !reflect.DeepEqual(prev, td) {
					return nil, fmt.Errorf("type %s is defined differently by %s and an earlier source", td.Name, src.module)
				}
				continue
			}
			out.types[td.Name] = td
		}
	}
	// autoscaling/v1 Scale is the body of every built-in scale subresource; no apply-configuration
	// schema has it because no client applies it, but the apiserver's field manager tracks it.
	for _, t := range []reflect.Type{
		reflect.TypeFor[autoscalingv1.Scale](),
		reflect.TypeFor[autoscalingv1.ScaleSpec](),
		reflect.TypeFor[autoscalingv1.ScaleStatus](),
	} {
		td, err := deriveTypeDef(t, out)
		if err != nil {
			return nil, err
		}
		if out.has(td.Name) {
			return nil, fmt.Errorf("type %s already present; remove its derivation", td.Name)
		}
		out.types[td.Name] = td
	}
	return out, nil
}

// schemaYAMLFromSource reads the schemaYAML literal of a generated internal.go in the module cache.
// The packages are internal to their modules, so the literal is read from source instead of
// imported; the file is exactly what the module at the required version ships.
func schemaYAMLFromSource(module, file string) (string, error) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		return "", fmt.Errorf("locating %s: %w", module, err)
	}
	path := filepath.Join(strings.TrimSpace(string(dir)), file)
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return "", err
	}
	var lit string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "schemaYAML" || len(vs.Values) != 1 {
			return true
		}
		call, ok := vs.Values[0].(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		if bl, ok := call.Args[0].(*ast.BasicLit); ok && bl.Kind == token.STRING {
			lit, err = strconv.Unquote(bl.Value)
		}
		return false
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if lit == "" {
		return "", fmt.Errorf("%s: no schemaYAML literal", path)
	}
	return lit, nil
}

// openAPIName is the OpenAPI definition name kube-openapi gives a Go type: the package path with
// its leading domain reversed ("k8s.io/api/apps/v1" -> "io.k8s.api.apps.v1"), then the type name.
func openAPIName(t reflect.Type) string {
	pkg := t.PkgPath()
	parts := strings.Split(pkg, "/")
	domain := strings.Split(parts[0], ".")
	for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
		domain[i], domain[j] = domain[j], domain[i]
	}
	parts[0] = strings.Join(domain, ".")
	return strings.Join(parts, ".") + "." + t.Name()
}

// deriveTypeDef builds the SMD type of a Go struct the way openapi-gen and schemaconv would for a
// struct without list, map or union markers: fields sorted by JSON name, scalars by Go kind, named
// structs by reference, and openapi-gen's enforced defaults (a non-pointer struct defaults to {},
// a non-omitempty non-pointer scalar to its zero value). Anything else is refused rather than
// guessed.
func deriveTypeDef(t reflect.Type, known *smdSchema) (schema.TypeDef, error) {
	m := &schema.Map{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			if sf.Type.Name() == "TypeMeta" {
				m.Fields = append(m.Fields,
					schema.StructField{Name: "apiVersion", Type: scalarRef(schema.String)},
					schema.StructField{Name: "kind", Type: scalarRef(schema.String)})
				continue
			}
			return schema.TypeDef{}, fmt.Errorf("%s.%s: embedded field not supported", t, sf.Name)
		}
		if name == "" || name == "-" {
			return schema.TypeDef{}, fmt.Errorf("%s.%s: no json name", t, sf.Name)
		}
		omitEmpty := strings.Contains(","+opts+",", ",omitempty,")
		field := schema.StructField{Name: name}
		ft := sf.Type
		switch ft.Kind() {
		case reflect.Struct:
			ref := openAPIName(ft)
			if !known.has(ref) && ref != openAPIName(reflect.TypeFor[autoscalingv1.ScaleSpec]()) && ref != openAPIName(reflect.TypeFor[autoscalingv1.ScaleStatus]()) {
				return schema.TypeDef{}, fmt.Errorf("%s.%s: type %s unknown", t, sf.Name, ref)
			}
			field.Type = schema.TypeRef{NamedType: &ref}
			field.Default = map[any]any{}
		case reflect.Int32, reflect.Int64, reflect.Int:
			field.Type = scalarRef(schema.Numeric)
			if !omitEmpty {
				field.Default = 0
			}
		case reflect.String:
			field.Type = scalarRef(schema.String)
			if !omitEmpty {
				field.Default = ""
			}
		case reflect.Bool:
			field.Type = scalarRef(schema.Boolean)
			if !omitEmpty {
				field.Default = false
			}
		default:
			return schema.TypeDef{}, fmt.Errorf("%s.%s: kind %s needs markers; derive it elsewhere", t, sf.Name, ft.Kind())
		}
		m.Fields = append(m.Fields, field)
	}
	sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Name < m.Fields[j].Name })
	return schema.TypeDef{Name: openAPIName(t), Atom: schema.Atom{Map: m}}, nil
}

func scalarRef(s schema.Scalar) schema.TypeRef {
	return schema.TypeRef{Inlined: schema.Atom{Scalar: &s}}
}

// The JSON form of the schema, shared with schema/smd.go (which decodes it): the SMD YAML
// vocabulary in JSON, with defaults as JSON values.

type smdSchemaDTO struct {
	Types []smdTypeDefDTO `json:"types"`
}

type smdTypeDefDTO struct {
	Name string `json:"name"`
	smdAtomDTO
}

type smdAtomDTO struct {
	Scalar string      `json:"scalar,omitempty"`
	List   *smdListDTO `json:"list,omitempty"`
	Map    *smdMapDTO  `json:"map,omitempty"`
}

type smdTypeRefDTO struct {
	NamedType string `json:"namedType,omitempty"`
	smdAtomDTO
	ElementRelationship string `json:"elementRelationship,omitempty"`
	Nullable            bool   `json:"nullable,omitempty"`
}

type smdListDTO struct {
	ElementType         smdTypeRefDTO `json:"elementType"`
	ElementRelationship string        `json:"elementRelationship,omitempty"`
	Keys                []string      `json:"keys,omitempty"`
}

type smdMapDTO struct {
	Fields              []smdFieldDTO `json:"fields,omitempty"`
	Unions              []smdUnionDTO `json:"unions,omitempty"`
	ElementType         smdTypeRefDTO `json:"elementType"`
	ElementRelationship string        `json:"elementRelationship,omitempty"`
}

type smdFieldDTO struct {
	Name    string        `json:"name"`
	Type    smdTypeRefDTO `json:"type"`
	Default any           `json:"default,omitempty"`
}

type smdUnionDTO struct {
	Discriminator              *string            `json:"discriminator,omitempty"`
	DeduceInvalidDiscriminator bool               `json:"deduceInvalidDiscriminator,omitempty"`
	Fields                     []smdUnionFieldDTO `json:"fields,omitempty"`
}

type smdUnionFieldDTO struct {
	FieldName          string `json:"fieldName"`
	DiscriminatorValue string `json:"discriminatorValue"`
}

func (s *smdSchema) dto() smdSchemaDTO {
	names := make([]string, 0, len(s.types))
	for n := range s.types {
		names = append(names, n)
	}
	sort.Strings(names)
	out := smdSchemaDTO{Types: make([]smdTypeDefDTO, 0, len(names))}
	for _, n := range names {
		td := s.types[n]
		out.Types = append(out.Types, smdTypeDefDTO{Name: n, smdAtomDTO: atomDTO(td.Atom)})
	}
	return out
}

func atomDTO(a schema.Atom) smdAtomDTO {
	var out smdAtomDTO
	if a.Scalar != nil {
		out.Scalar = string(*a.Scalar)
	}
	if a.List != nil {
		out.List = &smdListDTO{
			ElementType:         refDTO(a.List.ElementType),
			ElementRelationship: string(a.List.ElementRelationship),
			Keys:                a.List.Keys,
		}
	}
	if a.Map != nil {
		m := &smdMapDTO{
			ElementType:         refDTO(a.Map.ElementType),
			ElementRelationship: string(a.Map.ElementRelationship),
		}
		for _, f := range a.Map.Fields {
			m.Fields = append(m.Fields, smdFieldDTO{Name: f.Name, Type: refDTO(f.Type), Default: jsonValue(f.Default)})
		}
		for _, u := range a.Map.Unions {
			ud := smdUnionDTO{Discriminator: u.Discriminator, DeduceInvalidDiscriminator: u.DeduceInvalidDiscriminator}
			for _, f := range u.Fields {
				ud.Fields = append(ud.Fields, smdUnionFieldDTO{FieldName: f.FieldName, DiscriminatorValue: f.DiscriminatorValue})
			}
			m.Unions = append(m.Unions, ud)
		}
		out.Map = m
	}
	return out
}

func refDTO(r schema.TypeRef) smdTypeRefDTO {
	out := smdTypeRefDTO{smdAtomDTO: atomDTO(r.Inlined), Nullable: r.Nullable}
	if r.NamedType != nil {
		if *r.NamedType == "" {
			panic("empty named type")
		}
		out.NamedType = *r.NamedType
	}
	if r.ElementRelationship != nil {
		out.ElementRelationship = string(*r.ElementRelationship)
	}
	return out
}

// jsonValue turns a YAML-decoded default (map[any]any keys) into a JSON-encodable value.
func jsonValue(v any) any {
	switch v := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonValue(e)
		}
		return out
	default:
		return v
	}
}
