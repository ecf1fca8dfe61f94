package validation

import (
	"math/rand"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
)

// workloadKinds are StatefulSet, ControllerRevision and the batch and autoscaling kinds.
func workloadKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, resource: "statefulsets", seed: seedStatefulSet,
			podSpec: "spec.template.spec.", complete: true, create: statefulset.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": statefulset.Strategy, "status": statefulset.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}, resource: "cronjobs", seed: seedCronJob,
			podSpec: "spec.jobTemplate.spec.template.spec.", complete: true, create: cronjob.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": cronjob.Strategy, "status": cronjob.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, resource: "horizontalpodautoscalers", seed: seedHPA,
			unordered: func(l string) bool { return strings.HasSuffix(l, "must populate the given metric source only") },
			complete:  true, create: horizontalpodautoscaler.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": horizontalpodautoscaler.Strategy, "status": horizontalpodautoscaler.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}, resource: "jobs", seed: seedJob, stored: jobStatus,
			podSpec: "spec.template.spec.", complete: true, create: job.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": job.Strategy, "status": job.StatusStrategy}},
	}
}

// seedClaimTemplate is a valid volume claim template.
func seedClaimTemplate(r *rand.Rand, name string) v1.PersistentVolumeClaim {
	c := v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if r.Intn(2) == 0 {
		c.Spec.StorageClassName = ptr("standard")
		c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"disk": "ssd"}}
	}
	if r.Intn(3) == 0 {
		c.Spec.DataSource = &v1.TypedLocalObjectReference{APIGroup: ptr("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "snap"}
		c.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: ptr("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "snap"}
	}
	return c
}

func seedStatefulSet(r *rand.Rand) runtime.Object {
	sel, tmpl := seedWorkload(r)
	ss := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: seedMeta(r),
		Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(r.Intn(4))), Selector: sel, Template: tmpl, ServiceName: pick(r, []string{"", "web"})}}
	switch r.Intn(3) {
	case 0:
		ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	case 1:
		mu := intstr.FromString("50%")
		ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(1)), MaxUnavailable: &mu}}
	}
	if r.Intn(2) == 0 {
		ss.Spec.VolumeClaimTemplates = []v1.PersistentVolumeClaim{seedClaimTemplate(r, "data")}
		if r.Intn(3) == 0 {
			ss.Spec.VolumeClaimTemplates = append(ss.Spec.VolumeClaimTemplates, seedClaimTemplate(r, "logs"))
		}
	}
	if r.Intn(2) == 0 {
		ss.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		ss.Spec.MinReadySeconds = 5
		ss.Spec.RevisionHistoryLimit = ptr(int32(3))
		ss.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 2}
		ss.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	}
	if r.Intn(2) == 0 {
		ss.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 2, CurrentReplicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1, CollisionCount: ptr(int32(1))}
	}
	return ss
}

// seedJobSpec is a valid Job spec: plain, Indexed with a success policy, or with a pod failure
// policy; suspended or not.
func seedJobSpec(r *rand.Rand) batchv1.JobSpec {
	spec := batchv1.JobSpec{Template: v1.PodTemplateSpec{Spec: seedPodSpec(r)}}
	spec.Template.Spec.RestartPolicy = v1.RestartPolicyNever
	if r.Intn(2) == 0 {
		spec.Template.Spec.RestartPolicy = v1.RestartPolicyOnFailure
		spec.Template.Labels = map[string]string{"app": "batch"}
	}
	switch r.Intn(4) {
	case 0:
		spec.CompletionMode = ptr(batchv1.IndexedCompletion)
		spec.Completions, spec.Parallelism = ptr(int32(5)), ptr(int32(5))
		spec.BackoffLimitPerIndex, spec.MaxFailedIndexes = ptr(int32(1)), ptr(int32(2))
		spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0-2,4"), SucceededCount: ptr(int32(2))}}}
	case 1:
		spec.Template.Spec.RestartPolicy = v1.RestartPolicyNever
		spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("c"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1, 2}}},
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue}}}}}
	case 2:
		spec.Completions, spec.Parallelism = ptr(int32(3)), ptr(int32(2))
		spec.ActiveDeadlineSeconds, spec.TTLSecondsAfterFinished = ptr(int64(600)), ptr(int32(100))
		spec.ManagedBy = ptr("example.com/job-controller")
	}
	if r.Intn(2) == 0 {
		spec.Suspend = ptr(true)
	}
	return spec
}

func seedJob(r *rand.Rand) runtime.Object {
	j := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: seedMeta(r), Spec: seedJobSpec(r)}
	if r.Intn(4) == 0 {
		j.Spec.ManualSelector = ptr(true)
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "batch"}}
		j.Spec.Template.Labels = map[string]string{"app": "batch"}
	}
	if r.Intn(3) == 0 {
		j.Status = batchv1.JobStatus{Active: 1, Ready: ptr(int32(1)), Terminating: ptr(int32(0)), StartTime: ptr(metav1.Unix(1_700_000_100, 0))}
	}
	return j
}

// jobStatus gives most stored Jobs the status the job controller writes: running, complete
// (with the conditions that go with it), failed, or an Indexed Job's indexes.
func jobStatus(r *rand.Rand, obj runtime.Object) {
	j := obj.(*batch.Job)
	start := metav1.Unix(1_700_000_100, 0)
	cond := func(t batch.JobConditionType) batch.JobCondition {
		return batch.JobCondition{Type: t, Status: api.ConditionTrue, LastProbeTime: start, LastTransitionTime: start}
	}
	switch r.Intn(5) {
	case 0:
		return
	case 1:
		j.Status = batch.JobStatus{Active: 2, Ready: ptr(int32(1)), Terminating: ptr(int32(0)), StartTime: &start, Succeeded: 1, Failed: 1,
			UncountedTerminatedPods: &batch.UncountedTerminatedPods{Succeeded: []types.UID{"a"}, Failed: []types.UID{"b"}}}
	case 2:
		end := metav1.Unix(1_700_000_200, 0)
		j.Status = batch.JobStatus{StartTime: &start, CompletionTime: &end, Succeeded: 3, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
			Conditions: []batch.JobCondition{cond(batch.JobSuccessCriteriaMet), cond(batch.JobComplete)}}
	case 3:
		j.Status = batch.JobStatus{StartTime: &start, Failed: 2, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
			Conditions: []batch.JobCondition{cond(batch.JobFailureTarget), cond(batch.JobFailed)}}
	default:
		j.Status = batch.JobStatus{StartTime: &start, Active: 1, Ready: ptr(int32(1)), Succeeded: 2, Failed: 1, CompletedIndexes: "0,2"}
		if j.Spec.BackoffLimitPerIndex != nil {
			j.Status.FailedIndexes = ptr("3")
		}
		if j.Spec.Suspend != nil && *j.Spec.Suspend {
			j.Status.Conditions = []batch.JobCondition{cond(batch.JobSuspended)}
		}
	}
}

// schedules are CronJob schedules the cron parser takes, and badSchedules ones it refuses, one
// of each of its errors among them (the mutations' words hold none).
var (
	schedules = []string{"*/5 * * * *", "0 0 * * *", "0 0 1 jan sun", "0 0 1-15/2 JAN-DEC MON-FRI", "? * * * *",
		"1,,2 * * * *", "@hourly", "@daily", "@every 1h30m", "  0 0 * * *  ", "*/99999999999 * * * *"}
	badSchedules = []string{"@every 1x", "@foo", "@every", "TZ=UTC 0 * * * *", "CRON_TZ=Europe/Berlin 0 * * * *",
		"TZ=Mars/Phobos 0 * * * *", "TZ=UTC", "TZ=UTC @daily", "61 * * * *", "0-70 * * * *", "5-1 * * * *", "*/0 * * * *",
		"a b c d e", "1-2-3 * * * *", "1/2/3 * * * *", "-1 * * * *", "* * * *", "* * * * * *", "0 0 0 * *", "0 24 * * *",
		"0 0 * 13 *", "0 0 * * 7", "0 0 * foo *", "99999999999999999999 * * * *"}
)

var timeZones = []string{"UTC", "Europe/Berlin", "America/New_York", "Etc/GMT+5", "Local", "local", "Mars/Phobos", "",
	"../x", "-x", "Europe//Berlin", "A/B/C", "toolongcomponent1", "US/Pacific-New"}

func seedCronJob(r *rand.Rand) runtime.Object {
	spec := seedJobSpec(r)
	c := &batchv1.CronJob{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"}, ObjectMeta: seedMeta(r),
		Spec: batchv1.CronJobSpec{Schedule: pick(r, schedules), JobTemplate: batchv1.JobTemplateSpec{Spec: spec}}}
	if r.Intn(3) == 0 {
		c.Spec.Schedule = pick(r, badSchedules)
	}
	if r.Intn(4) == 0 {
		c.Spec.TimeZone = ptr(pick(r, timeZones))
	}
	if r.Intn(2) == 0 {
		c.Spec.ConcurrencyPolicy = pick(r, []batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent})
		c.Spec.StartingDeadlineSeconds = ptr(int64(r.Intn(200)))
		c.Spec.SuccessfulJobsHistoryLimit = ptr(int32(r.Intn(5)))
	}
	if r.Intn(6) == 0 {
		c.Name = strings.Repeat("c", 50+r.Intn(5))
	}
	if r.Intn(3) == 0 {
		c.Status = batchv1.CronJobStatus{LastScheduleTime: ptr(metav1.Unix(1_700_000_100, 0))}
	}
	return c
}

// seedHPA is a valid HorizontalPodAutoscaler: a CPU target, or a mix of every metric source,
// with or without scaling behavior.
func seedHPA(r *rand.Rand) runtime.Object {
	h := &autoscalingv2.HorizontalPodAutoscaler{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: seedMeta(r),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: ptr(int32(1 + r.Intn(3))), MaxReplicas: int32(5 + r.Intn(5)),
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}}
	cpu := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: v1.ResourceCPU,
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(70))}}}
	h.Spec.Metrics = []autoscalingv2.MetricSpec{cpu}
	if r.Intn(2) == 0 {
		q := resource.MustParse("100m")
		h.Spec.Metrics = append(h.Spec.Metrics,
			autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}}},
			autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
				DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: "main"},
				Metric:          autoscalingv2.MetricIdentifier{Name: "requests", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}},
				Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &q}}},
			autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "queue"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}}},
			autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
				Name: v1.ResourceMemory, Container: "app", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}}})
	}
	if r.Intn(4) == 0 {
		h.Spec.MinReplicas = ptr(int32(0))
	}
	if r.Intn(2) == 0 {
		tol := resource.MustParse("0.1")
		h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{
			ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr(int32(0)), SelectPolicy: ptr(autoscalingv2.MaxChangePolicySelect),
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}, {Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15}}},
			ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr(int32(300)), Tolerance: &tol,
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}},
		}
	}
	if r.Intn(3) == 0 {
		h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3, ObservedGeneration: ptr(int64(1))}
	}
	return h
}
