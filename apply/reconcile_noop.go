package apply

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

// reconcileNoop reports whether typed.ReconcileFieldSetWithSchema(set, tv) would return (nil,
// nil) for a value typed by (sc, tr): no node of the set is reached through its children or
// alone-with-children where the schema now says atomic (SMD v6.4.2's reconcileWithSchemaWalker,
// read-only: the same resolution, the same visiting rules, no walkers, paths or sets built).
// It answers false whenever it is not sure (a type that does not resolve, an invalid atom, an
// atomic root), and the caller then runs SMD's own function.
func reconcileNoop(sc *schema.Schema, tr schema.TypeRef, set *fieldpath.Set) bool {
	a, ok := sc.Resolve(tr)
	if !ok {
		return false
	}
	// The walker's root state is whatever its pooled value held: only a root that is not
	// atomic gives the same answer either way.
	switch {
	case a.Map != nil:
		if a.Map.ElementRelationship == schema.Atomic {
			return false
		}
	case a.Scalar != nil:
		return true
	case a.List != nil:
		if a.List.ElementRelationship == schema.Atomic {
			return false
		}
	default:
		return false
	}
	return reconcileNoopAt(sc, a, set, false)
}

// reconcileNoopAt is one node: a its resolved atom, set its node of the field set (nil when it
// is only a member), atomic whether it was reached as a member without children.
func reconcileNoopAt(sc *schema.Schema, a schema.Atom, set *fieldpath.Set, atomic bool) bool {
	switch {
	case a.Map != nil:
		m := a.Map
		if isUntypedDeducedMapType(m) {
			return true
		}
		if !atomic && m.ElementRelationship == schema.Atomic {
			return set == nil || set.Size() == 0
		}
		if set == nil {
			return true
		}
		return reconcileNoopItems(sc, set, func(pe fieldpath.PathElement) (schema.TypeRef, bool) {
			tr := m.ElementType
			if pe.FieldName != nil {
				if sf, ok := m.FindField(*pe.FieldName); ok {
					tr = sf.Type
				}
			}
			return tr, tr != schema.TypeRef{}
		})
	case a.Scalar != nil:
		return true
	case a.List != nil:
		l := a.List
		if !atomic && l.ElementRelationship == schema.Atomic {
			return false
		}
		if set == nil {
			return true
		}
		return reconcileNoopItems(sc, set, func(fieldpath.PathElement) (schema.TypeRef, bool) {
			return l.ElementType, true
		})
	}
	return false // SMD reports an invalid atom
}

// reconcileNoopItems visits the children that are not members, then the members, as the
// walker's visitMapItems and visitListItems do.
func reconcileNoopItems(sc *schema.Schema, set *fieldpath.Set, typeOf func(fieldpath.PathElement) (schema.TypeRef, bool)) bool {
	ok := true
	visit := func(pe fieldpath.PathElement, member bool) {
		if !ok {
			return
		}
		tr, known := typeOf(pe)
		if !known {
			return // fields not in the schema are ignored
		}
		child, has := set.Children.Get(pe)
		a, resolved := sc.Resolve(tr)
		if !resolved {
			ok = false // SMD reports it
			return
		}
		ok = reconcileNoopAt(sc, a, child, member && !has)
	}
	set.Children.Iterate(func(pe fieldpath.PathElement) {
		if !set.Members.Has(pe) {
			visit(pe, false)
		}
	})
	set.Members.Iterate(func(pe fieldpath.PathElement) {
		visit(pe, true)
	})
	return ok
}

// isUntypedDeducedMapType is SMD's isUntypedDeducedMap: a map with no fields whose elements are
// deduced (x-kubernetes-preserve-unknown-fields without properties).
func isUntypedDeducedMapType(m *schema.Map) bool {
	if m.Fields != nil {
		return false
	}
	t := m.ElementType
	if t.NamedType != nil {
		return *t.NamedType == "__untyped_deduced_"
	}
	return t.Inlined.Scalar != nil && *t.Inlined.Scalar == "untyped"
}
