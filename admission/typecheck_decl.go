package admission

import (
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/writepath/writepath/cel"
)

// declType is a CEL type declared for an admission variable, the shape of
// k8s.io/apiserver/pkg/cel.DeclType that type checking needs: object types
// with named fields, lists and maps of declared types, and scalars. Sizes are
// left out: the apiserver estimates no static cost for admission expressions.
type declType struct {
	name      string
	celType   *types.Type
	fields    map[string]*declType
	key, elem *declType
}

func (t *declType) isObject() bool { return t.fields != nil }
func (t *declType) isMap() bool    { return t.key != nil }
func (t *declType) isList() bool   { return t.elem != nil && t.key == nil }

func declObject(name string, fields map[string]*declType) *declType {
	if fields == nil {
		fields = map[string]*declType{}
	}
	return &declType{name: name, celType: types.NewObjectType(name), fields: fields}
}

func declList(elem *declType) *declType {
	return &declType{name: "list", celType: types.NewListType(elem.celType), elem: elem}
}

func declMap(key, elem *declType) *declType {
	return &declType{name: "map", celType: types.NewMapType(key.celType, elem.celType), key: key, elem: elem}
}

// The scalar types (apiservercel.BoolType, StringType, ...): their CEL types
// are cel-go's own values, which the apiserver compares by identity.
var (
	declAny       = &declType{name: "any", celType: types.AnyType}
	declBool      = &declType{name: "bool", celType: types.BoolType}
	declBytes     = &declType{name: "bytes", celType: types.BytesType}
	declDouble    = &declType{name: "double", celType: types.DoubleType}
	declDuration  = &declType{name: "duration", celType: types.DurationType}
	declDyn       = &declType{name: "dyn", celType: types.DynType}
	declInt       = &declType{name: "int", celType: types.IntType}
	declNull      = &declType{name: "null_type", celType: types.NullType}
	declString    = &declType{name: "string", celType: types.StringType}
	declTimestamp = &declType{name: "timestamp", celType: types.TimestampType}
	declUint      = &declType{name: "uint", celType: types.UintType}
	declListAny   = declList(declAny)
	declMapAny    = declMap(declAny, declAny)
)

// scalarDecl is DeclTypeProvider's findScalar: the names every provider
// layer resolves as types.
func scalarDecl(name string) *declType {
	switch name {
	case "bool":
		return declBool
	case "bytes":
		return declBytes
	case "double":
		return declDouble
	case "duration":
		return declDuration
	case "int":
		return declInt
	case "null_type":
		return declNull
	case "string":
		return declString
	case "timestamp":
		return declTimestamp
	case "uint":
		return declUint
	case "list":
		return declListAny
	case "map":
		return declMapAny
	}
	return nil
}

// requestDecl is the type of `request` (plugin/cel.BuildRequestType): the
// AdmissionRequest without uid, object and oldObject.
func requestDecl() *declType {
	gvk := declObject("kubernetes.GroupVersionKind", map[string]*declType{
		"group": declString, "version": declString, "kind": declString})
	gvr := declObject("kubernetes.GroupVersionResource", map[string]*declType{
		"group": declString, "version": declString, "resource": declString})
	userInfo := declObject("kubernetes.UserInfo", map[string]*declType{
		"username": declString,
		"uid":      declString,
		"groups":   declList(declString),
		"extra":    declMap(declString, declList(declString)),
	})
	return declObject("kubernetes.AdmissionRequest", map[string]*declType{
		"kind":               gvk,
		"resource":           gvr,
		"subResource":        declString,
		"requestKind":        gvk,
		"requestResource":    gvr,
		"requestSubResource": declString,
		"name":               declString,
		"namespace":          declString,
		"operation":          declString,
		"userInfo":           userInfo,
		"dryRun":             declBool,
		"options":            declDyn,
	})
}

// namespaceDecl is the type of `namespaceObject` (plugin/cel.BuildNamespaceType).
// Its field names are the apiserver's, "UID" included (the value's key is
// "uid": `namespaceObject.metadata.uid` does not compile, UID never has a value).
func namespaceDecl() *declType {
	spec := declObject("kubernetes.NamespaceSpec", map[string]*declType{"finalizers": declList(declString)})
	condition := declObject("kubernetes.NamespaceCondition", map[string]*declType{
		"status":             declString,
		"type":               declString,
		"lastTransitionTime": declTimestamp,
		"message":            declString,
		"reason":             declString,
	})
	status := declObject("kubernetes.NamespaceStatus", map[string]*declType{
		"conditions": declList(condition),
		"phase":      declString,
	})
	metadata := declObject("kubernetes.NamespaceMetadata", map[string]*declType{
		"name":                       declString,
		"generateName":               declString,
		"namespace":                  declString,
		"labels":                     declMap(declString, declString),
		"annotations":                declMap(declString, declString),
		"UID":                        declString,
		"creationTimestamp":          declTimestamp,
		"deletionGracePeriodSeconds": declInt,
		"deletionTimestamp":          declTimestamp,
		"generation":                 declInt,
		"resourceVersion":            declString,
		"finalizers":                 declList(declString),
	})
	return declObject("kubernetes.Namespace", map[string]*declType{
		"metadata": metadata, "spec": spec, "status": status})
}

// declProvider resolves declared types for the checker as the apiserver's
// DeclTypeProvider does: object types by name, lists and maps under the path
// of the field that holds them ("kubernetes.Namespace.metadata.labels"),
// scalars by name; everything else from the environment's provider. Values
// stay plain maps: fields are read with the map qualifier at run time.
type declProvider struct {
	types.Provider
	registered map[string]*declType
	// recognizeKeywords maps a reserved word to its escaped field name
	// (__in__), as from compatibility version 1.31.
	recognizeKeywords bool
}

func newDeclProvider(base types.Provider, roots ...*declType) *declProvider {
	p := &declProvider{Provider: base, registered: map[string]*declType{}, recognizeKeywords: true}
	for _, r := range roots {
		p.register(r.name, r)
	}
	return p
}

// register is apiservercel.buildDeclTypes.
func (p *declProvider) register(path string, t *declType) {
	if t.isObject() {
		p.registered[t.name] = t
		for name, f := range t.fields {
			p.register(fmt.Sprintf("%s.%s", path, name), f)
		}
	}
	if t.isMap() {
		p.register(path+".@elem", t.elem)
		p.registered[path] = t
	}
	if t.isList() {
		p.register(path+".@idx", t.elem)
		p.registered[path] = t
	}
}

func (p *declProvider) find(name string) (*declType, bool) {
	if t, ok := p.registered[name]; ok {
		return t, true
	}
	t := scalarDecl(name)
	return t, t != nil
}

func (p *declProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.find(name); ok {
		return types.NewTypeTypeWithParam(t.celType), true
	}
	return p.Provider.FindStructType(name)
}

// FindStructFieldNames is not answered for declared types, as by the apiserver.
func (p *declProvider) FindStructFieldNames(name string) ([]string, bool) {
	return []string{}, false
}

func (p *declProvider) FindStructFieldType(typeName, fieldName string) (*types.FieldType, bool) {
	st, ok := p.find(typeName)
	if !ok {
		return p.Provider.FindStructFieldType(typeName, fieldName)
	}
	f, found := st.fields[fieldName]
	if p.recognizeKeywords && !found && reservedSymbol(fieldName) {
		f, found = st.fields["__"+fieldName+"__"]
	}
	if found {
		return &types.FieldType{Type: f.celType}, true
	}
	if st.isMap() {
		return &types.FieldType{Type: st.elem.celType}, true
	}
	return nil, false
}

func (p *declProvider) NewValue(typeName string, fields map[string]ref.Val) ref.Val {
	return p.Provider.NewValue(typeName, fields)
}

// reservedSymbol reports whether a field name is one cel.Escape escapes as
// __name__ (the CEL reserved words).
func reservedSymbol(name string) bool {
	esc, ok := cel.Escape(name)
	return ok && esc == "__"+name+"__"
}

// variableType is the type `variables.<name>` has for a variable whose
// expression compiled to t (plugin/cel.convertCelTypeToDeclType): scalars as
// they are (compared by identity), lists and maps with their parameters
// converted, everything else (object types, optionals, type) dyn.
func variableType(t *types.Type) *types.Type {
	if t == nil {
		return types.DynType
	}
	switch t {
	case types.AnyType, types.BoolType, types.BytesType, types.DoubleType, types.DurationType,
		types.IntType, types.NullType, types.StringType, types.TimestampType, types.UintType:
		return t
	}
	if t.HasTrait(traits.ContainerType) && t.HasTrait(traits.IndexerType) {
		switch ps := t.Parameters(); len(ps) {
		case 1:
			return types.NewListType(variableType(ps[0]))
		case 2:
			return types.NewMapType(variableType(ps[0]), variableType(ps[1]))
		}
	}
	return types.DynType
}
