package defaults

// admissionregistration.k8s.io/v1, discovery.k8s.io/v1, flowcontrol.apiserver.k8s.io/v1,
// networking.k8s.io/v1, rbac.authorization.k8s.io/v1, resource.k8s.io/v1, scheduling.k8s.io/v1
// and storage.k8s.io/v1: k8s.io/kubernetes/pkg/apis/<group>/<version>/defaults.go of v1.37.2.
// Gates: SELinuxMountReadWriteOncePod (GA, locked on) and VolumeLimitScaling (beta, on) give
// CSIDriver seLinuxMount and preventPodSchedulingIfMissing their false defaults.

// apisDefaulters are this file's SetDefaults_ functions by OpenAPI name (see builtinDefaulters).
func apisDefaulters() map[string]func(map[string]any) {
	const ar = "io.k8s.api.admissionregistration.v1."
	return map[string]func(map[string]any){
		ar + "ValidatingWebhook": defaultWebhook(false),
		ar + "MutatingWebhook":   defaultWebhook(true),
		ar + "Rule":              func(m map[string]any) { defaultPtr(m, "scope", "*") },
		// The embedded Rule's defaulter.
		ar + "RuleWithOperations":            func(m map[string]any) { defaultPtr(m, "scope", "*") },
		ar + "NamedRuleWithOperations":       func(m map[string]any) { defaultPtr(m, "scope", "*") },
		ar + "ServiceReference":              func(m map[string]any) { defaultPtr(m, "port", int64(443)) },
		ar + "ValidatingAdmissionPolicySpec": func(m map[string]any) { defaultPtr(m, "failurePolicy", "Fail") },
		ar + "MutatingAdmissionPolicySpec":   func(m map[string]any) { defaultPtr(m, "failurePolicy", "Fail") },
		ar + "MatchResources":                defaultMatchResources,

		"io.k8s.api.discovery.v1.EndpointPort": func(m map[string]any) {
			defaultPtr(m, "name", "")
			defaultPtr(m, "protocol", "TCP")
		},

		"io.k8s.api.flowcontrol.v1.FlowSchemaSpec": func(m map[string]any) { defaultNum(m, "matchingPrecedence", 1000) },
		"io.k8s.api.flowcontrol.v1.ExemptPriorityLevelConfiguration": func(m map[string]any) {
			defaultPtr(m, "nominalConcurrencyShares", int64(0))
			defaultPtr(m, "lendablePercent", int64(0))
		},
		"io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration": func(m map[string]any) {
			defaultPtr(m, "nominalConcurrencyShares", int64(30))
			defaultPtr(m, "lendablePercent", int64(0))
		},
		"io.k8s.api.flowcontrol.v1.QueuingConfiguration": func(m map[string]any) {
			defaultNum(m, "handSize", 8)
			defaultNum(m, "queues", 64)
			defaultNum(m, "queueLengthLimit", 50)
		},

		"io.k8s.api.networking.v1.NetworkPolicyPort": func(m map[string]any) { defaultPtr(m, "protocol", "TCP") },
		"io.k8s.api.networking.v1.NetworkPolicy":     defaultNetworkPolicy,
		"io.k8s.api.networking.v1.IngressClass": func(m map[string]any) {
			if p := dig(m, "spec", "parameters"); p != nil {
				defaultPtr(p, "scope", "Cluster")
			}
		},

		"io.k8s.api.rbac.v1.ClusterRoleBinding": defaultRoleRef,
		"io.k8s.api.rbac.v1.RoleBinding":        defaultRoleRef,
		"io.k8s.api.rbac.v1.Subject":            defaultSubject,

		"io.k8s.api.resource.v1.ExactDeviceRequest": defaultDeviceRequest,
		"io.k8s.api.resource.v1.DeviceSubRequest":   defaultDeviceRequest,
		"io.k8s.api.resource.v1.DeviceTaint":        func(map[string]any) {}, // timeAdded: defaultStruct (the clock)

		"io.k8s.api.scheduling.v1.PriorityClass": func(m map[string]any) { defaultPtr(m, "preemptionPolicy", "PreemptLowerPriority") },

		"io.k8s.api.storage.v1.StorageClass": func(m map[string]any) {
			defaultPtr(m, "reclaimPolicy", "Delete")
			defaultPtr(m, "volumeBindingMode", "Immediate")
		},
		"io.k8s.api.storage.v1.CSIDriver": defaultCSIDriver,
	}
}

func defaultWebhook(mutating bool) func(map[string]any) {
	return func(m map[string]any) {
		defaultPtr(m, "failurePolicy", "Fail")
		defaultPtr(m, "matchPolicy", "Equivalent")
		defaultPtr(m, "namespaceSelector", map[string]any{})
		defaultPtr(m, "objectSelector", map[string]any{})
		defaultPtr(m, "timeoutSeconds", int64(10))
		if mutating {
			defaultPtr(m, "reinvocationPolicy", "Never")
		}
	}
}

func defaultMatchResources(m map[string]any) {
	defaultPtr(m, "matchPolicy", "Equivalent")
	defaultPtr(m, "namespaceSelector", map[string]any{})
	defaultPtr(m, "objectSelector", map[string]any{})
}

func defaultNetworkPolicy(m map[string]any) {
	spec := ensureMap(m, "spec")
	if len(dlist(spec, "policyTypes")) == 0 {
		types := []any{"Ingress"}
		if len(dlist(spec, "egress")) != 0 {
			types = append(types, "Egress")
		}
		spec["policyTypes"] = types
	}
}

func defaultRoleRef(m map[string]any) {
	defaultStr(ensureMap(m, "roleRef"), "apiGroup", "rbac.authorization.k8s.io")
}

func defaultSubject(m map[string]any) {
	if dstr(m, "apiGroup") != "" {
		return
	}
	switch dstr(m, "kind") {
	case "User", "Group":
		m["apiGroup"] = "rbac.authorization.k8s.io"
	}
}

func defaultDeviceRequest(m map[string]any) {
	defaultStr(m, "allocationMode", "ExactCount")
	if dstr(m, "allocationMode") == "ExactCount" && dint(m, "count") == 0 {
		m["count"] = int64(1)
	}
}

func defaultCSIDriver(m map[string]any) {
	spec := ensureMap(m, "spec")
	defaultPtr(spec, "attachRequired", true)
	defaultPtr(spec, "podInfoOnMount", false)
	defaultPtr(spec, "storageCapacity", false)
	defaultPtr(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
	if len(dlist(spec, "volumeLifecycleModes")) == 0 {
		spec["volumeLifecycleModes"] = append(dlistCopy(spec, "volumeLifecycleModes"), "Persistent")
	}
	defaultPtr(spec, "requiresRepublish", false)
	defaultPtr(spec, "seLinuxMount", false)
	defaultPtr(spec, "preventPodSchedulingIfMissing", false)
}

func dlistCopy(m map[string]any, k string) []any {
	return append([]any(nil), dlist(m, k)...)
}
