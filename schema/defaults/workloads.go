package defaults

import "github.com/writepath/writepath/internal/value"

// apps/v1, batch/v1, autoscaling/v1 and autoscaling/v2: k8s.io/kubernetes/pkg/apis/<group>/<version>/defaults.go
// of v1.37.2. Gate: MaxUnavailableStatefulSet is beta and on by default in 1.37 (StatefulSet
// rollingUpdate.maxUnavailable defaults to 1).

// workloadsDefaulters are this file's SetDefaults_ functions by OpenAPI name (see builtinDefaulters).
func workloadsDefaulters() map[string]func(map[string]any) {
	return map[string]func(map[string]any){
		"io.k8s.api.apps.v1.Deployment":                              defaultDeployment,
		"io.k8s.api.apps.v1.DaemonSet":                               defaultDaemonSet,
		"io.k8s.api.apps.v1.StatefulSet":                             defaultStatefulSet,
		"io.k8s.api.apps.v1.ReplicaSet":                              func(m map[string]any) { defaultPtr(ensureMap(m, "spec"), "replicas", int64(1)) },
		"io.k8s.api.batch.v1.Job":                                    defaultJob,
		"io.k8s.api.batch.v1.CronJob":                                defaultCronJob,
		"io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern": func(m map[string]any) { defaultStr(m, "status", "True") },
		"io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler":          func(m map[string]any) { defaultPtr(ensureMap(m, "spec"), "minReplicas", int64(1)) },
		"io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler":          defaultHPAv2,
	}
}

func defaultDeployment(m map[string]any) {
	spec := ensureMap(m, "spec")
	defaultPtr(spec, "replicas", int64(1))
	strategy := ensureMap(spec, "strategy")
	defaultStr(strategy, "type", "RollingUpdate")
	if dstr(strategy, "type") == "RollingUpdate" {
		ru := ensureMap(strategy, "rollingUpdate")
		defaultPtr(ru, "maxUnavailable", "25%")
		defaultPtr(ru, "maxSurge", "25%")
	}
	defaultPtr(spec, "revisionHistoryLimit", int64(10))
	defaultPtr(spec, "progressDeadlineSeconds", int64(600))
}

func defaultDaemonSet(m map[string]any) {
	spec := ensureMap(m, "spec")
	us := ensureMap(spec, "updateStrategy")
	defaultStr(us, "type", "RollingUpdate")
	if dstr(us, "type") == "RollingUpdate" {
		ru := ensureMap(us, "rollingUpdate")
		defaultPtr(ru, "maxUnavailable", int64(1))
		defaultPtr(ru, "maxSurge", int64(0))
	}
	defaultPtr(spec, "revisionHistoryLimit", int64(10))
}

func defaultStatefulSet(m map[string]any) {
	spec := ensureMap(m, "spec")
	defaultStr(spec, "podManagementPolicy", "OrderedReady")
	us := ensureMap(spec, "updateStrategy")
	if dstr(us, "type") == "" {
		us["type"] = "RollingUpdate"
		ensureMap(us, "rollingUpdate")
	}
	if ru := dmap(us, "rollingUpdate"); dstr(us, "type") == "RollingUpdate" && ru != nil {
		defaultPtr(ru, "partition", int64(0))
		defaultPtr(ru, "maxUnavailable", int64(1)) // MaxUnavailableStatefulSet
	}
	policy := ensureMap(spec, "persistentVolumeClaimRetentionPolicy")
	defaultStr(policy, "whenDeleted", "Retain")
	defaultStr(policy, "whenScaled", "Retain")
	defaultPtr(spec, "replicas", int64(1))
	defaultPtr(spec, "revisionHistoryLimit", int64(10))
}

func defaultJob(m map[string]any) {
	spec := ensureMap(m, "spec")
	if !has(spec, "completions") && !has(spec, "parallelism") {
		spec["completions"] = int64(1)
		spec["parallelism"] = int64(1)
	}
	defaultPtr(spec, "parallelism", int64(1))
	if !has(spec, "backoffLimit") {
		if has(spec, "backoffLimitPerIndex") {
			spec["backoffLimit"] = int64(1<<31 - 1)
		} else {
			spec["backoffLimit"] = int64(6)
		}
	}
	if labels := dmap(dig(spec, "template", "metadata"), "labels"); labels != nil {
		meta := ensureMap(m, "metadata")
		if len(dmap(meta, "labels")) == 0 {
			meta["labels"] = value.Clone(labels)
		}
	}
	defaultPtr(spec, "completionMode", "NonIndexed")
	defaultPtr(spec, "suspend", false)
	if !has(spec, "podReplacementPolicy") {
		if has(spec, "podFailurePolicy") {
			spec["podReplacementPolicy"] = "Failed"
		} else {
			spec["podReplacementPolicy"] = "TerminatingOrFailed"
		}
	}
	defaultPtr(spec, "manualSelector", false)
}

func defaultCronJob(m map[string]any) {
	spec := ensureMap(m, "spec")
	defaultStr(spec, "concurrencyPolicy", "Allow")
	defaultPtr(spec, "suspend", false)
	defaultPtr(spec, "successfulJobsHistoryLimit", int64(3))
	defaultPtr(spec, "failedJobsHistoryLimit", int64(1))
}

func defaultHPAv2(m map[string]any) {
	spec := ensureMap(m, "spec")
	defaultPtr(spec, "minReplicas", int64(1))
	if len(dlist(spec, "metrics")) == 0 {
		spec["metrics"] = []any{map[string]any{
			"type": "Resource",
			"resource": map[string]any{
				"name":   "cpu",
				"target": map[string]any{"type": "Utilization", "averageUtilization": int64(80)},
			},
		}}
	}
	if b := dmap(spec, "behavior"); b != nil {
		b["scaleUp"] = hpaScalingRules(dmap(b, "scaleUp"), map[string]any{
			"stabilizationWindowSeconds": int64(0),
			"selectPolicy":               "Max",
			"policies": []any{
				map[string]any{"type": "Pods", "value": int64(4), "periodSeconds": int64(15)},
				map[string]any{"type": "Percent", "value": int64(100), "periodSeconds": int64(15)},
			},
		})
		b["scaleDown"] = hpaScalingRules(dmap(b, "scaleDown"), map[string]any{
			"selectPolicy": "Max",
			"policies": []any{
				map[string]any{"type": "Percent", "value": int64(100), "periodSeconds": int64(15)},
			},
		})
	}
}

// hpaScalingRules is copyHPAScalingRules: the set fields of from over the defaults.
func hpaScalingRules(from, to map[string]any) map[string]any {
	for _, k := range []string{"selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"} {
		if has(from, k) {
			to[k] = from[k]
		}
	}
	return to
}
