package schema

import (
	"encoding/json"

	"github.com/writepath/writepath/field"
)

// ValidateListSetsAndMaps checks that x-kubernetes-list-type=set lists hold unique items and
// x-kubernetes-list-type=map lists hold objects with unique keys, like apiextensions'
// listtype.ValidateListSetsAndMaps: a duplicate is reported once, at its second occurrence, with
// the key fields as value.
func ValidateListSetsAndMaps(fldPath field.Path, s *Structural, obj map[string]any) field.ErrorList {
	if s == nil || obj == nil {
		return nil
	}
	var errs field.ErrorList
	keys := sortedKeys(obj)
	if ap := s.AdditionalPropertiesSchema(); ap != nil {
		for _, k := range keys {
			errs = append(errs, validateListSetsAndMapsValue(fldPath.Key(k), ap, obj[k])...)
		}
	}
	if s.Properties != nil {
		for _, k := range keys {
			if sub, ok := s.Properties[k]; ok {
				errs = append(errs, validateListSetsAndMapsValue(fldPath.Child(k), sub, obj[k])...)
			}
		}
	}
	return errs
}

func validateListSetsAndMapsValue(fldPath field.Path, s *Structural, x any) field.ErrorList {
	switch x := x.(type) {
	case []any:
		return validateListSetsAndMapsArray(fldPath, s, x)
	case map[string]any:
		return ValidateListSetsAndMaps(fldPath, s, x)
	}
	return nil
}

func validateListSetsAndMapsArray(fldPath field.Path, s *Structural, l []any) field.ErrorList {
	var errs field.ErrorList
	switch s.XListType {
	case "set":
		nonUnique, err := nonUniqueIndices(fldPath, l)
		if err != nil {
			errs = append(errs, err)
		} else {
			for _, i := range nonUnique {
				errs = append(errs, field.Duplicate(fldPath.Index(i), l[i]))
			}
		}
	case "map":
		errs = append(errs, validateListMap(fldPath, s, l)...)
	}
	if s.Items != nil {
		for i := range l {
			errs = append(errs, validateListSetsAndMapsValue(fldPath.Index(i), s.Items, l[i])...)
		}
	}
	return errs
}

type unspecifiedKey struct{}

func nonUniqueIndices(fldPath field.Path, l []any) ([]int, *field.Error) {
	if len(l) <= 1 {
		return nil, nil
	}
	scalars := make(map[any]int, len(l))
	compounds := make(map[string]int, len(l))
	var out []int
	for i, x := range l {
		switch x.(type) {
		case map[string]any, []any:
			b, err := json.Marshal(x)
			if err != nil {
				return nil, field.Invalid(fldPath.Index(i), x, "internal error")
			}
			k := string(b)
			compounds[k]++
			if compounds[k] == 2 {
				out = append(out, i)
			}
		default:
			scalars[x]++
			if scalars[x] == 2 {
				out = append(out, i)
			}
		}
	}
	return out, nil
}

func validateListMap(fldPath field.Path, s *Structural, l []any) field.ErrorList {
	for i, x := range l {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return field.ErrorList{field.Invalid(fldPath.Index(i), x, "must be an object for an array of list-type map")}
		}
	}
	if len(l) <= 1 {
		return nil
	}
	if len(s.XListMapKeys) == 1 {
		kf := s.XListMapKeys[0]
		keys := make([]any, 0, len(l))
		for _, x := range l {
			if x == nil {
				keys = append(keys, unspecifiedKey{})
				continue
			}
			k, ok := x.(map[string]any)[kf]
			if !ok {
				keys = append(keys, unspecifiedKey{})
				continue
			}
			keys = append(keys, k)
		}
		nonUnique, err := nonUniqueIndices(fldPath, keys)
		if err != nil {
			return field.ErrorList{err}
		}
		var errs field.ErrorList
		for _, i := range nonUnique {
			if keys[i] == (unspecifiedKey{}) {
				errs = append(errs, field.Duplicate(fldPath.Index(i), map[string]any{}))
			} else {
				errs = append(errs, field.Duplicate(fldPath.Index(i), map[string]any{kf: keys[i]}))
			}
		}
		return errs
	}
	keys := make([]any, 0, len(l))
	for _, x := range l {
		key := map[string]any{}
		if x != nil {
			m := x.(map[string]any)
			for _, kf := range s.XListMapKeys {
				if k, ok := m[kf]; ok {
					key[kf] = k
				}
			}
		}
		keys = append(keys, key)
	}
	nonUnique, err := nonUniqueIndices(fldPath, keys)
	if err != nil {
		return field.ErrorList{err}
	}
	var errs field.ErrorList
	for _, i := range nonUnique {
		errs = append(errs, field.Duplicate(fldPath.Index(i), keys[i]))
	}
	return errs
}
