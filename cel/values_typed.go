package cel

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// The typed values of admission expressions: what the apiserver's
// common.SchemalessTypedToVal makes of a Go object (the request, namespaceObject, the params of
// built-in kinds). Go structs, maps and slices compare unequal types with "no such overload"
// rather than false, lists report out-of-range indexes in their own words, and structs compare
// with each other by deep equality. Values are read, never modified.

// RequestValue is the `request` variable: the admissionv1.AdmissionRequest whose unstructured
// form is m, as SchemalessTypedToVal gives it (userInfo, the kinds and resources are Go
// structs; options, object and oldObject are plain JSON).
func RequestValue(m map[string]any) ref.Val { return typedValue(m, requestShape) }

// NamespaceValue is the `namespaceObject` variable: the corev1.Namespace whose unstructured form
// is m (metadata, spec and status; labels and annotations are Go maps).
func NamespaceValue(m map[string]any) ref.Val { return typedValue(m, namespaceShape) }

// TypedValueOf is SchemalessTypedToVal of the Go value of a built-in kind whose unstructured
// form is v, typed by its OpenAPI schema n (BuiltinOpenAPI): a typed param.
func TypedValueOf(v any, n *OpenAPISchema) ref.Val { return typedFromSchema(v, n) }

// IsTyped reports whether v is a Go struct, map or list of a typed value (RequestValue,
// NamespaceValue, TypedValueOf), which converts its members itself, as opposed to CEL's own
// literals.
func IsTyped(v ref.Val) bool {
	switch v.(type) {
	case *goList, *goMap, *goStruct:
		return true
	}
	return false
}

// TypedConversionError is the error reflect's conversion of the typed value v (IsTyped) to the
// Go type named to gives, in cel-go's words; nil when v is not typed.
func TypedConversionError(v ref.Val, to string) error {
	switch x := v.(type) {
	case *goStruct:
		name := x.goType
		if name == "" {
			name = "map"
		}
		return fmt.Errorf("type conversion error from struct type %s to %s", name, to)
	case *goMap:
		return fmt.Errorf("type conversion error from '%s' to '%s'", x.Type(), to)
	case *goList:
		return fmt.Errorf("type conversion error from '%s' to '%s'", x.Type(), to)
	}
	return nil
}

// goShape says which JSON objects of a value are Go structs and which Go
// maps in the typed object the apiserver hands to CEL: request
// (admissionv1.AdmissionRequest), namespaceObject (corev1.Namespace) and the
// params of built-in kinds are typed objects, wrapped by
// common.SchemalessTypedToVal. Plain JSON (options, a RawExtension) is
// converted as unstructured content is.
type goShape struct {
	kind   byte // 's' struct, 'm' map, 'l' list, 'p' plain JSON; 0 scalar
	fields map[string]*goShape
	elem   *goShape
}

var (
	shapeScalar = &goShape{}
	shapePlain  = &goShape{kind: 'p'}
	shapeGVK    = &goShape{kind: 's', fields: map[string]*goShape{}}

	requestShape = &goShape{kind: 's', fields: map[string]*goShape{
		"kind": shapeGVK, "resource": shapeGVK, "requestKind": shapeGVK, "requestResource": shapeGVK,
		"userInfo": {kind: 's', fields: map[string]*goShape{
			"groups": {kind: 'l', elem: shapeScalar},
			"extra":  {kind: 'm', elem: &goShape{kind: 'l', elem: shapeScalar}},
		}},
		"options": shapePlain, "object": shapePlain, "oldObject": shapePlain,
	}}
	stringMapShape = &goShape{kind: 'm', elem: shapeScalar}
	stringsShape   = &goShape{kind: 'l', elem: shapeScalar}
	namespaceShape = &goShape{kind: 's', fields: map[string]*goShape{
		"metadata": {kind: 's', fields: map[string]*goShape{
			"labels": stringMapShape, "annotations": stringMapShape, "finalizers": stringsShape}},
		"spec": {kind: 's', fields: map[string]*goShape{"finalizers": stringsShape}},
		"status": {kind: 's', fields: map[string]*goShape{
			"conditions": {kind: 'l', elem: &goShape{kind: 's', fields: map[string]*goShape{}}}}},
	}}
)

// typedValue converts v, shaped as s, to the CEL value SchemalessTypedToVal
// gives the typed object: Go maps, slices and structs compare unequal types
// with "no such overload" rather than false, lists report out-of-range
// indexes in their own words, and structs compare with each other by deep
// equality.
func typedValue(v any, s *goShape) ref.Val {
	if v == nil {
		return types.NullValue
	}
	switch s.kind {
	case 's':
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		fields := make(map[string]ref.Val, len(m))
		for k, x := range m {
			fs := s.fields[k]
			if fs == nil {
				fs = shapeScalar
			}
			fields[k] = typedValue(x, fs)
		}
		return &goStruct{fields: fields, raw: m}
	case 'm':
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		vals := make(map[string]ref.Val, len(m))
		for k, x := range m {
			vals[k] = typedValue(x, s.elem)
		}
		return &goMap{vals: vals}
	case 'l':
		l, ok := v.([]any)
		if !ok {
			break
		}
		elems := make([]ref.Val, len(l))
		for i, x := range l {
			elems[i] = typedValue(x, s.elem)
		}
		return &goList{elems: elems}
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// goList is reflectSchemalessTypedList.
type goList struct{ elems []ref.Val }

func (l *goList) ConvertToNative(t reflect.Type) (any, error) {
	if t.Kind() == reflect.Slice {
		return types.NewRefValList(types.DefaultTypeAdapter, l.elems).ConvertToNative(t)
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", l.Type(), t)
}
func (l *goList) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.ListType:
		return l
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", l.Type(), t.TypeName())
}
func (l *goList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(l.elems)) != o.Size().(types.Int) {
		return types.False
	}
	for i, e := range l.elems {
		if e.Equal(o.Get(types.Int(i))) != types.True {
			return types.False
		}
	}
	return types.True
}
func (l *goList) Type() ref.Type { return types.ListType }
func (l *goList) Value() any     { return l.elems }
func (l *goList) Contains(v ref.Val) ref.Val {
	for _, e := range l.elems {
		if e.Equal(v) == types.True {
			return types.True
		}
	}
	return types.False
}
func (l *goList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	out := append([]ref.Val(nil), l.elems...)
	for it := o.Iterator(); it.HasNext() == types.True; {
		out = append(out, it.Next())
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}
func (l *goList) Get(index ref.Val) ref.Val {
	i, ok := index.(types.Int)
	if !ok {
		return types.ValOrErr(index, "unsupported index type: %T", index)
	}
	if i < 0 || int(i) >= len(l.elems) {
		return types.NewErr("index out of bounds: %d", i)
	}
	return l.elems[i]
}
func (l *goList) Iterator() traits.Iterator { return &goIterator{vals: l.elems} }
func (l *goList) Size() ref.Val             { return types.Int(len(l.elems)) }

// goIterator iterates over values already converted.
type goIterator struct {
	goList
	vals []ref.Val
	i    int
}

func (it *goIterator) HasNext() ref.Val { return types.Bool(it.i < len(it.vals)) }
func (it *goIterator) Next() ref.Val {
	if it.i >= len(it.vals) {
		return types.NewErr("no more elements")
	}
	v := it.vals[it.i]
	it.i++
	return v
}

// goMap is reflectSchemalessTypedMap (string keys).
type goMap struct{ vals map[string]ref.Val }

func (m *goMap) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", m.Type(), t)
}
func (m *goMap) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return m
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", m.Type(), t.TypeName())
}
func (m *goMap) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(m.vals)) != o.Size() {
		return types.False
	}
	for k, v := range m.vals {
		ov, found := o.Find(types.String(k))
		if !found || v.Equal(ov) != types.True {
			return types.False
		}
	}
	return types.True
}
func (m *goMap) Type() ref.Type { return types.MapType }
func (m *goMap) Value() any     { return m.vals }
func (m *goMap) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "unsupported map key type: %T", key), false
	}
	v, found := m.vals[string(k)]
	return v, found
}
func (m *goMap) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found {
		if v != nil && types.IsError(v) {
			return v
		}
		return types.ValOrErr(key, "no such key: %v", key)
	}
	return v
}
func (m *goMap) Contains(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if v != nil && types.IsError(v) {
		return v
	}
	return types.Bool(found)
}
func (m *goMap) Iterator() traits.Iterator { return &goIterator{vals: sortedFieldKeys(m.vals)} }
func (m *goMap) Size() ref.Val             { return types.Int(len(m.vals)) }

func sortedFieldKeys(m map[string]ref.Val) []ref.Val {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]ref.Val, len(keys))
	for i, k := range keys {
		out[i] = types.String(k)
	}
	return out
}

// goStruct is reflectSchemalessTypedStruct: the fields JSON would write
// (omitempty ones left out when empty).
type goStruct struct {
	fields map[string]ref.Val
	raw    map[string]any
	// goType is the Go type as reflect prints it ("v1.ServiceStatus"), when known.
	goType string
}

func (s *goStruct) ConvertToNative(t reflect.Type) (any, error) {
	name := s.goType
	if name == "" {
		name = "map"
	}
	return nil, fmt.Errorf("type conversion error from struct type %s to %v", name, t)
}
func (s *goStruct) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return s
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from struct to %s", t.TypeName())
}
func (s *goStruct) Equal(other ref.Val) ref.Val {
	if o, ok := other.(*goStruct); ok {
		return types.Bool(reflect.DeepEqual(s.raw, o.raw))
	}
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if types.Int(len(s.fields)) != o.Size() {
		return types.False
	}
	for _, k := range sortedFieldKeys(s.fields) {
		ov, found := o.Find(k)
		if !found {
			return types.False
		}
		if eq := s.fields[string(k.(types.String))].Equal(ov); eq != types.True {
			return eq
		}
	}
	return types.True
}
func (s *goStruct) Type() ref.Type { return types.MapType }
func (s *goStruct) Value() any     { return s.raw }
func (s *goStruct) lookup(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "unsupported map key type: %T", key), true
	}
	v, found := s.fields[string(k)]
	return v, found
}
func (s *goStruct) IsSet(key ref.Val) ref.Val {
	v, found := s.lookup(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}
func (s *goStruct) Find(key ref.Val) (ref.Val, bool) { return s.lookup(key) }
func (s *goStruct) Get(key ref.Val) ref.Val {
	v, found := s.lookup(key)
	if !found {
		return types.ValOrErr(key, "no such key: %v", key)
	}
	return v
}
func (s *goStruct) Contains(key ref.Val) ref.Val {
	v, found := s.lookup(key)
	if v != nil && types.IsError(v) {
		return v
	}
	return types.Bool(found)
}
func (s *goStruct) Iterator() traits.Iterator { return &goIterator{vals: sortedFieldKeys(s.fields)} }
func (s *goStruct) Size() ref.Val             { return types.Int(len(s.fields)) }

// typedFromSchema is SchemalessTypedToVal of the Go value whose unstructured
// form is v: objects with properties are Go structs, objects with
// additionalProperties Go maps, arrays Go slices; what marshals itself
// (quantities, times, int-or-strings, raw extensions) is plain.
func typedFromSchema(v any, n *OpenAPISchema) ref.Val {
	if v == nil {
		return types.NullValue
	}
	if n == nil || n.IntOrString || n.Format == "int-or-string" {
		return sortedAdapter{}.NativeToValue(v)
	}
	switch x := v.(type) {
	case map[string]any:
		switch {
		case n.Props != nil:
			fields := make(map[string]ref.Val, len(x))
			for k, e := range x {
				fields[k] = typedFromSchema(e, n.Props[k])
			}
			return &goStruct{fields: fields, raw: x, goType: goTypeName(n.GoName)}
		case n.Additional != nil:
			vals := make(map[string]ref.Val, len(x))
			for k, e := range x {
				vals[k] = typedFromSchema(e, n.Additional)
			}
			return &goMap{vals: vals}
		}
		// RawExtension, FieldsV1: marshalled by themselves, plain.
		return sortedAdapter{}.NativeToValue(x)
	case []any:
		if n.Type != "array" {
			return sortedAdapter{}.NativeToValue(x)
		}
		elems := make([]ref.Val, len(x))
		for i, e := range x {
			elems[i] = typedFromSchema(e, n.Items)
		}
		return &goList{elems: elems}
	}
	return sortedAdapter{}.NativeToValue(v)
}

// goTypeName is how reflect prints the Go type of an OpenAPI definition:
// its package's name (the segment before the type's) and the type's
// ("io.k8s.api.core.v1.ServiceStatus" is v1.ServiceStatus).
func goTypeName(def string) string {
	i := strings.LastIndexByte(def, '.')
	if i < 0 {
		return ""
	}
	j := strings.LastIndexByte(def[:i], '.')
	return def[j+1:]
}
