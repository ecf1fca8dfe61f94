package schema

import (
	"fmt"
	"sort"
	"strings"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// The structured-merge-diff type of a custom resource, built the way the apiserver builds the
// type converter of its field manager: the structural schema is unfolded (int-or-string becomes
// anyOf integer/string), turned into OpenAPI with metadata as a reference to ObjectMeta and
// apiVersion/kind as strings (also in embedded resources), then converted by kube-openapi's
// schemaconv. Lists get x-kubernetes-list-type semantics (atomic by default; set and map are
// associative, map with its keys), maps x-kubernetes-map-type (atomic or granular), and the
// parts without a schema — x-kubernetes-preserve-unknown-fields and everything below it,
// objects without properties — are deduced from the value.

const objectMetaSMDName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

var (
	untypedAtomicName  = "__untyped_atomic_"
	untypedDeducedName = "__untyped_deduced_"
	untypedScalar      = smdschema.Scalar("untyped")
)

// SMDTypeName returns the name of v's type in the schema SMDType builds: the OpenAPI model
// name the apiserver gives it ("com.example.v1.Widget" for example.com/v1 Widget).
func (v *Version) SMDTypeName() string {
	parts := strings.Split(v.crd.Group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + v.Name + "." + v.crd.Names.Kind
}

// SMDType returns the structured-merge-diff type the apiserver's field manager uses for v's
// objects (server-side apply, managedFields). It is built once per Version.
func (v *Version) SMDType() (typed.ParseableType, error) {
	v.smdOnce.Do(func() {
		if v.Structural == nil {
			v.smdType = typed.DeducedParseableType
			return
		}
		// The apiserver converts the schema as written: defaults are not pruned here.
		var st *Structural
		if st, v.smdErr = NewStructural(v.Props); v.smdErr != nil {
			return
		}
		var s *smdschema.Schema
		s, v.smdErr = SMDSchema(v.SMDTypeName(), st, v.crd.PreserveUnknownFields)
		if v.smdErr != nil {
			return
		}
		v.smdType = (&typed.Parser{Schema: smdschema.Schema{Types: s.Types}}).Type(v.SMDTypeName())
	})
	return v.smdType, v.smdErr
}

// SMDSchema converts the structural schema of a custom resource (as written: with defaults not
// pruned, unlike Version.Structural) into a structured-merge-diff schema with the resource's type under name, plus ObjectMeta (from the built-in catalogue) and
// the untyped helper types. preserveUnknownFields is the CRD's spec.preserveUnknownFields.
func SMDSchema(name string, s *Structural, preserveUnknownFields bool) (*smdschema.Schema, error) {
	c := &smdConverter{preserve: preserveUnknownFields}
	root := s.resourceOpenAPI(true)
	atom := c.visit(root, preserveUnknownFields, 0)
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("%s: %s", name, strings.Join(c.errs, "\n"))
	}
	out := &smdschema.Schema{}
	out.Types = append(out.Types, smdschema.TypeDef{Name: name, Atom: atom})
	meta, err := objectMetaClosure()
	if err != nil {
		return nil, err
	}
	out.Types = append(out.Types, meta...)
	out.Types = append(out.Types, untypedTypeDefs()...)
	return out, nil
}

// openAPINode is the part of Structural.ToKubeOpenAPI that schemaconv reads.
type openAPINode struct {
	typ        string
	format     string
	nullable   bool
	def        any
	ref        string // a named type (metadata: ObjectMeta)
	props      map[string]*openAPINode
	apSet      bool
	apAllows   bool
	apSchema   *openAPINode
	items      *openAPINode
	listType   string
	listKeys   []string
	mapType    string
	preserve   bool
	embedded   bool
	intOrStrTy bool
}

// resourceOpenAPI is Unfold + ToKubeOpenAPI + the builder's metadata/apiVersion/kind properties
// (at the resource root and at embedded resources).
func (s *Structural) resourceOpenAPI(root bool) *openAPINode {
	if s == nil {
		return nil
	}
	n := &openAPINode{typ: s.Type, nullable: s.Nullable, def: s.Default, listType: s.XListType,
		listKeys: s.XListMapKeys, mapType: s.XMapType, preserve: s.XPreserveUnknownFields, embedded: s.XEmbeddedResource}
	if s.ValueValidation != nil {
		n.format = s.ValueValidation.Format
	}
	if s.Items != nil {
		n.items = s.Items.resourceOpenAPI(false)
	}
	if s.Properties != nil {
		n.props = make(map[string]*openAPINode, len(s.Properties))
		for k, p := range s.Properties {
			n.props[k] = p.resourceOpenAPI(false)
		}
	}
	if s.AdditionalProperties != nil {
		n.apSet = true
		n.apAllows = s.AdditionalProperties.Bool
		n.apSchema = s.AdditionalProperties.Structural.resourceOpenAPI(false)
	}
	if root || s.XEmbeddedResource {
		if n.props == nil {
			n.props = map[string]*openAPINode{}
		}
		n.props["metadata"] = &openAPINode{ref: objectMetaSMDName}
		n.props["apiVersion"] = &openAPINode{typ: "string"}
		n.props["kind"] = &openAPINode{typ: "string"}
	}
	return n
}

type smdConverter struct {
	preserve bool
	errs     []string
}

// visit is schemaconv's visitSpec + parseSchema: preserve is inherited from the parent and
// switched on by x-kubernetes-preserve-unknown-fields.
func (c *smdConverter) visit(n *openAPINode, preserve bool, depth int) smdschema.Atom {
	if depth > maxSchemaDepth {
		return smdschema.Atom{Scalar: &untypedScalar}
	}
	if n.preserve {
		preserve = true
	}
	switch n.typ {
	case "":
		return smdschema.Atom{Scalar: &untypedScalar, List: c.list(n, preserve, depth), Map: c.object(n, preserve, depth)}
	case "object":
		return smdschema.Atom{Map: c.object(n, preserve, depth)}
	case "array":
		return smdschema.Atom{List: c.list(n, preserve, depth)}
	case "integer", "number":
		s := smdschema.Numeric
		return smdschema.Atom{Scalar: &s}
	case "boolean":
		s := smdschema.Boolean
		return smdschema.Atom{Scalar: &s}
	case "string":
		if n.format == "" || n.format == "byte" {
			s := smdschema.String
			return smdschema.Atom{Scalar: &s}
		}
		return smdschema.Atom{Scalar: &untypedScalar}
	default:
		c.errs = append(c.errs, fmt.Sprintf("unrecognized type: '%v'", n.typ))
		return smdschema.Atom{Scalar: &untypedScalar}
	}
}

func (c *smdConverter) ref(n *openAPINode, preserve bool, depth int) smdschema.TypeRef {
	if n == nil {
		return smdschema.TypeRef{}
	}
	if n.ref != "" {
		name := n.ref
		return smdschema.TypeRef{NamedType: &name, Nullable: n.nullable}
	}
	return smdschema.TypeRef{Inlined: c.visit(n, preserve, depth+1), Nullable: n.nullable}
}

func (c *smdConverter) object(n *openAPINode, preserve bool, depth int) *smdschema.Map {
	m := &smdschema.Map{}
	names := make([]string, 0, len(n.props))
	for k := range n.props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := n.props[k]
		m.Fields = append(m.Fields, smdschema.StructField{Name: k, Type: c.ref(p, preserve, depth), Default: p.def})
	}
	switch {
	case !n.apSet:
		if preserve || len(n.props) == 0 {
			m.ElementType = smdschema.TypeRef{NamedType: &untypedDeducedName}
		}
	case n.apSchema != nil:
		m.ElementType = c.ref(n.apSchema, preserve, depth)
	case n.apAllows:
		m.ElementType = smdschema.TypeRef{NamedType: &untypedDeducedName}
	}
	switch n.mapType {
	case "atomic":
		m.ElementRelationship = smdschema.Atomic
	case "granular":
		m.ElementRelationship = smdschema.Separable
	case "":
	default:
		c.errs = append(c.errs, fmt.Sprintf("unknown map type %v", n.mapType))
	}
	return m
}

func (c *smdConverter) list(n *openAPINode, preserve bool, depth int) *smdschema.List {
	l := &smdschema.List{ElementRelationship: smdschema.Atomic}
	switch n.listType {
	case "", "atomic":
	case "set":
		l.ElementRelationship = smdschema.Associative
	case "map":
		l.ElementRelationship = smdschema.Associative
		if n.listKeys == nil {
			c.errs = append(c.errs, "missing map keys")
		}
		l.Keys = n.listKeys
	default:
		c.errs = append(c.errs, fmt.Sprintf("unknown list type %v", n.listType))
	}
	switch {
	case n.items != nil:
		l.ElementType = c.ref(n.items, preserve, depth)
	default:
		if n.typ != "" {
			c.errs = append(c.errs, "`items` must be specified on arrays")
		}
		l.ElementType = smdschema.TypeRef{NamedType: &untypedAtomicName}
	}
	return l
}

func untypedTypeDefs() []smdschema.TypeDef {
	return []smdschema.TypeDef{
		{Name: untypedAtomicName, Atom: smdschema.Atom{
			Scalar: &untypedScalar,
			List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: &untypedAtomicName}, ElementRelationship: smdschema.Atomic},
			Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: &untypedAtomicName}, ElementRelationship: smdschema.Atomic},
		}},
		{Name: untypedDeducedName, Atom: smdschema.Atom{
			Scalar: &untypedScalar,
			List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: &untypedAtomicName}, ElementRelationship: smdschema.Atomic},
			Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: &untypedDeducedName}, ElementRelationship: smdschema.Separable},
		}},
	}
}

// objectMetaClosure returns ObjectMeta's type definitions and those it refers to, from the
// built-in catalogue.
func objectMetaClosure() ([]smdschema.TypeDef, error) {
	p, err := BuiltinParser()
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*smdschema.TypeDef, len(p.Schema.Types))
	for i := range p.Schema.Types {
		byName[p.Schema.Types[i].Name] = &p.Schema.Types[i]
	}
	var out []smdschema.TypeDef
	seen := map[string]bool{untypedAtomicName: true, untypedDeducedName: true}
	var visitAtom func(a *smdschema.Atom)
	var visitName func(name string)
	visitRef := func(r *smdschema.TypeRef) {
		if r.NamedType != nil {
			visitName(*r.NamedType)
		} else {
			visitAtom(&r.Inlined)
		}
	}
	visitAtom = func(a *smdschema.Atom) {
		if a.List != nil {
			visitRef(&a.List.ElementType)
		}
		if a.Map != nil {
			visitRef(&a.Map.ElementType)
			for i := range a.Map.Fields {
				visitRef(&a.Map.Fields[i].Type)
			}
		}
	}
	visitName = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		td, ok := byName[name]
		if !ok {
			return
		}
		out = append(out, *td)
		visitAtom(&td.Atom)
	}
	visitName(objectMetaSMDName)
	if len(out) == 0 {
		return nil, fmt.Errorf("built-in smd schema has no %s", objectMetaSMDName)
	}
	return out, nil
}
