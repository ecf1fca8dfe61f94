package validation

import (
	"encoding/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// ValidateAccessReview is the validation the REST Create of an access review runs on the
// decoded object (no system fields: a review is never stored) before it asks the authorizer:
// ValidateSubjectAccessReview, ValidateLocalSubjectAccessReview and
// ValidateSelfSubjectAccessReview (authorization.k8s.io), with their declarative rules, which are
// alpha in 1.37 and add nothing. Exactly one of resourceAttributes and nonResourceAttributes;
// a user or a group (but for SelfSubjectAccessReview); the resource attributes' field and label
// selectors (rawSelector or requirements, requirements of any operator); metadata empty (but
// for a LocalSubjectAccessReview's namespace, which resourceAttributes.namespace must match,
// and which may not ask about nonResourceAttributes). Other kinds, the other reviews among
// them (TokenReview, SelfSubjectReview, SelfSubjectRulesReview check their input with 400s, not
// field validation), return nil. obj is not modified.
func ValidateAccessReview(gvk schema.GroupVersionKind, obj map[string]any) field.ErrorList {
	if gvk.Group != "authorization.k8s.io" {
		return nil
	}
	switch gvk.Kind {
	case "SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview":
	default:
		return nil
	}
	spec := mapOf(obj["spec"])
	p := field.NewPath("spec")
	ra, hasRA := spec["resourceAttributes"].(map[string]any)
	nra, hasNRA := spec["nonResourceAttributes"].(map[string]any)
	var errs field.ErrorList
	if hasRA == hasNRA {
		errs = append(errs, field.Invalid(p, nonResourceAttributesValue(nra, hasNRA), "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	if gvk.Kind != "SelfSubjectAccessReview" && str(spec, "user") == "" && len(listOf(spec["groups"])) == 0 {
		errs = append(errs, field.Invalid(p.Child("user"), str(spec, "user"), "at least one of user or group must be specified"))
	}
	if hasRA {
		rp := p.Child("resourceAttributes")
		errs = append(errs, accessReviewSelector(rp.Child("fieldSelector"), ra["fieldSelector"], false)...)
		errs = append(errs, accessReviewSelector(rp.Child("labelSelector"), ra["labelSelector"], true)...)
	}
	md := mapOf(obj["metadata"])
	switch gvk.Kind {
	case "LocalSubjectAccessReview":
		if !emptyMeta(md, "namespace") {
			errs = append(errs, field.Invalid(field.NewPath("metadata"), metaValue(md), "must be empty except for namespace"))
		}
		if hasRA && str(ra, "namespace") != str(md, "namespace") {
			errs = append(errs, field.Invalid(p.Child("resourceAttributes", "namespace"), str(ra, "namespace"), "must match metadata.namespace"))
		}
		if hasNRA {
			errs = append(errs, field.Invalid(p.Child("nonResourceAttributes"), nonResourceAttributesValue(nra, true), "disallowed on this kind of request"))
		}
	default:
		if !emptyMeta(md, "") {
			errs = append(errs, field.Invalid(field.NewPath("metadata"), metaValue(md), "must be empty"))
		}
	}
	return errs
}

// accessReviewSelector is validateFieldSelectorAttributes or validateLabelSelectorAttributes:
// rawSelector or requirements, not both, and each requirement (any operator).
func accessReviewSelector(p field.Path, v any, labels bool) field.ErrorList {
	sel, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	raw, reqs := str(sel, "rawSelector"), listOf(sel["requirements"])
	var errs field.ErrorList
	if raw != "" && len(reqs) > 0 {
		errs = append(errs, field.Invalid(p.Child("rawSelector"), raw, "may not specified at the same time as requirements"))
	}
	if raw == "" && len(reqs) == 0 {
		errs = append(errs, field.Required(p.Child("requirements"), "when "+p.String()+" is specified, requirements or rawSelector is required"))
	}
	for i, r := range reqs {
		rp, rq := p.Child("requirements").Index(i), mapOf(r)
		if labels {
			errs = append(errs, labelSelectorRequirement(rp, rq, LabelSelectorOptions{AllowUnknownOperator: true})...)
			continue
		}
		if str(rq, "key") == "" {
			errs = append(errs, field.Required(rp.Child("key"), "must be specified"))
		}
		values := stringList(rq["values"])
		switch str(rq, "operator") {
		case "In", "NotIn":
			if len(values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case "Exists", "DoesNotExist":
			if len(values) > 0 {
				errs = append(errs, field.Forbidden(rp.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		}
	}
	return errs
}

// nonResourceAttributesValue is the internal *NonResourceAttributes as a bad value.
func nonResourceAttributesValue(nra map[string]any, ok bool) json.RawMessage {
	if !ok {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(struct{ Path, Verb string }{str(nra, "path"), str(nra, "verb")})
	return b
}

// emptyMeta reports whether metadata is the zero ObjectMeta (as Semantic.DeepEqual sees it:
// nil and empty maps and lists alike, an unset time the zero one, a set pointer set even to
// 0), managedFields and the field keep aside.
func emptyMeta(md map[string]any, keep string) bool {
	for k, v := range md {
		if k == "managedFields" || k == keep {
			continue
		}
		if k == "deletionGracePeriodSeconds" && v != nil {
			return false // a pointer: 0 is set
		}
		switch x := v.(type) {
		case nil:
		case string:
			if x != "" {
				return false
			}
		case int64:
			if x != 0 {
				return false
			}
		case float64:
			if x != 0 {
				return false
			}
		case []any:
			if len(x) > 0 {
				return false
			}
		case map[string]any:
			if len(x) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// metaValue is a metav1.ObjectMeta as a bad value: its JSON.
func metaValue(md map[string]any) json.RawMessage {
	b, _ := json.Marshal(newObjectMetaJSON(md))
	return b
}
