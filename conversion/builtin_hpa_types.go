package conversion

import "github.com/writepath/writepath/internal/codec"

// The Go types of k8s.io/api v0.37.2's autoscaling/v1 and autoscaling/v2
// HorizontalPodAutoscaler and of the internal types' JSON that the v1
// conversion writes into annotations, mirrored field for field, in the same
// order and with the same JSON tags: decoding and encoding them with
// encoding/json (or sigs.k8s.io/json for a whole object, as the apiserver's
// serializer does) behaves as the apiserver's typed values do (case-insensitive
// field names in annotations, null and zero values, omitempty, unknown fields
// dropped, the first type error). The hpa1 and hpa2 prefixes stand for the
// packages, restored in error messages (hpaTypeNames). The v2 shape is also
// the internal one: the fields correspond one to one.

type hpaObjectMeta struct {
	Annotations map[string]string `json:"annotations,omitempty"`
}

type hpaMetaLabelSelector struct {
	MatchLabels      map[string]string                 `json:"matchLabels,omitempty"`
	MatchExpressions []hpaMetaLabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

type hpaMetaLabelSelectorRequirement struct {
	Key      string                       `json:"key"`
	Operator hpaMetaLabelSelectorOperator `json:"operator"`
	Values   []string                     `json:"values,omitempty"`
}

type (
	hpaMetaLabelSelectorOperator string
	hpaCoreResourceName          string
	hpaCoreConditionStatus       string
)

// autoscaling/v1.

type hpa1HorizontalPodAutoscaler struct {
	Metadata hpaObjectMeta                     `json:"metadata,omitempty"`
	Spec     hpa1HorizontalPodAutoscalerSpec   `json:"spec,omitempty"`
	Status   hpa1HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

type hpa1CrossVersionObjectReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type hpa1HorizontalPodAutoscalerSpec struct {
	ScaleTargetRef                 hpa1CrossVersionObjectReference `json:"scaleTargetRef"`
	MinReplicas                    *int32                          `json:"minReplicas,omitempty"`
	MaxReplicas                    int32                           `json:"maxReplicas"`
	TargetCPUUtilizationPercentage *int32                          `json:"targetCPUUtilizationPercentage,omitempty"`
}

type hpa1HorizontalPodAutoscalerStatus struct {
	ObservedGeneration              *int64      `json:"observedGeneration,omitempty"`
	LastScaleTime                   *codec.Time `json:"lastScaleTime,omitempty"`
	CurrentReplicas                 int32       `json:"currentReplicas"`
	DesiredReplicas                 int32       `json:"desiredReplicas"`
	CurrentCPUUtilizationPercentage *int32      `json:"currentCPUUtilizationPercentage,omitempty"`
}

type hpa1MetricSourceType string

type hpa1MetricSpec struct {
	Type              hpa1MetricSourceType               `json:"type"`
	Object            *hpa1ObjectMetricSource            `json:"object,omitempty"`
	Pods              *hpa1PodsMetricSource              `json:"pods,omitempty"`
	Resource          *hpa1ResourceMetricSource          `json:"resource,omitempty"`
	ContainerResource *hpa1ContainerResourceMetricSource `json:"containerResource,omitempty"`
	External          *hpa1ExternalMetricSource          `json:"external,omitempty"`
}

type hpa1ObjectMetricSource struct {
	Target       hpa1CrossVersionObjectReference `json:"target"`
	MetricName   string                          `json:"metricName"`
	TargetValue  hpaQuantity                     `json:"targetValue"`
	Selector     *hpaMetaLabelSelector           `json:"selector,omitempty"`
	AverageValue *hpaQuantity                    `json:"averageValue,omitempty"`
}

type hpa1PodsMetricSource struct {
	MetricName         string                `json:"metricName"`
	TargetAverageValue hpaQuantity           `json:"targetAverageValue"`
	Selector           *hpaMetaLabelSelector `json:"selector,omitempty"`
}

type hpa1ResourceMetricSource struct {
	Name                     hpaCoreResourceName `json:"name"`
	TargetAverageUtilization *int32              `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *hpaQuantity        `json:"targetAverageValue,omitempty"`
}

type hpa1ContainerResourceMetricSource struct {
	Name                     hpaCoreResourceName `json:"name"`
	TargetAverageUtilization *int32              `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *hpaQuantity        `json:"targetAverageValue,omitempty"`
	Container                string              `json:"container"`
}

type hpa1ExternalMetricSource struct {
	MetricName         string                `json:"metricName"`
	MetricSelector     *hpaMetaLabelSelector `json:"metricSelector,omitempty"`
	TargetValue        *hpaQuantity          `json:"targetValue,omitempty"`
	TargetAverageValue *hpaQuantity          `json:"targetAverageValue,omitempty"`
}

type hpa1MetricStatus struct {
	Type              hpa1MetricSourceType               `json:"type"`
	Object            *hpa1ObjectMetricStatus            `json:"object,omitempty"`
	Pods              *hpa1PodsMetricStatus              `json:"pods,omitempty"`
	Resource          *hpa1ResourceMetricStatus          `json:"resource,omitempty"`
	ContainerResource *hpa1ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	External          *hpa1ExternalMetricStatus          `json:"external,omitempty"`
}

type hpa1HorizontalPodAutoscalerConditionType string

type hpa1HorizontalPodAutoscalerCondition struct {
	Type               hpa1HorizontalPodAutoscalerConditionType `json:"type"`
	Status             hpaCoreConditionStatus                   `json:"status"`
	LastTransitionTime codec.Time                               `json:"lastTransitionTime,omitempty"`
	Reason             string                                   `json:"reason,omitempty"`
	Message            string                                   `json:"message,omitempty"`
	ObservedGeneration *int64                                   `json:"observedGeneration,omitempty"`
}

type hpa1ObjectMetricStatus struct {
	Target       hpa1CrossVersionObjectReference `json:"target"`
	MetricName   string                          `json:"metricName"`
	CurrentValue hpaQuantity                     `json:"currentValue"`
	Selector     *hpaMetaLabelSelector           `json:"selector,omitempty"`
	AverageValue *hpaQuantity                    `json:"averageValue,omitempty"`
}

type hpa1PodsMetricStatus struct {
	MetricName          string                `json:"metricName"`
	CurrentAverageValue hpaQuantity           `json:"currentAverageValue"`
	Selector            *hpaMetaLabelSelector `json:"selector,omitempty"`
}

type hpa1ResourceMetricStatus struct {
	Name                      hpaCoreResourceName `json:"name"`
	CurrentAverageUtilization *int32              `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       hpaQuantity         `json:"currentAverageValue"`
}

type hpa1ContainerResourceMetricStatus struct {
	Name                      hpaCoreResourceName `json:"name"`
	CurrentAverageUtilization *int32              `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       hpaQuantity         `json:"currentAverageValue"`
	Container                 string              `json:"container"`
}

type hpa1ExternalMetricStatus struct {
	MetricName          string                `json:"metricName"`
	MetricSelector      *hpaMetaLabelSelector `json:"metricSelector,omitempty"`
	CurrentValue        hpaQuantity           `json:"currentValue"`
	CurrentAverageValue *hpaQuantity          `json:"currentAverageValue,omitempty"`
}

// autoscaling/v2 (and the internal version).

type hpa2HorizontalPodAutoscaler struct {
	Metadata hpaObjectMeta                     `json:"metadata,omitempty"`
	Spec     hpa2HorizontalPodAutoscalerSpec   `json:"spec,omitempty"`
	Status   hpa2HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

type hpa2HorizontalPodAutoscalerSpec struct {
	ScaleTargetRef hpa2CrossVersionObjectReference      `json:"scaleTargetRef"`
	MinReplicas    *int32                               `json:"minReplicas,omitempty"`
	MaxReplicas    int32                                `json:"maxReplicas"`
	Metrics        []hpa2MetricSpec                     `json:"metrics,omitempty"`
	Behavior       *hpa2HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

type hpa2CrossVersionObjectReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type hpa2MetricSourceType string

type hpa2MetricSpec struct {
	Type              hpa2MetricSourceType               `json:"type"`
	Object            *hpa2ObjectMetricSource            `json:"object,omitempty"`
	Pods              *hpa2PodsMetricSource              `json:"pods,omitempty"`
	Resource          *hpa2ResourceMetricSource          `json:"resource,omitempty"`
	ContainerResource *hpa2ContainerResourceMetricSource `json:"containerResource,omitempty"`
	External          *hpa2ExternalMetricSource          `json:"external,omitempty"`
}

type hpa2HorizontalPodAutoscalerBehavior struct {
	ScaleUp   *hpa2HPAScalingRules `json:"scaleUp,omitempty"`
	ScaleDown *hpa2HPAScalingRules `json:"scaleDown,omitempty"`
}

type (
	hpa2ScalingPolicySelect  string
	hpa2HPAScalingPolicyType string
	hpa2MetricTargetType     string
)

type hpa2HPAScalingRules struct {
	StabilizationWindowSeconds *int32                   `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *hpa2ScalingPolicySelect `json:"selectPolicy,omitempty"`
	Policies                   []hpa2HPAScalingPolicy   `json:"policies,omitempty"`
	Tolerance                  *hpaQuantity             `json:"tolerance,omitempty"`
}

type hpa2HPAScalingPolicy struct {
	Type          hpa2HPAScalingPolicyType `json:"type"`
	Value         int32                    `json:"value"`
	PeriodSeconds int32                    `json:"periodSeconds"`
}

type hpa2ObjectMetricSource struct {
	DescribedObject hpa2CrossVersionObjectReference `json:"describedObject"`
	Target          hpa2MetricTarget                `json:"target"`
	Metric          hpa2MetricIdentifier            `json:"metric"`
}

type hpa2PodsMetricSource struct {
	Metric hpa2MetricIdentifier `json:"metric"`
	Target hpa2MetricTarget     `json:"target"`
}

type hpa2ResourceMetricSource struct {
	Name   hpaCoreResourceName `json:"name"`
	Target hpa2MetricTarget    `json:"target"`
}

type hpa2ContainerResourceMetricSource struct {
	Name      hpaCoreResourceName `json:"name"`
	Target    hpa2MetricTarget    `json:"target"`
	Container string              `json:"container"`
}

type hpa2ExternalMetricSource struct {
	Metric hpa2MetricIdentifier `json:"metric"`
	Target hpa2MetricTarget     `json:"target"`
}

type hpa2MetricIdentifier struct {
	Name     string                `json:"name"`
	Selector *hpaMetaLabelSelector `json:"selector,omitempty"`
}

type hpa2MetricTarget struct {
	Type               hpa2MetricTargetType `json:"type"`
	Value              *hpaQuantity         `json:"value,omitempty"`
	AverageValue       *hpaQuantity         `json:"averageValue,omitempty"`
	AverageUtilization *int32               `json:"averageUtilization,omitempty"`
}

type hpa2HorizontalPodAutoscalerStatus struct {
	ObservedGeneration *int64                                 `json:"observedGeneration,omitempty"`
	LastScaleTime      *codec.Time                            `json:"lastScaleTime,omitempty"`
	CurrentReplicas    int32                                  `json:"currentReplicas,omitempty"`
	DesiredReplicas    int32                                  `json:"desiredReplicas"`
	CurrentMetrics     []hpa2MetricStatus                     `json:"currentMetrics"`
	Conditions         []hpa2HorizontalPodAutoscalerCondition `json:"conditions,omitempty"`
}

type hpa2HorizontalPodAutoscalerConditionType string

type hpa2HorizontalPodAutoscalerCondition struct {
	Type               hpa2HorizontalPodAutoscalerConditionType `json:"type"`
	Status             hpaCoreConditionStatus                   `json:"status"`
	LastTransitionTime codec.Time                               `json:"lastTransitionTime,omitempty"`
	Reason             string                                   `json:"reason,omitempty"`
	Message            string                                   `json:"message,omitempty"`
	ObservedGeneration *int64                                   `json:"observedGeneration,omitempty"`
}

type hpa2MetricStatus struct {
	Type              hpa2MetricSourceType               `json:"type"`
	Object            *hpa2ObjectMetricStatus            `json:"object,omitempty"`
	Pods              *hpa2PodsMetricStatus              `json:"pods,omitempty"`
	Resource          *hpa2ResourceMetricStatus          `json:"resource,omitempty"`
	ContainerResource *hpa2ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	External          *hpa2ExternalMetricStatus          `json:"external,omitempty"`
}

type hpa2ObjectMetricStatus struct {
	Metric          hpa2MetricIdentifier            `json:"metric"`
	Current         hpa2MetricValueStatus           `json:"current"`
	DescribedObject hpa2CrossVersionObjectReference `json:"describedObject"`
}

type hpa2PodsMetricStatus struct {
	Metric  hpa2MetricIdentifier  `json:"metric"`
	Current hpa2MetricValueStatus `json:"current"`
}

type hpa2ResourceMetricStatus struct {
	Name    hpaCoreResourceName   `json:"name"`
	Current hpa2MetricValueStatus `json:"current"`
}

type hpa2ContainerResourceMetricStatus struct {
	Name      hpaCoreResourceName   `json:"name"`
	Current   hpa2MetricValueStatus `json:"current"`
	Container string                `json:"container"`
}

type hpa2ExternalMetricStatus struct {
	Metric  hpa2MetricIdentifier  `json:"metric"`
	Current hpa2MetricValueStatus `json:"current"`
}

type hpa2MetricValueStatus struct {
	Value              *hpaQuantity `json:"value,omitempty"`
	AverageValue       *hpaQuantity `json:"averageValue,omitempty"`
	AverageUtilization *int32       `json:"averageUtilization,omitempty"`
}

// The internal HorizontalPodAutoscalerBehavior, which the v1 conversion
// marshals into the behavior annotation as it is (no JSON tags: Go field
// names).
type hpaInternalBehavior struct {
	ScaleUp   *hpaInternalScalingRules
	ScaleDown *hpaInternalScalingRules
}

type hpaInternalScalingRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *hpa2ScalingPolicySelect
	Policies                   []hpaInternalScalingPolicy
	Tolerance                  *hpaQuantity
}

type hpaInternalScalingPolicy struct {
	Type          hpa2HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}
