package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// BuiltinParser returns the structured-merge-diff parser holding the type of every built-in type
// of Kubernetes 1.37 (the apply-configuration schemas of client-go, apiextensions-apiserver and
// kube-aggregator, plus autoscaling/v1 Scale), named by their OpenAPI definition names
// ("io.k8s.api.apps.v1.Deployment"), and the two untyped types "__untyped_atomic_" and
// "__untyped_deduced_". It is built once, on first use, and shared: do not modify it.
func BuiltinParser() (*typed.Parser, error) { return loadSMD() }

// SMDTypeName returns the kind's structured-merge-diff type name in BuiltinParser, "" when no
// schema has the kind (the create-only review kinds such as TokenReview).
func (k *Kind) SMDTypeName() string { return k.smdType }

// SMDType returns the kind's structured-merge-diff type, the one the apiserver's field manager
// uses for server-side apply and managedFields tracking of this kind.
func (k *Kind) SMDType() (typed.ParseableType, error) {
	if k.smdType == "" {
		return typed.ParseableType{}, fmt.Errorf("%s: no structured-merge-diff type in the built-in catalogue", k.GVK)
	}
	p, err := loadSMD()
	if err != nil {
		return typed.ParseableType{}, err
	}
	return p.Type(k.smdType), nil
}

// DeducedType is the type the apiserver uses for objects without a schema: maps are separable
// (field by field) and lists atomic, everything deduced from the value itself.
func DeducedType() typed.ParseableType { return typed.DeducedParseableType }

// The JSON form of the SMD schema written by internal/gen's smd.go: the SMD YAML vocabulary.
type smdTypeDefDTO struct {
	Name string `json:"name"`
	smdAtomDTO
}

type smdAtomDTO struct {
	Scalar string      `json:"scalar"`
	List   *smdListDTO `json:"list"`
	Map    *smdMapDTO  `json:"map"`
}

type smdTypeRefDTO struct {
	NamedType string `json:"namedType"`
	smdAtomDTO
	ElementRelationship string `json:"elementRelationship"`
	Nullable            bool   `json:"nullable"`
}

type smdListDTO struct {
	ElementType         smdTypeRefDTO `json:"elementType"`
	ElementRelationship string        `json:"elementRelationship"`
	Keys                []string      `json:"keys"`
}

type smdMapDTO struct {
	Fields []struct {
		Name    string        `json:"name"`
		Type    smdTypeRefDTO `json:"type"`
		Default any           `json:"default"`
	} `json:"fields"`
	Unions []struct {
		Discriminator              *string `json:"discriminator"`
		DeduceInvalidDiscriminator bool    `json:"deduceInvalidDiscriminator"`
		Fields                     []struct {
			FieldName          string `json:"fieldName"`
			DiscriminatorValue string `json:"discriminatorValue"`
		} `json:"fields"`
	} `json:"unions"`
	ElementType         smdTypeRefDTO `json:"elementType"`
	ElementRelationship string        `json:"elementRelationship"`
}

var loadSMD = sync.OnceValues(parseSMD)

// parseSMD decodes the embedded data; loadSMD runs it once.
func parseSMD() (*typed.Parser, error) {
	data, err := readGzip("data/smd.json.gz")
	if err != nil {
		return nil, fmt.Errorf("built-in smd schema: %w", err)
	}
	var f struct {
		Types []smdTypeDefDTO `json:"types"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // defaults keep integers integral
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("built-in smd schema: %w", err)
	}
	p := &typed.Parser{}
	p.Schema.Types = make([]smdschema.TypeDef, len(f.Types))
	for i, d := range f.Types {
		a, err := d.smdAtomDTO.atom()
		if err != nil {
			return nil, fmt.Errorf("built-in smd schema: %s: %w", d.Name, err)
		}
		p.Schema.Types[i] = smdschema.TypeDef{Name: d.Name, Atom: a}
	}
	return p, nil
}

func (d *smdAtomDTO) atom() (smdschema.Atom, error) {
	var a smdschema.Atom
	if d.Scalar != "" {
		s := smdschema.Scalar(d.Scalar)
		a.Scalar = &s
	}
	if d.List != nil {
		et, err := d.List.ElementType.ref()
		if err != nil {
			return a, err
		}
		a.List = &smdschema.List{ElementType: et, ElementRelationship: smdschema.ElementRelationship(d.List.ElementRelationship), Keys: d.List.Keys}
	}
	if d.Map != nil {
		et, err := d.Map.ElementType.ref()
		if err != nil {
			return a, err
		}
		m := &smdschema.Map{ElementType: et, ElementRelationship: smdschema.ElementRelationship(d.Map.ElementRelationship)}
		if len(d.Map.Fields) > 0 {
			m.Fields = make([]smdschema.StructField, len(d.Map.Fields))
		}
		for i, fd := range d.Map.Fields {
			ft, err := fd.Type.ref()
			if err != nil {
				return a, err
			}
			m.Fields[i] = smdschema.StructField{Name: fd.Name, Type: ft, Default: numbers(fd.Default)}
		}
		for _, ud := range d.Map.Unions {
			u := smdschema.Union{Discriminator: ud.Discriminator, DeduceInvalidDiscriminator: ud.DeduceInvalidDiscriminator}
			for _, uf := range ud.Fields {
				u.Fields = append(u.Fields, smdschema.UnionField{FieldName: uf.FieldName, DiscriminatorValue: uf.DiscriminatorValue})
			}
			m.Unions = append(m.Unions, u)
		}
		a.Map = m
	}
	return a, nil
}

func (d *smdTypeRefDTO) ref() (smdschema.TypeRef, error) {
	a, err := d.smdAtomDTO.atom()
	if err != nil {
		return smdschema.TypeRef{}, err
	}
	r := smdschema.TypeRef{Inlined: a, Nullable: d.Nullable}
	if d.NamedType != "" {
		n := d.NamedType
		r.NamedType = &n
	}
	if d.ElementRelationship != "" {
		er := smdschema.ElementRelationship(d.ElementRelationship)
		r.ElementRelationship = &er
	}
	return r, nil
}

// numbers turns the JSON numbers of a field default into the value model SMD reads defaults with
// (the YAML decoder's): integers as int64, other numbers as float64.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
		return v
	default:
		return v
	}
}

// SortedTypeErrors is err with structured-merge-diff's validation errors (typed.ValidationErrors,
// from converting an object to its typed form) ordered by path, then message. SMD lists them in
// Go map iteration order, which is random (the apiserver's message order varies from one request
// to the next); writepath's is deterministic. Any other error is returned as it is.
func SortedTypeErrors(err error) error {
	var ve typed.ValidationErrors
	if !errors.As(err, &ve) || len(ve) < 2 {
		return err
	}
	out := append(typed.ValidationErrors(nil), ve...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].ErrorMessage < out[j].ErrorMessage
	})
	return out
}
