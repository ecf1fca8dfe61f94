package schema

import "fmt"

// ValidationRule is one x-kubernetes-validations entry as the apiserver's Go type
// (apiextensions.k8s.io/v1 ValidationRule) holds it.
type ValidationRule struct {
	Rule              string
	Message           string
	MessageExpression string
	// Reason is FieldValueInvalid, FieldValueForbidden, FieldValueRequired or
	// FieldValueDuplicate; nil means FieldValueInvalid.
	Reason          *string
	FieldPath       string
	OptionalOldSelf *bool
}

// ParseValidationRules reads the x-kubernetes-validations of a schema node as
// written (a list of objects), as decoding into the Go type would: unknown fields
// are ignored, nulls leave a field unset, a value of the wrong type is an error
// naming the entry and field.
func ParseValidationRules(x []any) ([]ValidationRule, error) {
	rules := make([]ValidationRule, 0, len(x))
	for i, item := range x {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("x-kubernetes-validations[%d]: must be an object", i)
		}
		var r ValidationRule
		for _, f := range []struct {
			k   string
			dst *string
		}{{"rule", &r.Rule}, {"message", &r.Message}, {"messageExpression", &r.MessageExpression}, {"fieldPath", &r.FieldPath}} {
			if v, ok := m[f.k]; ok && v != nil {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("x-kubernetes-validations[%d].%s: must be a string", i, f.k)
				}
				*f.dst = s
			}
		}
		if v, ok := m["reason"]; ok && v != nil {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("x-kubernetes-validations[%d].reason: must be a string", i)
			}
			r.Reason = &s
		}
		if v, ok := m["optionalOldSelf"]; ok && v != nil {
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("x-kubernetes-validations[%d].optionalOldSelf: must be a boolean", i)
			}
			r.OptionalOldSelf = &b
		}
		rules = append(rules, r)
	}
	return rules, nil
}
