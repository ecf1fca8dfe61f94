package conversion

import (
	"encoding/json"
	"errors"
	"strings"

	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// HorizontalPodAutoscaler autoscaling/v1 <-> autoscaling/v2, as
// k8s.io/kubernetes v1.37.2's pkg/apis/autoscaling/{v1,v2} convert through the
// internal version. v2 and the internal type have the same fields; v1 has only
// the CPU utilization target, and keeps the rest in annotations:
//
//   - autoscaling.alpha.kubernetes.io/metrics: the metrics other than the
//     (first and every other) Resource cpu metric with an averageUtilization,
//     as v1 MetricSpec JSON; that first cpu metric is
//     spec.targetCPUUtilizationPercentage;
//   - autoscaling.alpha.kubernetes.io/current-metrics: every current metric
//     (v1 MetricStatus JSON); the last cpu one with an averageUtilization is
//     also status.currentCPUUtilizationPercentage;
//   - autoscaling.alpha.kubernetes.io/behavior: spec.behavior as the internal
//     Go type marshals (field names capitalised, no omitempty);
//   - autoscaling.alpha.kubernetes.io/conditions: the conditions.
//
// On the way back an annotation that does not decode is ignored; the metrics
// from the annotation come first and the CPU target last; without any metric
// the v1 object gets the 80 % CPU target that v1 has always implied. The
// round-trip annotations (those four and the two tolerance ones) are dropped
// from every converted object, whatever the direction.
const (
	annHPAMetrics        = "autoscaling.alpha.kubernetes.io/metrics"
	annHPACurrentMetrics = "autoscaling.alpha.kubernetes.io/current-metrics"
	annHPAConditions     = "autoscaling.alpha.kubernetes.io/conditions"
	annHPABehavior       = "autoscaling.alpha.kubernetes.io/behavior"
	annHPAToleranceDown  = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	annHPAToleranceUp    = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

var (
	hpaV1 = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	hpaV2 = schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
)

// errHPAPanic stands for the index out of range kube-apiserver's v1
// conversion panics with when it converts an object with the metrics
// annotation and no CPU target into an internal object whose metrics are an
// empty, non-nil list (its admission never holds one: v2 defaulting fills an
// empty metrics list).
var errHPAPanic = errors.New("kube-apiserver's conversion panics here: the metrics annotation of an autoscaling/v1 object converted into an object with an empty, non-nil spec.metrics (index out of range)")

// convertHPA converts a HorizontalPodAutoscaler between autoscaling/v1 and
// autoscaling/v2 (ok is false for any other conversion). A v1 object is
// converted into the internal object base holds (of kind to, nil for a fresh
// one), as the admission dispatchers convert a webhook's or policy's result
// back: the fields v1 cannot express (the metrics without a CPU target,
// behavior, the current metrics without a current CPU utilization,
// conditions) keep base's values unless v1's annotations carry them. obj and
// base are not modified.
func convertHPA(obj, base map[string]any, from, to schema.GroupVersionKind) (map[string]any, bool, error) {
	if (from != hpaV1 && from != hpaV2) || (to != hpaV1 && to != hpaV2) || from == to {
		return nil, false, nil
	}
	meta := map[string]any{}
	if md, ok := obj["metadata"].(map[string]any); ok {
		c, err := value.DeepCopyMap(md)
		if err != nil {
			return nil, true, err
		}
		meta = c
	}
	var in hpa2HorizontalPodAutoscaler
	var ann map[string]string
	if from == hpaV2 {
		if err := decodeHPA(obj, &in); err != nil {
			return nil, true, err
		}
		ann = dropHPAAnnotations(in.Metadata.Annotations)
	} else {
		var v1 hpa1HorizontalPodAutoscaler
		if err := decodeHPA(obj, &v1); err != nil {
			return nil, true, err
		}
		if base != nil {
			// The object converted into: v2 -> internal is total.
			if err := decodeHPA(base, &in); err != nil {
				return nil, true, err
			}
		}
		var err error
		if ann, err = hpaV1ToInternal(&v1, &in); err != nil {
			return nil, true, err
		}
	}
	var spec, status any
	if to == hpaV2 {
		spec, status = in.Spec, in.Status
	} else {
		v1, a, err := hpaInternalToV1(&in, ann)
		if err != nil {
			return nil, true, err
		}
		spec, status, ann = v1.Spec, v1.Status, a
	}
	delete(meta, "annotations")
	if len(ann) > 0 {
		m := make(map[string]any, len(ann))
		for k, v := range ann {
			m[k] = v
		}
		meta["annotations"] = m
	}
	out := map[string]any{"apiVersion": to.APIVersion(), "kind": to.Kind, "metadata": meta}
	for k, v := range map[string]any{"spec": spec, "status": status} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, true, err
		}
		if out[k], err = codec.DecodeValue(b); err != nil {
			return nil, true, err
		}
	}
	return out, true, nil
}

// decodeHPA decodes obj into the Go type v as the apiserver's JSON serializer
// does (case-sensitive field names; unknown fields dropped; the first value of
// the wrong type is the error, worded with k8s.io/api's type names).
func decodeHPA(obj map[string]any, v any) error {
	b, err := codec.EncodeJSON(obj)
	if err != nil {
		return err
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, v); err != nil {
		return errors.New(hpaTypeNames.Replace(err.Error()))
	}
	return nil
}

// hpaTypeNames restores the packages and names of k8s.io/api's types in
// decoding errors.
var hpaTypeNames = strings.NewReplacer("conversion.hpa1", "v1.", "conversion.hpa2", "v2.", "conversion.hpaMeta", "v1.",
	"conversion.hpaCore", "v1.", "conversion.hpaObjectMeta", "v1.ObjectMeta", "conversion.hpaQuantity", "resource.Quantity",
	"codec.Time", "v1.Time", "hpaObjectMeta", "ObjectMeta", "hpa1", "", "hpa2", "", "hpaMeta", "")

// dropHPAAnnotations is DropRoundTripHorizontalPodAutoscalerAnnotations: a
// copy of ann without the round-trip annotations (ann itself when it has
// none).
func dropHPAAnnotations(ann map[string]string) map[string]string {
	keys := []string{annHPAMetrics, annHPABehavior, annHPAToleranceDown, annHPAToleranceUp, annHPACurrentMetrics, annHPAConditions}
	has := false
	for _, k := range keys {
		if _, ok := ann[k]; ok {
			has = true
		}
	}
	if !has {
		return ann
	}
	out := make(map[string]string, len(ann))
	for k, v := range ann {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func isCPUUtilizationMetric(m *hpa2MetricSpec) bool {
	return m.Type == "Resource" && m.Resource != nil && m.Resource.Name == "cpu" && m.Resource.Target.AverageUtilization != nil
}

// hpaInternalToV1 is Convert_autoscaling_HorizontalPodAutoscaler_To_v1: the
// v1 spec and status of in, and the annotations (ann without round-trip
// annotations, with those in's v2 fields need).
func hpaInternalToV1(in *hpa2HorizontalPodAutoscaler, ann map[string]string) (*hpa1HorizontalPodAutoscaler, map[string]string, error) {
	out := &hpa1HorizontalPodAutoscaler{}
	out.Spec = hpa1HorizontalPodAutoscalerSpec{ScaleTargetRef: hpa1CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas: in.Spec.MinReplicas, MaxReplicas: in.Spec.MaxReplicas}
	for i := range in.Spec.Metrics {
		if m := &in.Spec.Metrics[i]; isCPUUtilizationMetric(m) {
			out.Spec.TargetCPUUtilizationPercentage = ptrCopy(m.Resource.Target.AverageUtilization)
			break
		}
	}
	out.Status = hpa1HorizontalPodAutoscalerStatus{ObservedGeneration: in.Status.ObservedGeneration, LastScaleTime: in.Status.LastScaleTime,
		CurrentReplicas: in.Status.CurrentReplicas, DesiredReplicas: in.Status.DesiredReplicas}
	for _, m := range in.Status.CurrentMetrics {
		if m.Type == "Resource" && m.Resource != nil && m.Resource.Name == "cpu" && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = ptrCopy(m.Resource.Current.AverageUtilization)
		}
	}

	ann = dropHPAAnnotations(ann)
	copied := false
	set := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !copied {
			c := make(map[string]string, len(ann)+1)
			for k, v := range ann {
				c[k] = v
			}
			ann, copied = c, true
		}
		ann[k] = string(b)
		return nil
	}
	other := make([]hpa1MetricSpec, 0, len(in.Spec.Metrics))
	for i := range in.Spec.Metrics {
		if m := &in.Spec.Metrics[i]; !isCPUUtilizationMetric(m) {
			other = append(other, hpaMetricSpecToV1(m))
		}
	}
	current := make([]hpa1MetricStatus, len(in.Status.CurrentMetrics))
	for i := range in.Status.CurrentMetrics {
		current[i] = hpaMetricStatusToV1(&in.Status.CurrentMetrics[i])
	}
	conditions := make([]hpa1HorizontalPodAutoscalerCondition, len(in.Status.Conditions))
	for i, c := range in.Status.Conditions {
		conditions[i] = hpa1HorizontalPodAutoscalerCondition{Type: hpa1HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration}
	}
	if len(other) > 0 {
		if err := set(annHPAMetrics, other); err != nil {
			return nil, nil, err
		}
	}
	if len(in.Status.CurrentMetrics) > 0 {
		if err := set(annHPACurrentMetrics, current); err != nil {
			return nil, nil, err
		}
	}
	if in.Spec.Behavior != nil {
		if err := set(annHPABehavior, hpaBehaviorToInternal(in.Spec.Behavior)); err != nil {
			return nil, nil, err
		}
	}
	if len(in.Status.Conditions) > 0 {
		if err := set(annHPAConditions, conditions); err != nil {
			return nil, nil, err
		}
	}
	return out, ann, nil
}

// hpaV1ToInternal is Convert_v1_HorizontalPodAutoscaler_To_autoscaling into
// out (zero, or the internal object converted into): it returns the
// annotations of the result.
func hpaV1ToInternal(in *hpa1HorizontalPodAutoscaler, out *hpa2HorizontalPodAutoscaler) (map[string]string, error) {
	ann := in.Metadata.Annotations
	out.Spec.ScaleTargetRef = hpa2CrossVersionObjectReference(in.Spec.ScaleTargetRef)
	out.Spec.MinReplicas, out.Spec.MaxReplicas = in.Spec.MinReplicas, in.Spec.MaxReplicas
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		out.Spec.Metrics = []hpa2MetricSpec{cpuUtilizationMetric(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	out.Status.ObservedGeneration, out.Status.LastScaleTime = in.Status.ObservedGeneration, in.Status.LastScaleTime
	out.Status.CurrentReplicas, out.Status.DesiredReplicas = in.Status.CurrentReplicas, in.Status.DesiredReplicas
	if in.Status.CurrentCPUUtilizationPercentage != nil {
		u := *in.Status.CurrentCPUUtilizationPercentage
		out.Status.CurrentMetrics = []hpa2MetricStatus{{Type: "Resource", Resource: &hpa2ResourceMetricStatus{Name: "cpu",
			Current: hpa2MetricValueStatus{AverageUtilization: &u}}}}
	}

	// The annotations are read with encoding/json, as the conversion does.
	if enc, ok := ann[annHPAMetrics]; ok {
		var other []hpa1MetricSpec
		if err := json.Unmarshal([]byte(enc), &other); err == nil {
			metrics := make([]hpa2MetricSpec, len(other)+len(out.Spec.Metrics))
			for i := range other {
				metrics[i] = hpaMetricSpecFromV1(&other[i])
			}
			if out.Spec.Metrics != nil {
				if len(other) >= len(metrics) {
					return nil, errHPAPanic
				}
				metrics[len(other)] = out.Spec.Metrics[0]
			}
			out.Spec.Metrics = metrics
		}
	}
	if enc, ok := ann[annHPABehavior]; ok {
		var b hpaInternalBehavior
		if err := json.Unmarshal([]byte(enc), &b); err == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = hpaBehaviorFromInternal(&b)
		}
	}
	if enc, ok := ann[annHPACurrentMetrics]; ok {
		var current []hpa1MetricStatus
		if err := json.Unmarshal([]byte(enc), &current); err == nil {
			out.Status.CurrentMetrics = make([]hpa2MetricStatus, len(current))
			for i := range current {
				out.Status.CurrentMetrics[i] = hpaMetricStatusFromV1(&current[i])
			}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []hpa2MetricSpec{cpuUtilizationMetric(80)}
	}
	if enc, ok := ann[annHPAConditions]; ok {
		var conditions []hpa1HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(enc), &conditions); err == nil {
			out.Status.Conditions = make([]hpa2HorizontalPodAutoscalerCondition, len(conditions))
			for i, c := range conditions {
				out.Status.Conditions[i] = hpa2HorizontalPodAutoscalerCondition{Type: hpa2HorizontalPodAutoscalerConditionType(c.Type),
					Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration}
			}
		}
	}
	return dropHPAAnnotations(ann), nil
}

func cpuUtilizationMetric(u int32) hpa2MetricSpec {
	return hpa2MetricSpec{Type: "Resource", Resource: &hpa2ResourceMetricSource{Name: "cpu",
		Target: hpa2MetricTarget{Type: "Utilization", AverageUtilization: &u}}}
}

func ptrCopy[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func hpaMetricSpecToV1(in *hpa2MetricSpec) hpa1MetricSpec {
	out := hpa1MetricSpec{Type: hpa1MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		o := &hpa1ObjectMetricSource{AverageValue: s.Target.AverageValue, Target: hpa1CrossVersionObjectReference(s.DescribedObject),
			MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Target.Value != nil {
			o.TargetValue = *s.Target.Value
		}
		out.Object = o
	}
	if s := in.Pods; s != nil {
		p := &hpa1PodsMetricSource{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Target.AverageValue != nil {
			p.TargetAverageValue = *s.Target.AverageValue
		}
		out.Pods = p
	}
	if s := in.Resource; s != nil {
		out.Resource = &hpa1ResourceMetricSource{Name: s.Name, TargetAverageUtilization: s.Target.AverageUtilization,
			TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &hpa1ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.External; s != nil {
		out.External = &hpa1ExternalMetricSource{MetricName: s.Metric.Name, TargetValue: s.Target.Value,
			TargetAverageValue: s.Target.AverageValue, MetricSelector: s.Metric.Selector}
	}
	return out
}

func hpaMetricSpecFromV1(in *hpa1MetricSpec) hpa2MetricSpec {
	out := hpa2MetricSpec{Type: hpa2MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		o := &hpa2ObjectMetricSource{DescribedObject: hpa2CrossVersionObjectReference(s.Target),
			Metric: hpa2MetricIdentifier{Name: s.MetricName, Selector: s.Selector}}
		tv := s.TargetValue
		if s.AverageValue == nil {
			o.Target = hpa2MetricTarget{Type: "Value", Value: &tv}
		} else {
			o.Target = hpa2MetricTarget{Type: "AverageValue", AverageValue: s.AverageValue}
			// Only a non-zero targetValue is kept for an averageValue metric.
			if !tv.isZero() {
				o.Target.Value = &tv
			}
		}
		out.Object = o
	}
	if s := in.Pods; s != nil {
		av := s.TargetAverageValue
		out.Pods = &hpa2PodsMetricSource{Metric: hpa2MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target: hpa2MetricTarget{Type: "AverageValue", AverageValue: &av}}
	}
	if s := in.Resource; s != nil {
		out.Resource = &hpa2ResourceMetricSource{Name: s.Name, Target: hpaTargetFromV1(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &hpa2ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			Target: hpaTargetFromV1(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.External; s != nil {
		t := hpa2MetricTarget{Type: "Value", Value: s.TargetValue, AverageValue: s.TargetAverageValue}
		if s.TargetValue == nil {
			t.Type = "AverageValue"
		}
		out.External = &hpa2ExternalMetricSource{Metric: hpa2MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector}, Target: t}
	}
	return out
}

func hpaTargetFromV1(utilization *int32, averageValue *hpaQuantity) hpa2MetricTarget {
	t := hpa2MetricTarget{Type: "Utilization", AverageValue: averageValue, AverageUtilization: utilization}
	if utilization == nil {
		t.Type = "AverageValue"
	}
	return t
}

func hpaMetricStatusToV1(in *hpa2MetricStatus) hpa1MetricStatus {
	out := hpa1MetricStatus{Type: hpa1MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		o := &hpa1ObjectMetricStatus{Target: hpa1CrossVersionObjectReference(s.DescribedObject), MetricName: s.Metric.Name,
			Selector: s.Metric.Selector, AverageValue: ptrCopy(s.Current.AverageValue)}
		if s.Current.Value != nil {
			o.CurrentValue = *s.Current.Value
		}
		out.Object = o
	}
	if s := in.Pods; s != nil {
		p := &hpa1PodsMetricStatus{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Current.AverageValue != nil {
			p.CurrentAverageValue = *s.Current.AverageValue
		}
		out.Pods = p
	}
	if s := in.Resource; s != nil {
		r := &hpa1ResourceMetricStatus{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization}
		if s.Current.AverageValue != nil {
			r.CurrentAverageValue = *s.Current.AverageValue
		}
		out.Resource = r
	}
	if s := in.ContainerResource; s != nil {
		r := &hpa1ContainerResourceMetricStatus{Name: s.Name, Container: s.Container, CurrentAverageUtilization: s.Current.AverageUtilization}
		if s.Current.AverageValue != nil {
			r.CurrentAverageValue = *s.Current.AverageValue
		}
		out.ContainerResource = r
	}
	if s := in.External; s != nil {
		e := &hpa1ExternalMetricStatus{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector, CurrentAverageValue: s.Current.AverageValue}
		if s.Current.Value != nil {
			e.CurrentValue = *s.Current.Value
		}
		out.External = e
	}
	return out
}

func hpaMetricStatusFromV1(in *hpa1MetricStatus) hpa2MetricStatus {
	out := hpa2MetricStatus{Type: hpa2MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		v := s.CurrentValue
		out.Object = &hpa2ObjectMetricStatus{Metric: hpa2MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: hpa2MetricValueStatus{Value: &v, AverageValue: s.AverageValue}, DescribedObject: hpa2CrossVersionObjectReference(s.Target)}
	}
	if s := in.Pods; s != nil {
		av := s.CurrentAverageValue
		out.Pods = &hpa2PodsMetricStatus{Metric: hpa2MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: hpa2MetricValueStatus{AverageValue: &av}}
	}
	if s := in.Resource; s != nil {
		av := s.CurrentAverageValue
		out.Resource = &hpa2ResourceMetricStatus{Name: s.Name, Current: hpa2MetricValueStatus{AverageValue: &av, AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.ContainerResource; s != nil {
		av := s.CurrentAverageValue
		out.ContainerResource = &hpa2ContainerResourceMetricStatus{Name: s.Name, Container: s.Container,
			Current: hpa2MetricValueStatus{AverageValue: &av, AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.External; s != nil {
		v := s.CurrentValue
		out.External = &hpa2ExternalMetricStatus{Metric: hpa2MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Current: hpa2MetricValueStatus{Value: &v, AverageValue: s.CurrentAverageValue}}
	}
	return out
}

func hpaBehaviorToInternal(b *hpa2HorizontalPodAutoscalerBehavior) *hpaInternalBehavior {
	rules := func(r *hpa2HPAScalingRules) *hpaInternalScalingRules {
		if r == nil {
			return nil
		}
		out := &hpaInternalScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		if r.Policies != nil {
			out.Policies = make([]hpaInternalScalingPolicy, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = hpaInternalScalingPolicy(p)
			}
		}
		return out
	}
	return &hpaInternalBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func hpaBehaviorFromInternal(b *hpaInternalBehavior) *hpa2HorizontalPodAutoscalerBehavior {
	rules := func(r *hpaInternalScalingRules) *hpa2HPAScalingRules {
		if r == nil {
			return nil
		}
		out := &hpa2HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		if r.Policies != nil {
			out.Policies = make([]hpa2HPAScalingPolicy, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = hpa2HPAScalingPolicy(p)
			}
		}
		return out
	}
	return &hpa2HorizontalPodAutoscalerBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}
