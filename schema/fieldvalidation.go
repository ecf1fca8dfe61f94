package schema

import (
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// FieldValidation is the fieldValidation query parameter of a write: what the apiserver does with
// unknown and duplicate fields.
type FieldValidation string

const (
	// FieldValidationStrict fails the request (400) on unknown or duplicate fields.
	FieldValidationStrict FieldValidation = "Strict"
	// FieldValidationWarn accepts the request and returns one warning per finding.
	FieldValidationWarn FieldValidation = "Warn"
	// FieldValidationIgnore silently drops unknown fields (the last duplicate wins).
	FieldValidationIgnore FieldValidation = "Ignore"
)

// ParseFieldValidation checks a fieldValidation value like the apiserver's option validation
// ("" is allowed: the server default is Warn, kubectl sends Strict).
func ParseFieldValidation(s string) (FieldValidation, error) {
	switch FieldValidation(s) {
	case "", FieldValidationStrict, FieldValidationWarn, FieldValidationIgnore:
		return FieldValidation(s), nil
	}
	return "", field.NotSupported(field.NewPath("fieldValidation"), s, []string{"", "Ignore", "Strict", "Warn"})
}

// FieldValidationFindings applies a field-validation level to what decoding found: duplicates
// (`duplicate field "x"`, from the decoder) and unknown field paths (from pruning and metadata
// coercion, or from a built-in type's schema). Strict returns the apiserver's 400 BadRequest
// ("strict decoding error: unknown field \"spec.foo\", ..."); Warn returns one warning per
// finding; Ignore returns nothing. This is the hook built-in kinds use too: pass the unknown
// paths their schema reports.
func FieldValidationFindings(level FieldValidation, duplicates []string, unknownPaths []string) ([]string, error) {
	if level == FieldValidationIgnore {
		return nil, nil
	}
	findings := make([]string, 0, len(duplicates)+len(unknownPaths))
	findings = append(findings, duplicates...)
	for _, p := range unknownPaths {
		findings = append(findings, `unknown field "`+p+`"`)
	}
	if len(findings) == 0 {
		return nil, nil
	}
	if level == FieldValidationWarn {
		return findings, nil
	}
	return nil, status.BadRequest("strict decoding error: " + strings.Join(findings, ", "))
}
