package validation

import (
	"encoding/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// ControllerRevision (pkg/registry/apps/controllerrevision): ValidateControllerRevisionCreate
// and ValidateControllerRevisionUpdate. data is a runtime.RawExtension, which the apiserver
// keeps as the bytes the client sent and compares byte for byte on update; writepath holds the
// decoded value, so it compares values (the same data sent with other spacing or key order is
// an immutable-field error in the apiserver, not here) and prints the bad value in encoding/json's
// form (sorted keys, compact) where the apiserver prints the bytes as sent.

func validateControllerRevision(obj map[string]any, _ Options) field.ErrorList {
	errs := controllerRevision(obj)
	p := field.NewPath("data")
	switch data, ok := obj["data"]; {
	case !ok || data == nil:
		errs = append(errs, field.Required(p, "data is mandatory"))
	default:
		if _, isObject := data.(map[string]any); !isObject {
			errs = append(errs, field.Required(p, "data must be a valid JSON object"))
		}
	}
	return distinct(errs)
}

func validateControllerRevisionUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource != "" {
		return nil
	}
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, controllerRevision(obj)...)
	if !semanticEqual(obj["data"], old["data"]) {
		errs = append(errs, field.Invalid(field.NewPath("data"), rawExtension(obj["data"]), "field is immutable"))
	}
	return distinct(errs)
}

// controllerRevision is validateControllerRevision: metadata and a revision not negative.
func controllerRevision(obj map[string]any) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	rev, _ := integer(obj, "revision")
	return append(errs, nonNegative(field.NewPath("revision"), rev)...)
}

// rawExtension is a runtime.RawExtension as a bad value: its JSON, null when unset.
func rawExtension(v any) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
