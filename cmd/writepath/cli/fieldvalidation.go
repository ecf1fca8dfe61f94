package cli

import (
	"strconv"

	"github.com/writepath/writepath/schema"
)

// validateFlag is kubectl's --validate (apply, create): true or strict, warn, false or ignore,
// bare --validate strict; it sets the request's fieldValidation (level) to Strict, Warn or
// Ignore. The value is checked after parsing, so that the error is kubectl's own line.
type validateFlag struct {
	raw   string
	level *string
}

func (v *validateFlag) String() string { return v.raw }
func (v *validateFlag) Type() string   { return "string" }
func (v *validateFlag) Set(s string) error {
	v.raw = s
	return nil
}

// apply sets the level the flag names (cmdutil.GetValidationDirective's reading of it).
func (v *validateFlag) apply() error {
	if b, err := strconv.ParseBool(v.raw); err == nil {
		*v.level = string(schema.FieldValidationIgnore)
		if b {
			*v.level = string(schema.FieldValidationStrict)
		}
		return nil
	}
	switch v.raw {
	case "strict":
		*v.level = string(schema.FieldValidationStrict)
	case "warn":
		*v.level = string(schema.FieldValidationWarn)
	case "ignore":
		*v.level = string(schema.FieldValidationIgnore)
	default:
		return usagef(`invalid - validate option %q; must be one of: strict (or true), warn, ignore (or false)`, v.raw)
	}
	return nil
}

// fieldValidation declares --field-validation LEVEL (the query parameter, default def) and,
// with kubectl, its spelling --validate; the level is read after parsing.
func (f *flags) fieldValidation(def, usage string, kubectl bool) *string {
	level := f.String("field-validation", def, usage)
	if !kubectl {
		return level
	}
	v := &validateFlag{level: level}
	fl := f.FlagSet.VarPF(v, "validate", "", "kubectl's spelling of --field-validation: `strict` (or true, or bare), warn, ignore (or false)")
	fl.NoOptDefVal = "strict"
	f.after = append(f.after, func() error {
		if !fl.Changed {
			return nil
		}
		return v.apply()
	})
	return level
}
