package registry

import (
	"errors"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// writeOptions are the query parameters of a create, update or patch (metav1.CreateOptions,
// UpdateOptions, PatchOptions).
type writeOptions struct {
	kind            string // CreateOptions, UpdateOptions, PatchOptions
	dryRun          []string
	fieldManager    string
	fieldValidation schema.FieldValidation
	force           *bool
}

// level is the field validation level; the apiserver's default (no parameter) is Warn.
func (o writeOptions) level() schema.FieldValidation {
	if o.fieldValidation == "" {
		return schema.FieldValidationWarn
	}
	return o.fieldValidation
}

// parseWriteOptions decodes the query as the parameter codec does (400 for a value that does not
// decode) and validates it as k8s.io/apimachinery's ValidateCreateOptions, ValidateUpdateOptions
// and ValidatePatchOptions do (422 "<Kind>Options.meta.k8s.io "" is invalid: ...").
func (h *handler) parseWriteOptions(kind string, isApply bool) (writeOptions, error) {
	q := h.query
	o := writeOptions{kind: kind, dryRun: q["dryRun"], fieldManager: q.Get("fieldManager")}
	if kind == "PatchOptions" {
		if vs, ok := q["force"]; ok && len(vs) > 0 {
			b := queryBool(vs)
			o.force = &b
		}
	}
	var errs field.ErrorList
	if kind == "PatchOptions" {
		if isApply {
			if o.fieldManager == "" {
				errs = append(errs, field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
			}
		} else if o.force != nil {
			errs = append(errs, field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch"))
		}
	}
	errs = append(errs, managedfields.ValidateManager(o.fieldManager, field.NewPath("fieldManager"))...)
	errs = append(errs, validateDryRun(o.dryRun)...)
	fv, err := schema.ParseFieldValidation(q.Get("fieldValidation"))
	var fe *field.Error
	if errors.As(err, &fe) {
		errs = append(errs, fe)
	}
	o.fieldValidation = fv
	if len(errs) > 0 {
		return o, status.Invalid(status.GroupKind{Group: "meta.k8s.io", Kind: kind}, "", errs)
	}
	h.dryRun = len(o.dryRun) > 0
	return o, nil
}

// validateDryRun is ValidateDryRun: only "All" is allowed.
func validateDryRun(dryRun []string) field.ErrorList {
	for _, d := range dryRun {
		if d != "All" {
			return field.ErrorList{field.NotSupported(field.NewPath("dryRun"), dryRun, []string{"All"})}
		}
	}
	return nil
}

// manager is the field manager of a write: fieldManager, or the User-Agent's prefix.
func (h *handler) manager(o writeOptions) string {
	return o.fieldManager
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// queryBool is a boolean query parameter as the parameter codec reads one
// (runtime.Convert_Slice_string_To_Pointer_bool): "0" and "false" in any case are false, any
// other value, the empty string included, is true.
func queryBool(vs []string) bool {
	return len(vs) > 0 && vs[0] != "0" && !strings.EqualFold(vs[0], "false")
}
