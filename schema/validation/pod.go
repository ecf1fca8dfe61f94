package validation

import (
	"fmt"
	"math"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// PodOptions are the apiserver's PodValidationOptions: what the pod's strategy (or the
// workload's, for a template) derives from the feature gates at their 1.37 defaults and from the
// stored object, so that an update may keep a value that an older server allowed. Build them
// with NewPodOptions; the zero value is a create of a pod template.
type PodOptions struct {
	// ResourceIsPod is true when the object validated is a Pod (not a template in another kind).
	ResourceIsPod bool
	// update is true when an old spec was given.
	update bool
}

// NewPodOptions derives the options from a pod spec and the stored one (nil on create), as
// GetValidationOptionsFromPodSpecAndMeta does. Neither is modified.
func NewPodOptions(spec, oldSpec map[string]any) PodOptions {
	return PodOptions{update: oldSpec != nil}
}

// validatePodCreate is the pod strategy's Validate (ValidatePodCreate).
func validatePodCreate(obj map[string]any, _ Options) field.ErrorList {
	spec := mapOf(obj["spec"])
	opts := NewPodOptions(spec, nil)
	opts.ResourceIsPod = true
	errs := validatePodMetadataAndSpec(obj, opts)
	sp := field.NewPath("spec")
	if len(listOf(spec["ephemeralContainers"])) > 0 {
		errs = append(errs, field.Forbidden(sp.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if str(spec, "nodeName") != "" && len(listOf(spec["schedulingGates"])) != 0 {
		errs = append(errs, field.Forbidden(sp.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return errs
}

// validatePodUpdate is the pod strategies' ValidateUpdate: the pod itself (ValidatePodUpdate)
// or its status subresource (ValidatePodStatusUpdate).
func validatePodUpdate(obj, old map[string]any, o Options) field.ErrorList {
	opts := NewPodOptions(mapOf(obj["spec"]), mapOf(old["spec"]))
	opts.ResourceIsPod = true
	switch o.Subresource {
	case "":
		errs := objectMetaUpdate(obj, old, schema.ObjectMetaOptions{Namespaced: true})
		return append(errs, validatePodMetadataAndSpec(obj, opts)...)
	}
	return nil
}

// validatePodMetadataAndSpec is validatePodMetadataAndSpec: the pod's metadata and spec, and
// the checks proper to a pod (not a template).
func validatePodMetadataAndSpec(obj map[string]any, opts PodOptions) field.ErrorList {
	spec := mapOf(obj["spec"])
	sp := field.NewPath("spec")
	errs := objectMeta(obj, schema.ObjectMetaOptions{Namespaced: true})
	errs = append(errs, ValidatePodSpec(sp, spec, opts)...)
	if str(spec, "serviceAccountName") == "" {
		for vi, v := range listOf(spec["volumes"]) {
			proj := mapOf(mapOf(v)["projected"])
			if proj == nil {
				continue
			}
			for si, s := range listOf(proj["sources"]) {
				if has(mapOf(s), "serviceAccountToken") {
					errs = append(errs, field.Forbidden(sp.Child("volumes").Index(vi).Child("projected", "sources").Index(si).Child("serviceAccountToken"),
						"must not be specified when serviceAccountName is not set"))
				}
			}
		}
	}
	if n, ok := integer(spec, "terminationGracePeriodSeconds"); ok && n < 0 {
		errs = append(errs, field.Invalid(sp.Child("terminationGracePeriodSeconds"), n, "must be greater than or equal to 0"))
	}
	return errs
}

// validatePodTemplate is the PodTemplate strategy's Validate (ValidatePodTemplate).
func validatePodTemplate(obj map[string]any, _ Options) field.ErrorList {
	tmpl := mapOf(obj["template"])
	opts := NewPodOptions(mapOf(tmpl["spec"]), nil)
	errs := objectMeta(obj, schema.ObjectMetaOptions{Namespaced: true})
	return append(errs, ValidatePodTemplateSpec(field.NewPath("template"), tmpl, opts)...)
}

// validatePodTemplateUpdate is ValidatePodTemplateUpdate.
func validatePodTemplateUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	tmpl := mapOf(obj["template"])
	opts := NewPodOptions(mapOf(tmpl["spec"]), mapOf(mapOf(old["template"])["spec"]))
	errs := objectMetaUpdate(obj, old, schema.ObjectMetaOptions{Namespaced: true})
	return append(errs, ValidatePodTemplateSpec(field.NewPath("template"), tmpl, opts)...)
}

// ValidatePodTemplateSpec is the apiserver's ValidatePodTemplateSpec: a template's labels,
// annotations and pod spec, as every workload validates its spec.template (path is where the
// template sits, e.g. spec.template). tmpl is not modified.
func ValidatePodTemplateSpec(path field.Path, tmpl map[string]any, opts PodOptions) field.ErrorList {
	md := mapOf(tmpl["metadata"])
	errs := schema.ValidateLabels(stringMap(md["labels"]), path.Child("labels"))
	errs = append(errs, schema.ValidateAnnotations(stringMap(md["annotations"]), path.Child("annotations"))...)
	spec := mapOf(tmpl["spec"])
	errs = append(errs, ValidatePodSpec(path.Child("spec"), spec, opts)...)
	if len(listOf(spec["ephemeralContainers"])) > 0 {
		errs = append(errs, field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// ValidatePodSpec is the apiserver's ValidatePodSpec on a pod spec at path. spec is not
// modified.
func ValidatePodSpec(path field.Path, spec map[string]any, opts PodOptions) field.ErrorList {
	var errs field.ErrorList
	if !has(spec, "terminationGracePeriodSeconds") {
		errs = append(errs, field.Required(path.Child("terminationGracePeriodSeconds"), ""))
	}
	errs = append(errs, enumRequired(path.Child("restartPolicy"), str(spec, "restartPolicy"), "Always", "OnFailure", "Never")...)
	errs = append(errs, enumRequired(path.Child("dnsPolicy"), str(spec, "dnsPolicy"), "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")...)
	errs = append(errs, schema.ValidateLabels(stringMap(spec["nodeSelector"]), path.Child("nodeSelector"))...)
	if sa := str(spec, "serviceAccountName"); sa != "" {
		for _, msg := range ivalidation.NameIsDNSSubdomain(sa, false) {
			errs = append(errs, field.Invalid(path.Child("serviceAccountName"), sa, msg))
		}
	}
	if d, sa := str(spec, "serviceAccount"), str(spec, "serviceAccountName"); d != sa {
		errs = append(errs, field.Invalid(path.Child("deprecatedServiceAccount"), d, fmt.Sprintf("must be the same as serviceAccountName: %q", sa)))
	}
	if n := str(spec, "nodeName"); n != "" {
		for _, msg := range ivalidation.NameIsDNSSubdomain(n, false) {
			errs = append(errs, field.Invalid(path.Child("nodeName"), n, msg))
		}
	}
	if v, ok := integer(spec, "activeDeadlineSeconds"); ok && (v < 1 || v > math.MaxInt32) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), v, inclusiveRange(1, math.MaxInt32)))
	}
	for _, key := range []string{"hostname", "subdomain"} {
		if v := str(spec, key); v != "" {
			errs = append(errs, dns1123Label(path.Child(key), v)...)
		}
	}
	if v := str(spec, "priorityClassName"); v != "" {
		for _, msg := range ivalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(path.Child("priorityClassName"), v, msg))
		}
	}
	return errs
}

// podWarnings is the pod strategy's WarningsOnCreate; WarningsOnUpdate returns none (the
// apiserver skips them on the high-frequency pod update path).
func podWarnings(obj, old map[string]any, _ Options) []string {
	if old != nil {
		return nil
	}
	var warnings []string
	name := str(mapOf(obj["metadata"]), "name")
	if msgs := ivalidation.IsDNS1123Label(name); len(msgs) != 0 {
		warnings = append(warnings, fmt.Sprintf("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
	}
	return warnings
}

// podTemplateWarnings is the PodTemplate strategy's WarningsOnCreate and WarningsOnUpdate.
func podTemplateWarnings(obj, old map[string]any, _ Options) []string {
	return nil
}

// enumRequired is the switch the apiserver writes for a required enumeration: empty is
// Required, an unknown value NotSupported with the values in the order given.
func enumRequired(p field.Path, v string, valid ...string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	for _, x := range valid {
		if v == x {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, v, valid)}
}

func dns1123Label(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range ivalidation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// inclusiveRange is apimachinery's InclusiveRangeError.
func inclusiveRange(lo, hi int) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}
