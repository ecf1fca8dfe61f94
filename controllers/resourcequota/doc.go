// Package resourcequota is ResourceQuota as kube-apiserver 1.37 and kube-controller-manager
// 1.37 enforce it, as pure functions: the quota evaluators (k8s.io/kubernetes v1.37.2
// pkg/quota/v1/evaluator/core, k8s.io/apiserver pkg/quota/v1 and its generic object count),
// the resource quota controller's sync (pkg/controller/resourcequota syncResourceQuota) and
// the ResourceQuota admission plugin's check of one request (k8s.io/apiserver
// pkg/admission/plugin/resourcequota CheckRequest and checkQuotas), with the 1.37 feature
// gates (InPlacePodVerticalScaling, PodLevelResources, VolumeAttributesClass,
// RecoverVolumeExpansionFailure, DynamicResourceAllocation on) and the plugin's default
// configuration (no limited resources).
//
// Usage is measured per object: a Pod counts count/pods always and, unless it is Succeeded,
// Failed or being deleted past its grace period, pods, its requests and limits (cpu, memory,
// ephemeral-storage and their requests./limits. names, hugepages-*, extended resources as
// requests.<name>), computed as the scheduler's PodRequests and PodLimits with status
// resources (the larger of spec, allocated and actuated resources per container, sidecars
// summed, init containers' peak, pod-level resources, overhead); a Service count/services,
// services, services.nodeports and services.loadbalancers; a PersistentVolumeClaim
// persistentvolumeclaims, requests.storage (whole bytes, the larger of the request and
// status.allocatedResources) and the same per storage class
// (<class>.storageclass.storage.k8s.io/...); a ResourceClaim its count and the devices it
// requests per device class (<class>.deviceclass.resource.k8s.io/devices); every other
// resource count/<resource>[.<group>] (configmaps, secrets, replicationcontrollers and
// resourcequotas also under their legacy names). Pod quotas select by scope: Terminating,
// NotTerminating, BestEffort, NotBestEffort, PriorityClass (spec.scopes, or scopeSelector
// with In, NotIn, Exists, DoesNotExist), CrossNamespacePodAffinity; claims by
// VolumeAttributesClass.
//
// # Usage
//
//	// the controller: a quota's status from the namespace's objects
//	res, err := resourcequota.Sync(resourcequota.Input{Quota: q, Resources: served, Objects: list},
//		resourcequota.Options{Now: now})
//	if res.Quota != nil { put(res.Quota) } // PUT .../resourcequotas/NAME/status
//
//	// the admission plugin: a create or update checked against the namespace's quotas
//	charged, err := resourcequota.Admit(quotas, resourcequota.Attributes{Resource: "pods",
//		Namespace: "demo", Operation: resourcequota.Create, Object: pod}, now)
//	// err: *Forbidden ("exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2");
//	// charged: the quotas to write with their new status.used, before the object
//
// # Invariants
//
// Pure: inputs are read, never modified or kept; results share nothing with them; no clock but
// Options.Now and the now argument; no package state: safe for concurrent use. Sums do not
// depend on the order of Input.Objects except in the format of a sum of quantities written in
// different formats (the first object's format wins, as in the reference, whose informer order
// is random); quotas are checked in the order given (the reference's lister order is random),
// so with several refusing quotas the message names the first.
//
// # Errors
//
// Refusals are *Forbidden with the plugin's words; the caller answers them as
// admission.NewForbidden (403, `pods "p" is forbidden: exceeded quota: ...`). Other errors are
// the evaluators' (a scope selector that is not a valid label requirement, a quantity sum out
// of range) and are internal errors to the caller. Sync returns a result together with the
// error of an evaluator whose usage could not be computed (its resources keep their previous
// values), as the controller writes what it has.
//
// # Not modelled
//
// The DRAExtendedResource parts of the claim evaluator (requests.<extended resource> and
// requests.deviceclass.resource.kubernetes.io/<class> charged to claims through DeviceClasses'
// extendedResourceName and the owning Pod), and limited resources (the plugin's configuration
// file).
package resourcequota
