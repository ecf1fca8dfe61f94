package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// The SMD types come, first, from the OpenAPI v3 documents a real kube-apiserver 1.37 serves
// (cluster/data/openapi/v3, recorded by record-openapi.sh there), converted exactly as the apiserver's field
// manager converts its definitions (schemaconv.ToSchemaFromOpenAPI, preserveUnknownFields=false):
// that is the schema server-side apply runs on. Types only served with non-default flags (alpha
// and beta versions) are not in those documents; they come from the generated apply-configuration
// schemas of client-go, apiextensions-apiserver and kube-aggregator, which applyconfiguration-gen
// derives from the same Go types and markers. The two differ only in ways SMD does not act on
// (union metadata, how untyped values are spelled out, a default on ScaleSpec.replicas), which
// conformance/schemacatalogue shows.
var smdSources = []struct{ module, file string }{
	{"k8s.io/client-go", "applyconfigurations/internal/internal.go"},
	{"k8s.io/apiextensions-apiserver", "pkg/client/applyconfiguration/internal/internal.go"},
	{"k8s.io/kube-aggregator", "pkg/client/applyconfiguration/internal/internal.go"},
}

type smdSchema struct {
	types map[string]schema.TypeDef
	// served counts the types taken from the served OpenAPI, fallback those from the
	// apply-configuration schemas.
	served, fallback int
}

func (s *smdSchema) has(name string) bool { _, ok := s.types[name]; return ok }

func buildSMD(openAPIDir string) (*smdSchema, error) {
	out := &smdSchema{types: map[string]schema.TypeDef{}}
	served, err := servedSMD(openAPIDir)
	if err != nil {
		return nil, err
	}
	for _, td := range served.Types {
		out.types[td.Name] = td
	}
	out.served = len(out.types)
	fallback := map[string]schema.TypeDef{}
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
			if prev, ok := fallback[td.Name]; ok {
				if !reflect.DeepEqual(prev, td) {
					return nil, fmt.Errorf("type %s is defined differently by %s and an earlier source", td.Name, src.module)
				}
				continue
			}
			fallback[td.Name] = td
			if !out.has(td.Name) {
				out.types[td.Name] = td
				out.fallback++
			}
		}
	}
	if !out.has("io.k8s.api.autoscaling.v1.Scale") {
		return nil, fmt.Errorf("the served OpenAPI lacks autoscaling/v1 Scale")
	}
	return out, nil
}

// servedSMD converts the definitions of every recorded OpenAPI v3 document; a definition name
// must mean the same in every document that has it.
func servedSMD(dir string) (*schema.Schema, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no OpenAPI documents", dir)
	}
	sort.Strings(paths)
	defs := map[string]*spec.Schema{}
	defJSON := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		var doc struct {
			Components struct {
				Schemas map[string]json.RawMessage `json:"schemas"`
			} `json:"components"`
		}
		err = json.NewDecoder(zr).Decode(&doc)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for name, raw := range doc.Components.Schemas {
			key, err := withoutGVKs(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", p, name, err)
			}
			if prev, ok := defJSON[name]; ok {
				if prev != key {
					return nil, fmt.Errorf("%s: definition %s differs from an earlier document's", p, name)
				}
				continue
			}
			var s spec.Schema
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", p, name, err)
			}
			defJSON[name] = key
			defs[name] = &s
		}
	}
	return schemaconv.ToSchemaFromOpenAPI(defs, false)
}

// withoutGVKs returns a definition's JSON without x-kubernetes-group-version-kind, which lists the
// group versions a document serves the type in (WatchEvent, DeleteOptions) and so differs between
// documents; schemaconv does not read it.
func withoutGVKs(raw json.RawMessage) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	delete(m, "x-kubernetes-group-version-kind")
	out, err := json.Marshal(m)
	return string(out), err
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
		// schemaconv emits fields in map order; SMD finds fields by name, so sort them (as
		// applyconfiguration-gen does) for a deterministic output.
		sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Name < m.Fields[j].Name })
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
