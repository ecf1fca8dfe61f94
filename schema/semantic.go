package schema

import "reflect"

// maxSemanticDepth bounds SemanticEqual's recursion on hostile schemas.
const maxSemanticDepth = 10000

// SharedSchema reports whether every version has the same schema, so that the apiserver holds it
// once as the internal spec.validation: the v1 to internal conversion compares the versions'
// schemas with apimachinery's semantic equality (see SemanticEqual).
func (c *CRD) SharedSchema() bool {
	if c == nil || len(c.Versions) == 0 {
		return false
	}
	for _, v := range c.Versions[1:] {
		if !SemanticEqual(v.Props, c.Versions[0].Props) {
			return false
		}
	}
	return true
}

// SemanticEqual is apimachinery's equality.Semantic.DeepEqual on two openAPIV3Schemas as the
// apiserver holds them after decoding: nil and empty lists and maps are equal, and
// x-kubernetes-validations rules compare by their decoded fields (a rule written with
// `message: ""` or `reason: null` equals one without; unknown keys are dropped by decoding).
func SemanticEqual(a, b *Props) bool {
	return semanticEqual(reflect.ValueOf(a), reflect.ValueOf(b), 0)
}

var (
	propsType = reflect.TypeOf(Props{})
	anySlice  = reflect.TypeOf([]any(nil))
)

func semanticEqual(a, b reflect.Value, depth int) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() || depth > maxSemanticDepth {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return semanticEqual(a.Elem(), b.Elem(), depth+1)
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !semanticEqual(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !semanticEqual(it.Value(), bv, depth+1) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if a.Type() == propsType && a.Type().Field(i).Name == "XValidations" && a.Field(i).Type() == anySlice {
				ra, oka := decodedRules(a.Field(i).Interface().([]any))
				rb, okb := decodedRules(b.Field(i).Interface().([]any))
				if oka && okb {
					if !semanticEqual(reflect.ValueOf(ra), reflect.ValueOf(rb), depth+1) {
						return false
					}
					continue
				}
			}
			if !semanticEqual(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.String:
		return a.String() == b.String()
	default:
		return false
	}
}

// decodedRules decodes rules as the apiserver would; ok is false when a rule has a value of the
// wrong type (the CRD is then refused elsewhere and raw comparison is as good as any).
func decodedRules(raw []any) ([]ValidationRule, bool) {
	rules, err := ParseValidationRules(raw)
	return rules, err == nil
}
