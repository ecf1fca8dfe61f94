package cel

import (
	"strings"

	"github.com/writepath/writepath/schema"
)

// Rule is one x-kubernetes-validations entry (apiextensions.k8s.io/v1 ValidationRule).
// As a bad value in an error it prints as the apiserver prints its Go type: JSON with
// the Go field names.
type Rule = schema.ValidationRule

// ParseRules reads the x-kubernetes-validations of a schema node as written (a list of
// objects). Unknown fields are ignored; fields of the wrong type give an error.
func ParseRules(x []any) ([]Rule, error) {
	return schema.ParseValidationRules(x)
}

func ruleErrorString(r Rule) string {
	if len(r.Message) > 0 {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}

func messageOrDefault(r Rule) string {
	if len(r.Message) == 0 {
		return "failed rule: " + ruleErrorString(r)
	}
	return strings.TrimSpace(r.Message)
}
