package schema

import (
	"strconv"
	"strings"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

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

// UnknownFields returns the paths of the fields of obj that the structured-merge-diff type t does
// not know ("spec.template.spec.containers[0].foo"), in document order with object keys sorted:
// for a built-in kind (t from Kind.SMDType) they are the unknown fields the apiserver's strict
// decoding reports, to pass to FieldValidationFindings. Parts of the type without a schema
// (maps with an element type, untyped and deduced values) have no unknown fields.
func UnknownFields(t typed.ParseableType, obj map[string]any) []string {
	if t.Schema == nil {
		return nil
	}
	w := unknownWalker{s: t.Schema}
	w.walk(obj, t.TypeRef, "", 0)
	return w.out
}

type unknownWalker struct {
	s   *smdschema.Schema
	out []string
}

func (w *unknownWalker) walk(v any, tr smdschema.TypeRef, path string, depth int) {
	if depth > maxSchemaDepth {
		return
	}
	atom, ok := w.s.Resolve(tr)
	if !ok {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if atom.Map == nil {
			return
		}
		elem := atom.Map.ElementType
		hasElem := elem.NamedType != nil || elem.Inlined != (smdschema.Atom{})
		for _, k := range sortedKeys(x) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if f, ok := atom.Map.FindField(k); ok {
				w.walk(x[k], f.Type, p, depth+1)
			} else if hasElem {
				w.walk(x[k], elem, p, depth+1)
			} else {
				w.out = append(w.out, p)
			}
		}
	case []any:
		if atom.List == nil {
			return
		}
		for i, e := range x {
			w.walk(e, atom.List.ElementType, path+"["+strconv.Itoa(i)+"]", depth+1)
		}
	}
}
