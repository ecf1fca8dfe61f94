package validation

import (
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// RuntimeClass (node.k8s.io) as ValidateRuntimeClass and ValidateRuntimeClassUpdate: apimachinery's
// ObjectMeta rules (no finalizer check), the overhead as a container's limits, the scheduling's
// node selector labels and tolerations (each toleration's key, operator, value and effect once).
// The handler's rules are 1.37's enforced (beta) declarative ones, which come after the
// hand-written errors: required and a DNS label on create, immutable once set. The strategy's
// PrepareForCreate and PrepareForUpdate change nothing.

func validateRuntimeClass(obj map[string]any, _ Options) field.ErrorList {
	errs := runtimeClassRules(obj)
	return withDeclarative(errs, runtimeClassHandler(str(obj, "handler")))
}

func validateRuntimeClassUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := runtimeClassRules(obj)
	errs = append(errs, objectMetaUpdate(obj, old, schema.ObjectMetaOptions{ResourceVersionSet: true})...)
	h := str(obj, "handler")
	if h == str(old, "handler") {
		// Unchanged: no declarative check runs, so the hand-written ones stand (in place).
		return withDeclarative(insertHandwrittenHandler(obj, errs, false), nil)
	}
	// Changed: the declarative immutability and required checks run, not the format one (the
	// immutability short-circuits it); the hand-written format errors, which nothing covers,
	// stay where they are.
	decl := field.ErrorList{field.Invalid(field.NewPath("handler"), nil, "field is immutable")}
	if h == "" {
		decl = append(decl, field.Required(field.NewPath("handler"), ""))
	}
	return withDeclarative(insertHandwrittenHandler(obj, errs, true), decl)
}

// runtimeClassRules is ValidateRuntimeClass without the handler's rules.
func runtimeClassRules(obj map[string]any) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{NameRule: validation.NameIsDNSSubdomain})
	return append(errs, runtimeClassSpec(obj)...)
}

func runtimeClassSpec(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	if oh, ok := obj["overhead"].(map[string]any); ok {
		errs = append(errs, resourceRequirements(field.NewPath("overhead"), map[string]any{"limits": oh["podFixed"]}, ValidateContainerResourceName, nil)...)
	}
	if s, ok := obj["scheduling"].(map[string]any); ok {
		p := field.NewPath("scheduling")
		if ns, ok := s["nodeSelector"].(map[string]any); ok {
			errs = append(errs, validateLabelsAt(p.Child("nodeSelector"), ns)...)
		}
		errs = append(errs, uniqueTolerations(p.Child("tolerations"), listOf(s["tolerations"]))...)
	}
	return errs
}

// insertHandwrittenHandler puts ValidateRuntimeClass's own handler errors back where it lists
// them (after the metadata, before the overhead), for an update whose declarative handler
// check does not cover them (formatOnly: the required error is covered).
func insertHandwrittenHandler(obj map[string]any, errs field.ErrorList, formatOnly bool) field.ErrorList {
	hv := str(obj, "handler")
	if formatOnly && hv == "" {
		return errs
	}
	h := invalids(field.NewPath("handler"), hv, validation.IsDNS1123Label(hv))
	if hv == "" {
		h = field.ErrorList{field.Required(field.NewPath("handler"), "")}
	}
	if len(h) == 0 {
		return errs
	}
	n := len(objectMeta(obj, schema.ObjectMetaOptions{NameRule: validation.NameIsDNSSubdomain}))
	out := make(field.ErrorList, 0, len(errs)+len(h))
	out = append(out, errs[:n]...)
	out = append(out, h...)
	return append(out, errs[n:]...)
}

// runtimeClassHandler is the declarative rule on create: required, else a short name (a DNS
// label, its length in bytes).
func runtimeClassHandler(h string) field.ErrorList {
	p := field.NewPath("handler")
	if h == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return invalids(p, h, validation.DNS1123Label(h, validation.ContentMaxLenError))
}

// uniqueTolerations is node's validateTolerations: core's rules for each toleration, then a
// toleration whose key, operator, value and effect equal an earlier one's is a duplicate (its
// bad value the toleration as the apiserver prints the internal struct).
func uniqueTolerations(p field.Path, tols []any) field.ErrorList {
	errs := validateTolerations(p, tols)
	type key struct{ key, op, value, effect string }
	seen := make(map[key]bool, len(tols))
	for i, raw := range tols {
		t := mapOf(raw)
		k := key{str(t, "key"), str(t, "operator"), str(t, "value"), str(t, "effect")}
		if seen[k] {
			var secs *int64
			if v, ok := integer(t, "tolerationSeconds"); ok {
				secs = &v
			}
			errs = append(errs, field.Duplicate(p.Index(i), tolerationJSON{k.key, k.op, k.value, k.effect, secs}))
			continue
		}
		seen[k] = true
	}
	return errs
}

// tolerationJSON is the internal core.Toleration as %v prints it in a Duplicate's bad value.
type tolerationJSON struct {
	Key, Operator, Value, Effect string
	TolerationSeconds            *int64
}

// runtimeClassWarnings is GetWarningsForRuntimeClass: deprecated node labels in the
// scheduling's node selector.
func runtimeClassWarnings(obj, _ map[string]any, _ Options) []string {
	var out []string
	ns := mapOf(mapOf(obj["scheduling"])["nodeSelector"])
	for _, k := range sortedKeys(ns) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			out = append(out, "scheduling.nodeSelector: "+msg)
		}
	}
	return out
}
