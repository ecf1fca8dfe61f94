package admission

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"

	"github.com/writepath/writepath/cel"
)

// requestDecl is the type of `request` (plugin/cel.BuildRequestType): the
// AdmissionRequest without uid, object and oldObject.
func requestDecl() *cel.DeclType {
	str := cel.StringDeclType
	gvk := cel.NewObjectDeclType("kubernetes.GroupVersionKind", map[string]*cel.DeclType{
		"group": str, "version": str, "kind": str})
	gvr := cel.NewObjectDeclType("kubernetes.GroupVersionResource", map[string]*cel.DeclType{
		"group": str, "version": str, "resource": str})
	userInfo := cel.NewObjectDeclType("kubernetes.UserInfo", map[string]*cel.DeclType{
		"username": str,
		"uid":      str,
		"groups":   cel.NewListDeclType(str),
		"extra":    cel.NewMapDeclType(str, cel.NewListDeclType(str)),
	})
	return cel.NewObjectDeclType("kubernetes.AdmissionRequest", map[string]*cel.DeclType{
		"kind":               gvk,
		"resource":           gvr,
		"subResource":        str,
		"requestKind":        gvk,
		"requestResource":    gvr,
		"requestSubResource": str,
		"name":               str,
		"namespace":          str,
		"operation":          str,
		"userInfo":           userInfo,
		"dryRun":             cel.BoolDeclType,
		"options":            cel.DynDeclType,
	})
}

// namespaceDecl is the type of `namespaceObject` (plugin/cel.BuildNamespaceType).
// Its field names are the apiserver's, "UID" included (the value's key is
// "uid": `namespaceObject.metadata.uid` does not compile, UID never has a value).
func namespaceDecl() *cel.DeclType {
	str, ts := cel.StringDeclType, cel.TimestampDeclType
	spec := cel.NewObjectDeclType("kubernetes.NamespaceSpec", map[string]*cel.DeclType{"finalizers": cel.NewListDeclType(str)})
	condition := cel.NewObjectDeclType("kubernetes.NamespaceCondition", map[string]*cel.DeclType{
		"status":             str,
		"type":               str,
		"lastTransitionTime": ts,
		"message":            str,
		"reason":             str,
	})
	status := cel.NewObjectDeclType("kubernetes.NamespaceStatus", map[string]*cel.DeclType{
		"conditions": cel.NewListDeclType(condition),
		"phase":      str,
	})
	metadata := cel.NewObjectDeclType("kubernetes.NamespaceMetadata", map[string]*cel.DeclType{
		"name":                       str,
		"generateName":               str,
		"namespace":                  str,
		"labels":                     cel.NewMapDeclType(str, str),
		"annotations":                cel.NewMapDeclType(str, str),
		"UID":                        str,
		"creationTimestamp":          ts,
		"deletionGracePeriodSeconds": cel.IntDeclType,
		"deletionTimestamp":          ts,
		"generation":                 cel.IntDeclType,
		"resourceVersion":            str,
		"finalizers":                 cel.NewListDeclType(str),
	})
	return cel.NewObjectDeclType("kubernetes.Namespace", map[string]*cel.DeclType{
		"metadata": metadata, "spec": spec, "status": status})
}

// newDeclProvider is the apiserver's DeclTypeProvider over base for the
// declared roots, keywords recognised as field names (compatibility version
// 1.37).
func newDeclProvider(base types.Provider, roots ...*cel.DeclType) *cel.DeclTypeProvider {
	return cel.NewDeclTypeProvider(base, true, roots...)
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
