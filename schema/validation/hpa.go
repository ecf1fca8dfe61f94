package validation

import (
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// HorizontalPodAutoscaler: pkg/registry/autoscaling/horizontalpodautoscaler over
// ValidateHorizontalPodAutoscaler(Update) and ValidateHorizontalPodAutoscalerStatusUpdate
// (pkg/apis/autoscaling/validation), feature gates at their 1.37 defaults (HPAScaleToZero and
// HPAGeneration beta, on; HPAConfigurableTolerance GA). The rules read the autoscaling/v2 shape,
// which is the internal one; 1.37's enforced (beta) declarative rules on minReplicas and
// maxReplicas replace the hand-written ones they cover and come after them. An autoscaling/v1
// object is validated as it is (the rules it shares with v2: replicas and scaleTargetRef), not
// converted to the internal version first as the apiserver does: its targetCPUUtilizationPercentage
// is not checked.

func validateHPA(obj map[string]any, _ Options) field.ErrorList {
	spec := mapOf(obj["spec"])
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	errs = append(errs, hpaSpec(field.NewPath("spec"), spec, hpaOptions(spec, nil))...)
	return withDeclarative(errs, hpaDeclarative(spec, nil))
}

func validateHPAUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if opts.Subresource == "status" {
		st := mapOf(obj["status"])
		for i, c := range listOf(st["conditions"]) {
			if g, ok := optInt(mapOf(c), "observedGeneration"); ok {
				errs = append(errs, nonNegative(field.NewPath("status", "conditions").Index(i).Child("observedGeneration"), g)...)
			}
		}
		for _, k := range []string{"currentReplicas", "desiredReplicas"} {
			v, _ := optInt(st, k)
			errs = append(errs, nonNegative(field.NewPath("status", k), v)...)
		}
		return withDeclarative(errs, nil)
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	errs = append(errs, hpaSpec(field.NewPath("spec"), spec, hpaOptions(spec, oldSpec))...)
	return withDeclarative(errs, hpaDeclarative(spec, oldSpec))
}

// hpaRefOptions are CrossVersionObjectReferenceValidationOptions.
type hpaRefOptions struct {
	allowEmptyGroup, allowInvalidAPIVersion bool
}

// hpaOpts are HorizontalPodAutoscalerSpecValidationOptions as the strategy derives them
// (validationOptionsForHorizontalPodAutoscaler; oldSpec nil on create).
type hpaOpts struct {
	scaleTarget, objectMetrics hpaRefOptions
}

func hpaOptions(spec, oldSpec map[string]any) hpaOpts {
	o := hpaOpts{objectMetrics: hpaRefOptions{allowEmptyGroup: true}}
	ref := mapOf(spec["scaleTargetRef"])
	switch oldRef := mapOf(oldSpec["scaleTargetRef"]); {
	case oldSpec != nil && str(oldRef, "apiVersion") == str(ref, "apiVersion") && str(oldRef, "kind") == str(ref, "kind"):
		o.scaleTarget.allowInvalidAPIVersion = true
	case str(ref, "kind") == "ReplicationController":
		o.scaleTarget.allowEmptyGroup = true
	}
	for _, m := range listOf(oldSpec["metrics"]) {
		mm := mapOf(m)
		if src, ok := mm["object"].(map[string]any); ok && str(mm, "type") == "Object" {
			if hpaAPIVersionError(mapOf(src["describedObject"]), o.objectMetrics) != nil {
				o.objectMetrics.allowInvalidAPIVersion = true
				break
			}
		}
	}
	return o
}

// hpaDeclarative is 1.37's enforced declarative rules: minReplicas at least 0 (HPAScaleToZero),
// maxReplicas required and at least 1; on update only when the value changed.
func hpaDeclarative(spec, oldSpec map[string]any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	min, hasMin := optInt(spec, "minReplicas")
	oldMin, oldHasMin := optInt(oldSpec, "minReplicas")
	if hasMin && min < 0 && (oldSpec == nil || !oldHasMin || oldMin != min) {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), min, "must be greater than or equal to 0"))
	}
	max, _ := optInt(spec, "maxReplicas")
	oldMax, _ := optInt(oldSpec, "maxReplicas")
	if oldSpec == nil || oldMax != max {
		switch {
		case max == 0:
			errs = append(errs, field.Required(p.Child("maxReplicas"), ""))
		case max < 1:
			errs = append(errs, field.Invalid(p.Child("maxReplicas"), max, "must be greater than or equal to 1"))
		}
	}
	return errs
}

// hpaSpec is validateHorizontalPodAutoscalerSpec without the rules the declarative ones cover.
func hpaSpec(p field.Path, spec map[string]any, o hpaOpts) field.ErrorList {
	var errs field.ErrorList
	min, hasMin := optInt(spec, "minReplicas")
	max, _ := optInt(spec, "maxReplicas")
	if hasMin && max < min {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), max, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, hpaObjectRef(p.Child("scaleTargetRef"), mapOf(spec["scaleTargetRef"]), o.scaleTarget)...)
	errs = append(errs, hpaMetrics(p.Child("metrics"), listOf(spec["metrics"]), min, hasMin, o.objectMetrics)...)
	if b, ok := spec["behavior"].(map[string]any); ok {
		for _, dir := range []string{"scaleUp", "scaleDown"} {
			if r, ok := b[dir].(map[string]any); ok {
				errs = append(errs, hpaScalingRules(p.Child("behavior", dir), r)...)
			}
		}
	}
	return errs
}

// hpaObjectRef is ValidateCrossVersionObjectReference.
func hpaObjectRef(p field.Path, ref map[string]any, o hpaRefOptions) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []string{"kind", "name"} {
		if v := str(ref, k); v == "" {
			errs = append(errs, field.Required(p.Child(k), ""))
		} else {
			errs = append(errs, invalids(p.Child(k), v, validation.IsValidPathSegmentName(v))...)
		}
	}
	if err := hpaAPIVersionError(ref, o); err != nil {
		errs = append(errs, field.Invalid(p.Child("apiVersion"), str(ref, "apiVersion"), err.Error()))
	}
	return errs
}

// hpaAPIVersionError is ValidateAPIVersion.
func hpaAPIVersionError(ref map[string]any, o hpaRefOptions) error {
	if o.allowInvalidAPIVersion {
		return nil
	}
	gv, err := schema.ParseAPIVersion(str(ref, "apiVersion"))
	if err != nil {
		return err
	}
	if !o.allowEmptyGroup && gv.Group == "" {
		return fmt.Errorf("apiVersion must specify API group")
	}
	return nil
}

func hpaMetrics(p field.Path, metrics []any, min int64, hasMin bool, o hpaRefOptions) field.ErrorList {
	var errs field.ErrorList
	var objectOrExternal bool
	for i, m := range metrics {
		mm := mapOf(m)
		errs = append(errs, hpaMetricSpec(p.Index(i), mm, o)...)
		if t := str(mm, "type"); t == "Object" || t == "External" {
			objectOrExternal = true
		}
	}
	if hasMin && min == 0 && !objectOrExternal {
		errs = append(errs, field.Forbidden(p, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

var (
	hpaMetricTypes = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}
	// hpaSources are the metric source fields in the order validateMetricSpec checks them, with
	// the type that expects each.
	hpaSources = []struct{ field, typ string }{
		{"object", "Object"}, {"external", "External"}, {"pods", "Pods"}, {"resource", "Resource"},
		{"containerResource", "ContainerResource"},
	}
)

func hpaMetricSpec(p field.Path, m map[string]any, o hpaRefOptions) field.ErrorList {
	var errs field.ErrorList
	typ := str(m, "type")
	if typ == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric source type"))
	}
	known := false
	for _, t := range hpaMetricTypes {
		known = known || t == typ
	}
	if !known {
		errs = append(errs, field.NotSupported(p.Child("type"), typ, hpaMetricTypes))
	}
	var present []string
	for _, s := range hpaSources {
		src, ok := m[s.field].(map[string]any)
		if !ok {
			continue
		}
		present = append(present, s.field)
		if len(present) > 1 {
			continue
		}
		sp := p.Child(s.field)
		switch s.field {
		case "object":
			errs = append(errs, hpaObjectRef(sp.Child("describedObject"), mapOf(src["describedObject"]), o)...)
			errs = append(errs, hpaMetricIdentifier(sp.Child("metric"), mapOf(src["metric"]))...)
			t := mapOf(src["target"])
			errs = append(errs, hpaMetricTarget(sp.Child("target"), t)...)
			if t["value"] == nil && t["averageValue"] == nil {
				errs = append(errs, field.Required(sp.Child("target", "averageValue"), "must set either a target value or averageValue"))
			}
		case "external":
			errs = append(errs, hpaMetricIdentifier(sp.Child("metric"), mapOf(src["metric"]))...)
			t := mapOf(src["target"])
			errs = append(errs, hpaMetricTarget(sp.Child("target"), t)...)
			if t["value"] == nil && t["averageValue"] == nil {
				errs = append(errs, field.Required(sp.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
			}
			if t["value"] != nil && t["averageValue"] != nil {
				errs = append(errs, field.Forbidden(sp.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
			}
		case "pods":
			errs = append(errs, hpaMetricIdentifier(sp.Child("metric"), mapOf(src["metric"]))...)
			t := mapOf(src["target"])
			errs = append(errs, hpaMetricTarget(sp.Child("target"), t)...)
			if t["averageValue"] == nil {
				errs = append(errs, field.Required(sp.Child("target", "averageValue"), "must specify a positive target averageValue"))
			}
		case "resource", "containerResource":
			name := str(src, "name")
			if name == "" {
				errs = append(errs, field.Required(sp.Child("name"), "must specify a resource name"))
			} else if s.field == "containerResource" {
				errs = append(errs, ValidateContainerResourceName(sp.Child("name"), name)...)
			}
			if s.field == "containerResource" {
				if c := str(src, "container"); c == "" {
					errs = append(errs, field.Required(sp.Child("container"), "must specify a container"))
				} else {
					errs = append(errs, dns1123Label(sp.Child("container"), c)...)
				}
			}
			t := mapOf(src["target"])
			errs = append(errs, hpaMetricTarget(sp.Child("target"), t)...)
			if t["averageUtilization"] == nil && t["averageValue"] == nil {
				errs = append(errs, field.Required(sp.Child("target", "averageUtilization"), "must set either a target raw value or a target utilization"))
			}
			if t["averageUtilization"] != nil && t["averageValue"] != nil {
				errs = append(errs, field.Forbidden(sp.Child("target", "averageValue"), "may not set both a target raw value and a target utilization"))
			}
		}
	}
	expected := ""
	switch typ {
	case "Object", "Pods", "Resource", "External", "ContainerResource":
		for _, s := range hpaSources {
			if s.typ == typ {
				expected = s.field
			}
		}
		if _, ok := m[expected].(map[string]any); !ok {
			errs = append(errs, field.Required(p.Child(expected), "must populate information for the given metric source"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), typ, hpaMetricTypes))
	}
	if len(present) != 1 {
		for _, f := range present {
			if f != expected {
				errs = append(errs, field.Forbidden(p.Child(f), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

func hpaMetricIdentifier(p field.Path, id map[string]any) field.ErrorList {
	name := str(id, "name")
	if name == "" {
		return field.ErrorList{field.Required(p.Child("name"), "must specify a metric name")}
	}
	return invalids(p.Child("name"), name, validation.IsValidPathSegmentName(name))
}

func hpaMetricTarget(p field.Path, t map[string]any) field.ErrorList {
	var errs field.ErrorList
	typ := str(t, "type")
	if typ == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	}
	if typ != "Utilization" && typ != "Value" && typ != "AverageValue" {
		errs = append(errs, field.Invalid(p.Child("type"), typ, "must be either Utilization, Value, or AverageValue"))
	}
	for _, k := range []string{"value", "averageValue"} {
		if q, ok := qty(t[k]); ok && q.Sign() != 1 {
			errs = append(errs, field.Invalid(p.Child(k), quantityValue{q}, "must be positive"))
		}
	}
	if u, ok := optInt(t, "averageUtilization"); ok && u < 1 {
		errs = append(errs, field.Invalid(p.Child("averageUtilization"), u, "must be greater than 0"))
	}
	return errs
}

func hpaScalingRules(p field.Path, r map[string]any) field.ErrorList {
	var errs field.ErrorList
	if w, ok := optInt(r, "stabilizationWindowSeconds"); ok {
		if w < 0 {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), w, "must be greater than or equal to zero"))
		}
		if w > 3600 {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), w, "must be less than or equal to 3600"))
		}
	}
	if sp, ok := r["selectPolicy"].(string); ok && sp != "Max" && sp != "Min" && sp != "Disabled" {
		errs = append(errs, field.NotSupported(p.Child("selectPolicy"), sp, []string{"Disabled", "Max", "Min"}))
	}
	pp := p.Child("policies")
	policies := listOf(r["policies"])
	if len(policies) == 0 {
		errs = append(errs, field.Required(pp, "must specify at least one Policy"))
	}
	for i, pol := range policies {
		pm, ip := mapOf(pol), pp.Index(i)
		if t := str(pm, "type"); t != "Pods" && t != "Percent" {
			errs = append(errs, field.NotSupported(ip.Child("type"), t, []string{"Percent", "Pods"}))
		}
		v, _ := optInt(pm, "value")
		if v <= 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), v, "must be greater than zero"))
		}
		ps, _ := optInt(pm, "periodSeconds")
		if ps <= 0 {
			errs = append(errs, field.Invalid(ip.Child("periodSeconds"), ps, "must be greater than zero"))
		}
		if ps > 1800 {
			errs = append(errs, field.Invalid(ip.Child("periodSeconds"), ps, "must be less than or equal to 1800"))
		}
	}
	if q, ok := qty(r["tolerance"]); ok && q.Sign() < 0 {
		errs = append(errs, field.Invalid(p.Child("tolerance"), q.String(), "must be greater than or equal to 0"))
	}
	return errs
}
