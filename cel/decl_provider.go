package cel

import (
	"fmt"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/writepath/writepath/internal/validation"
)

// NewObjectDeclType is an object type named name with the given fields (escaped property
// names), as declared for variables outside a schema (admission's request and namespaceObject).
func NewObjectDeclType(name string, fields map[string]*DeclType) *DeclType {
	fs := make(map[string]*DeclField, len(fields))
	for n, t := range fields {
		fs[n] = &DeclField{Name: n, Type: t}
	}
	return newObjectType(name, fs)
}

// NewListDeclType is a list of elem, without a size bound.
func NewListDeclType(elem *DeclType) *DeclType { return newListType(elem, 0) }

// NewMapDeclType is a map from key to elem, without a size bound.
func NewMapDeclType(key, elem *DeclType) *DeclType { return newMapType(key, elem, 0) }

// The scalar DeclTypes (the apiserver's BoolType, StringType, ...): their CEL types are
// cel-go's own values, which the apiserver compares by identity.
var (
	AnyDeclType       = newSimple("any", celgo.AnyType, 0)
	BoolDeclType      = declBool
	BytesDeclType     = newSimple("bytes", celgo.BytesType, MinStringSize)
	DoubleDeclType    = declDouble
	DurationDeclType  = newSimple("duration", celgo.DurationType, MinDurationSizeJSON)
	DynDeclType       = newSimple("dyn", celgo.DynType, 1)
	IntDeclType       = declInt
	NullDeclType      = newSimple("null_type", celgo.NullType, 4)
	StringDeclType    = declString
	TimestampDeclType = newSimple("timestamp", celgo.TimestampType, MinDatetimeSizeJSON)
	UintDeclType      = newSimple("uint", celgo.UintType, MinNumberSize)
	listAnyDeclType   = NewListDeclType(AnyDeclType)
	mapAnyDeclType    = NewMapDeclType(AnyDeclType, AnyDeclType)
)

// findScalar is DeclTypeProvider's findScalar: the names every provider layer resolves.
func findScalar(name string) *DeclType {
	switch name {
	case "bool":
		return BoolDeclType
	case "bytes":
		return BytesDeclType
	case "double":
		return DoubleDeclType
	case "duration":
		return DurationDeclType
	case "int":
		return IntDeclType
	case "null_type":
		return NullDeclType
	case "string":
		return StringDeclType
	case "timestamp":
		return TimestampDeclType
	case "uint":
		return UintDeclType
	case "list":
		return listAnyDeclType
	case "map":
		return mapAnyDeclType
	}
	return nil
}

// WithTypeName names an object type and, recursively, its nested object types
// (<name>.<field>, <name>.@elem for map values, <name>.@idx for list items), as
// DeclType.MaybeAssignTypeName does; t itself when nothing is renamed.
func (t *DeclType) WithTypeName(name string) *DeclType { return t.withTypeName(name) }

// DeclTypeProvider resolves declared types for the checker as the apiserver's
// DeclTypeProvider does: object types by name, lists and maps under the path of the field that
// holds them ("kubernetes.Namespace.metadata.labels"), scalars by name, a map's unknown field
// as its element; everything else from the environment's provider. Values stay the object
// model's: fields are read with the map qualifier at run time. Keywords used as field names
// resolve to their escaped form (__in__) when recognizeKeywords is set, as from compatibility
// version 1.31. It is read-only once made.
type DeclTypeProvider struct {
	types.Provider
	registered        map[string]*DeclType
	recognizeKeywords bool
}

// NewDeclTypeProvider registers roots (and the types inside them) over base.
func NewDeclTypeProvider(base types.Provider, recognizeKeywords bool, roots ...*DeclType) *DeclTypeProvider {
	p := &DeclTypeProvider{Provider: base, registered: map[string]*DeclType{}, recognizeKeywords: recognizeKeywords}
	for _, r := range roots {
		p.register(r.name, r)
	}
	return p
}

// register is buildDeclTypes.
func (p *DeclTypeProvider) register(path string, t *DeclType) {
	if t.isObject() {
		p.registered[t.name] = t
		for name, f := range t.Fields {
			p.register(fmt.Sprintf("%s.%s", path, name), f.Type)
		}
	}
	if t.isMap() {
		p.register(path+".@elem", t.ElemType)
		p.registered[path] = t
	}
	if t.isList() {
		p.register(path+".@idx", t.ElemType)
		p.registered[path] = t
	}
}

func (p *DeclTypeProvider) find(name string) (*DeclType, bool) {
	if t, ok := p.registered[name]; ok {
		return t, true
	}
	t := findScalar(name)
	return t, t != nil
}

// FindStructType implements types.Provider.
func (p *DeclTypeProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.find(name); ok {
		return types.NewTypeTypeWithParam(t.celType), true
	}
	return p.Provider.FindStructType(name)
}

// FindStructFieldNames is not answered, as by the apiserver's provider.
func (p *DeclTypeProvider) FindStructFieldNames(string) ([]string, bool) {
	return []string{}, false
}

// FindStructFieldType implements types.Provider.
func (p *DeclTypeProvider) FindStructFieldType(typeName, fieldName string) (*types.FieldType, bool) {
	st, ok := p.find(typeName)
	if !ok {
		return p.Provider.FindStructFieldType(typeName, fieldName)
	}
	f, found := st.Fields[fieldName]
	if p.recognizeKeywords && !found && validation.IsCELReserved(fieldName) {
		f, found = st.Fields["__"+fieldName+"__"]
	}
	if found {
		return &types.FieldType{Type: f.Type.celType}, true
	}
	if st.isMap() {
		return &types.FieldType{Type: st.ElemType.celType}, true
	}
	return nil, false
}

// NewValue defers to the environment's provider, as the apiserver's does.
func (p *DeclTypeProvider) NewValue(typeName string, fields map[string]ref.Val) ref.Val {
	return p.Provider.NewValue(typeName, fields)
}
