package validation

import (
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Pieces every built-in strategy shares: core's ObjectMeta rules, finalizer names, immutable
// fields, and the merging step of declarative validation.

// distinct drops the errors that print like an earlier one. Every built-in strategy embeds
// rest.DeclarativeValidation, whose merging of the hand-written errors with the declarative
// ones filters the hand-written list through apimachinery's ErrorList.ToAggregate, which keeps
// the first of the errors with the same message: a metadata error a strategy finds twice (as
// Namespace's, which validates metadata as on create and as on update) is listed once.
func distinct(errs field.ErrorList) field.ErrorList {
	if len(errs) < 2 {
		return errs
	}
	seen := make(map[string]bool, len(errs))
	out := errs[:0:0]
	for _, e := range errs {
		msg := e.Error()
		if seen[msg] {
			continue
		}
		seen[msg] = true
		out = append(out, e)
	}
	return out
}

// coreObjectMeta is pkg/apis/core/validation's ValidateObjectMeta, which most built-in kinds'
// strategies call: apimachinery's ObjectMeta validation with the kind's name rule, then each
// finalizer without a "/" must be one of the standard ones.
func coreObjectMeta(obj map[string]any, namespaced bool, nameRule func(string, bool) []string) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{Namespaced: namespaced, NameRule: nameRule})
	return append(errs, kubeFinalizerNames(obj)...)
}

// coreObjectMetaUpdate is core's ValidateObjectMetaUpdate: apimachinery's update rules, then the
// finalizer-name check of coreObjectMeta.
func coreObjectMetaUpdate(obj, old map[string]any) field.ErrorList {
	errs := objectMetaUpdate(obj, old, schema.ObjectMetaOptions{ResourceVersionSet: true})
	return append(errs, kubeFinalizerNames(obj)...)
}

// kubeFinalizerNames is core's validateKubeFinalizerName over metadata.finalizers.
func kubeFinalizerNames(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("metadata", "finalizers")
	for i, f := range listOf(mapOf(obj["metadata"])["finalizers"]) {
		s, _ := f.(string)
		errs = append(errs, kubeFinalizerName(p.Index(i), s)...)
	}
	return errs
}

// kubeFinalizerName: a finalizer name without a "/" must be a standard one.
func kubeFinalizerName(p field.Path, s string) field.ErrorList {
	if isStandardFinalizer(s) {
		return nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(p, s, "name is neither a standard finalizer name nor is it fully qualified")}
}

func isStandardFinalizer(s string) bool {
	return s == "kubernetes" || s == "orphan" || s == "foregroundDeletion"
}

// finalizerName is core's validateFinalizerName: a qualified name, then the standard-name rule.
func finalizerName(p field.Path, s string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range validation.IsQualifiedName(s) {
		errs = append(errs, field.Invalid(p, s, m))
	}
	return append(errs, kubeFinalizerName(p, s)...)
}

// immutable is apimachinery's ValidateImmutableField on two values of the object model.
func immutable(p field.Path, v, old any) field.ErrorList {
	if semanticEqual(v, old) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, v, "field is immutable")}
}

// semanticEqual is the equality of two values of the object model.
func semanticEqual(a, b any) bool { return value.Equal(a, b) }
