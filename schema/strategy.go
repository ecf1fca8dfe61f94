package schema

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Strategy holds the facts of a resource's REST strategy
// (k8s.io/kubernetes/pkg/registry/<group>/<resource>/strategy.go and its REST storage, v1.37.2)
// that the write path needs: unconditional updates, the generation rule, the subresources that go
// through a strategy or around it, graceful deletion, the default garbage-collection policy, what
// a DELETE answers, where the object is stored and the reset fields. What the catalogue already
// says (resource name, scope, the status and scale subresources) lives on Kind, not here.
//
// Strategies are values; BuiltinStrategy and CustomResourceStrategy return fresh copies. The zero
// value is a resource that allows no unconditional update, does not track generation, resets
// nothing and is deleted at once in the background.
type Strategy struct {
	// AllowUnconditionalUpdate says whether an update without metadata.resourceVersion (or with
	// "0") is accepted and applied to the latest stored version, instead of failing with 422.
	AllowUnconditionalUpdate bool
	// UnconditionalUpdateVersions lists API versions in which unconditional updates are allowed
	// although AllowUnconditionalUpdate is false (DeviceTaintRule keeps the old behaviour in
	// v1alpha3 and v1beta2).
	UnconditionalUpdateVersions []string

	// Generation says how metadata.generation changes.
	Generation GenerationRule

	// ExtraSubresources lists subresources other than status and scale whose writes go through a
	// strategy that bumps the generation like the main one (pods: "resize",
	// "ephemeralcontainers").
	ExtraSubresources []string
	// BypassSubresources lists subresources whose writes go straight to storage without a
	// strategy, so they never bump the generation although they change spec (pods: "binding"
	// sets spec.nodeName).
	BypassSubresources []string

	// NoDeleteGenerationBump is true for resources whose deletion never bumps
	// metadata.generation (namespaces: their REST storage sets the deletionTimestamp itself).
	NoDeleteGenerationBump bool
	// GracefulDelete is true for resources whose strategy implements CheckGracefulDelete (pods,
	// the only built-in one).
	GracefulDelete bool
	// GCPolicy is the garbage-collection policy of a DELETE that names none.
	GCPolicy GCPolicy
	// ReturnDeletedObject is true when a successful DELETE answers with the deleted object rather
	// than a Status (pods, services and several other registries).
	ReturnDeletedObject bool
	// StorageVersion is the version objects are stored in when the resource is served at
	// versions whose objects differ and convert (kube-apiserver's storage version: reads answer
	// the stored object converted to the request's version, writes store the conversion of
	// theirs); "" when every version is stored as written.
	StorageVersion string
	// StoragePrefix is the etcd key prefix under /registry, when it is not the default (the
	// resource name, or group/resource for resources not served by kube-apiserver's own
	// registry).
	StoragePrefix string

	// ResetAPIVersions are the apiVersions whose field manager is handed Reset (the strategy's
	// GetResetFields is keyed by them).
	ResetAPIVersions []string
	// Reset maps a subresource ("" is the main resource) to the field paths its strategy resets
	// (GetResetFields / GetResetFieldsFilter): their ownership is never recorded and their values
	// are put back after the merge. "metadata" stands for the fields ResetObjectMetaForStatus
	// resets. A subresource not listed resets nothing.
	Reset map[string][][]string
	// ResetValues maps a subresource to the paths whose values its PrepareForUpdate puts back,
	// where they are not Reset's: APIService's /status strategy names "metadata" in its reset
	// fields but restores only spec, labels, annotations, finalizers and ownerReferences, so a
	// status write that sets a deletionTimestamp reaches validation (422 "field is immutable")
	// instead of losing it; generation is rest.BeforeUpdate's (the registry's generation rule).
	// A subresource not listed resets Reset's paths.
	ResetValues map[string][][]string
}

// GCPolicy is a resource's default garbage-collection policy when a DELETE names none
// (rest.GarbageCollectionPolicy in k8s.io/apiserver).
type GCPolicy string

// The default policies a resource's registry strategy can declare.
const (
	// GCBackground: dependents are deleted in the background. This is the policy of every
	// resource whose strategy declares none, and of apps/v1 workloads ("DeleteDependents").
	GCBackground GCPolicy = ""
	// GCOrphan: a DELETE without options orphans dependents (batch/v1 Job and v1
	// ReplicationController, for backward compatibility).
	GCOrphan GCPolicy = "OrphanDependents"
	// GCUnsupported: the resource cannot be garbage collected; GC finalizers are never set (core
	// and events.k8s.io Events).
	GCUnsupported GCPolicy = "Unsupported"
)

// GenerationRule is how a strategy maintains metadata.generation.
//
// On create, generation is 1 when SetOnCreate; otherwise whatever the client sent is kept (0 when
// absent), because kube-apiserver does not reset it. On an update, the server first restores the
// stored generation (a client cannot change it), then adds 1 when a compared field changed. A
// compared field is one of Compare, or, when AllExcept is set, any top-level field not listed in
// AllExcept (apiVersion and kind are never compared). Ignore lists paths the strategy resets
// before comparing.
type GenerationRule struct {
	// SetOnCreate is true when create sets generation to 1.
	SetOnCreate bool
	// Compare lists dotted field paths whose change bumps the generation.
	Compare []string
	// AllExcept, when non-nil, makes every top-level field but these compared.
	AllExcept []string
	// Ignore lists dotted field paths left out of the comparison.
	Ignore []string
	// Unstructured selects the equality of custom resources (apimachinery's semantic equality on
	// unstructured content: null, absent and {} differ; 1 and 1.0 differ) instead of that of typed
	// objects (absent, null, "", {} and [] are all empty; numbers compare by value).
	Unstructured bool
	// Why is the rule in words, used in explanations.
	Why string
}

// Tracked reports whether the rule ever sets or bumps the generation.
func (r GenerationRule) Tracked() bool {
	return r.SetOnCreate || len(r.Compare) > 0 || r.AllExcept != nil
}

// AllowsUnconditionalUpdate reports whether an update sent in API version version may omit
// metadata.resourceVersion.
func (s Strategy) AllowsUnconditionalUpdate(version string) bool {
	return s.AllowUnconditionalUpdate || slices.Contains(s.UnconditionalUpdateVersions, version)
}

// ResetPaths returns the paths the strategy of subresource ("" for the main resource) resets, nil
// when it resets nothing. The slice is the strategy's: treat it as read-only.
func (s Strategy) ResetPaths(subresource string) [][]string { return s.Reset[subresource] }

// BuiltinStrategy returns the strategy of the built-in kind gvk of kube-apiserver 1.37 by its
// group and kind (every version shares it, so gvk.Version is not read), including kinds only
// reachable through a version no longer in the catalogue (extensions Ingress). ok is false for a
// kind with no stored resource.
func BuiltinStrategy(gvk GroupVersionKind) (s Strategy, ok bool) {
	st, ok := strategyTable()[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return Strategy{}, false
	}
	return st.Clone(), true
}

// BuiltinResets returns what BuiltinStrategy(gvk) resets on the endpoint subresource, without
// copying the rest of the strategy (the field manager asks on every write): its ResetPaths and
// ResetAPIVersions, copies the caller may keep. reset is false when the strategy has no entry
// for subresource, or there is no strategy.
func BuiltinResets(gvk GroupVersionKind, subresource string) (paths [][]string, apiVersions []string, reset bool) {
	st, ok := strategyTable()[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return nil, nil, false
	}
	ps, ok := st.Reset[subresource]
	if !ok {
		return nil, nil, false
	}
	paths = make([][]string, len(ps)) // as Clone copies them
	for i, p := range ps {
		paths[i] = slices.Clone(p)
	}
	return paths, slices.Clone(st.ResetAPIVersions), true
}

// BuiltinResetValues returns the paths whose values the strategy of gvk's endpoint subresource
// puts back after the merge: Strategy.ResetValues when it lists the subresource, else the reset
// paths of BuiltinResets. The caller may keep the copies.
func BuiltinResetValues(gvk GroupVersionKind, subresource string) [][]string {
	st, ok := strategyTable()[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return nil
	}
	if ps, ok := st.ResetValues[subresource]; ok {
		return clonePaths(map[string][][]string{"": ps})[""]
	}
	paths, _, _ := BuiltinResets(gvk, subresource)
	return paths
}

// CustomResourceStrategy returns the strategy of apiextensions-apiserver for the objects of a
// custom resource version with (status true) or without a status subresource: generation 1 on
// create, bumped by any change outside metadata (and outside status with the status subresource,
// because the main resource then ignores status); no unconditional update; with the status
// subresource, the main resource resets status and /status resets metadata and spec. The
// apiVersions of the reset fields are the request's: ResetAPIVersions is nil.
func CustomResourceStrategy(statusSubresource bool) Strategy {
	s := Strategy{Generation: GenerationRule{
		SetOnCreate:  true,
		AllExcept:    []string{"metadata"},
		Unstructured: true,
		Why:          "custom resources bump metadata.generation on any change outside metadata",
	}}
	if statusSubresource {
		s.Generation.AllExcept = []string{"metadata", "status"}
		s.Generation.Why = "custom resources with a status subresource bump metadata.generation on any change outside metadata and status"
		s.Reset = map[string][][]string{"": {{"status"}}, "status": {{"metadata"}, {"spec"}}}
	}
	return s
}

// GuessResource returns the plural and singular resource names of kind as
// k8s.io/apimachinery's meta.UnsafeGuessKindToResource guesses them (what a RESTMapper, kubectl
// and the garbage collector fall back to): the lower-cased kind, unchanged when it ends in
// "endpoints", with "es" after a final "s", "ies" for a final "y", "s" otherwise. "" gives "".
func GuessResource(kind string) (plural, singular string) {
	if kind == "" {
		return "", ""
	}
	singular = strings.ToLower(kind)
	switch {
	case strings.HasSuffix(singular, "endpoints"):
		return singular, singular
	case strings.HasSuffix(singular, "s"):
		return singular + "es", singular
	case strings.HasSuffix(singular, "y"):
		return strings.TrimSuffix(singular, "y") + "ies", singular
	}
	return singular + "s", singular
}

// Clone returns s with its slices and maps copied.
func (s Strategy) Clone() Strategy {
	s.UnconditionalUpdateVersions = slices.Clone(s.UnconditionalUpdateVersions)
	s.ExtraSubresources = slices.Clone(s.ExtraSubresources)
	s.BypassSubresources = slices.Clone(s.BypassSubresources)
	s.Generation.Compare = slices.Clone(s.Generation.Compare)
	s.Generation.AllExcept = slices.Clone(s.Generation.AllExcept)
	s.Generation.Ignore = slices.Clone(s.Generation.Ignore)
	s.ResetAPIVersions = slices.Clone(s.ResetAPIVersions)
	if s.Reset != nil {
		r := make(map[string][][]string, len(s.Reset))
		for sub, paths := range s.Reset {
			ps := make([][]string, len(paths))
			for i, p := range paths {
				ps[i] = slices.Clone(p)
			}
			r[sub] = ps
		}
		s.Reset = r
	}
	s.ResetValues = clonePaths(s.ResetValues)
	return s
}

func clonePaths(m map[string][][]string) map[string][][]string {
	if m == nil {
		return nil
	}
	r := make(map[string][][]string, len(m))
	for sub, paths := range m {
		ps := make([][]string, len(paths))
		for i, p := range paths {
			ps[i] = slices.Clone(p)
		}
		r[sub] = ps
	}
	return r
}

// strategyTable is the table of built-in strategies keyed by "group/Kind", built once; callers
// get clones.
var strategyTable = sync.OnceValue(builtinStrategies)

// Generation rules of the built-in strategies, from PrepareForCreate and PrepareForUpdate.
var (
	genNone = GenerationRule{Why: "%s does not track metadata.generation"}
	genSpec = GenerationRule{SetOnCreate: true, Compare: []string{"spec"},
		Why: "%s bumps metadata.generation on any change to spec"}
)

// Reset field sets (GetResetFields): the main resource resets status; /status resets spec, or
// metadata and spec.
var (
	resetStatus      = [][]string{{"status"}}
	resetSpec        = [][]string{{"spec"}}
	resetMetaAndSpec = [][]string{{"metadata"}, {"spec"}}
)

func resetMainAndStatus(status [][]string) map[string][][]string {
	return map[string][][]string{"": resetStatus, "status": status}
}

// builtinStrategies builds the table.
func builtinStrategies() map[string]Strategy {
	type row struct {
		group, kind string
		uncond      bool
		gen         GenerationRule
	}
	rows := []row{
		// core
		{"", "ConfigMap", true, genNone},
		{"", "Endpoints", true, genNone},
		{"", "Event", true, genNone},
		{"", "LimitRange", true, genNone},
		{"", "Namespace", true, genNone},
		{"", "Node", true, genNone},
		{"", "PersistentVolumeClaim", true, genNone},
		{"", "PersistentVolume", true, genNone},
		{"", "Pod", true, genSpec},
		{"", "PodTemplate", true, GenerationRule{SetOnCreate: true, Compare: []string{"template"},
			Why: "%s bumps metadata.generation on any change to template"}},
		{"", "ReplicationController", true, genSpec},
		{"", "ResourceQuota", true, genNone},
		{"", "Secret", true, genNone},
		{"", "ServiceAccount", true, genNone},
		{"", "Service", true, genNone},
		// admissionregistration.k8s.io
		{"admissionregistration.k8s.io", "MutatingAdmissionPolicy", false, genSpec},
		{"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding", false, genSpec},
		// The webhook configurations' PrepareForUpdate compares the webhooks with
		// reflect.DeepEqual, which tells an empty caBundle ([]byte{}, kept as "") from none:
		// presence counts, as in the unstructured equality (recorded: bytes/bytes-webhook).
		{"admissionregistration.k8s.io", "MutatingWebhookConfiguration", false,
			GenerationRule{SetOnCreate: true, Compare: []string{"webhooks"}, Unstructured: true, Why: "%s bumps metadata.generation on any change to webhooks"}},
		{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy", false, genSpec},
		{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", false, genSpec},
		{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration", false,
			GenerationRule{SetOnCreate: true, Compare: []string{"webhooks"}, Unstructured: true, Why: "%s bumps metadata.generation on any change to webhooks"}},
		// apiextensions.k8s.io, apiregistration.k8s.io
		{"apiextensions.k8s.io", "CustomResourceDefinition", false, genSpec},
		{"apiregistration.k8s.io", "APIService", false, genNone},
		// apps
		{"apps", "ControllerRevision", true, genNone},
		{"apps", "DaemonSet", true, GenerationRule{SetOnCreate: true, Compare: []string{"spec"}, Ignore: []string{"spec.templateGeneration"},
			Why: "%s bumps metadata.generation on any change to spec (spec.templateGeneration is kept by the server)"}},
		{"apps", "Deployment", true, GenerationRule{SetOnCreate: true, Compare: []string{"spec", "metadata.annotations"},
			Why: "%s bumps metadata.generation on any change to spec or metadata.annotations"}},
		{"apps", "ReplicaSet", true, genSpec},
		{"apps", "StatefulSet", true, genSpec},
		// autoscaling: generation tracked since HPAGeneration (beta, on by default in 1.37)
		{"autoscaling", "HorizontalPodAutoscaler", true, GenerationRule{SetOnCreate: true, Compare: []string{"spec"},
			Why: "%s bumps metadata.generation on any change to spec (feature gate HPAGeneration, on by default in 1.37)"}},
		// batch
		{"batch", "CronJob", true, genSpec},
		{"batch", "Job", true, genSpec},
		// certificates.k8s.io
		{"certificates.k8s.io", "CertificateSigningRequest", true, genNone},
		{"certificates.k8s.io", "ClusterTrustBundle", false, genNone},
		{"certificates.k8s.io", "PodCertificateRequest", false, genNone},
		// coordination.k8s.io
		{"coordination.k8s.io", "LeaseCandidate", false, genNone},
		{"coordination.k8s.io", "Lease", false, genNone},
		// discovery.k8s.io
		{"discovery.k8s.io", "EndpointSlice", true, GenerationRule{SetOnCreate: true,
			AllExcept: []string{"metadata"}, Compare: []string{"metadata.labels"},
			Why: "%s bumps metadata.generation on any change outside metadata, or to metadata.labels"}},
		// events.k8s.io shares the core events strategy
		{"events.k8s.io", "Event", true, genNone},
		// extensions: only its reset fields are modelled (v1beta1 Ingress is no longer served)
		{"extensions", "Ingress", false, genNone},
		// flowcontrol.apiserver.k8s.io
		{"flowcontrol.apiserver.k8s.io", "FlowSchema", true, genSpec},
		{"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", true, genSpec},
		// internal.apiserver.k8s.io
		{"internal.apiserver.k8s.io", "StorageVersion", false, genNone},
		// lifecycle.k8s.io
		{"lifecycle.k8s.io", "EvictionRequest", false, genSpec},
		{"lifecycle.k8s.io", "Eviction", false, genSpec},
		// networking.k8s.io
		{"networking.k8s.io", "IngressClass", true, genSpec},
		{"networking.k8s.io", "Ingress", true, genSpec},
		{"networking.k8s.io", "IPAddress", true, genNone},
		{"networking.k8s.io", "NetworkPolicy", true, genSpec},
		{"networking.k8s.io", "ServiceCIDR", true, genNone},
		// node.k8s.io
		{"node.k8s.io", "RuntimeClass", false, genNone},
		// policy
		{"policy", "PodDisruptionBudget", false, genSpec},
		// rbac.authorization.k8s.io
		{"rbac.authorization.k8s.io", "ClusterRoleBinding", true, genNone},
		{"rbac.authorization.k8s.io", "ClusterRole", true, genNone},
		{"rbac.authorization.k8s.io", "RoleBinding", true, genNone},
		{"rbac.authorization.k8s.io", "Role", true, genNone},
		// resource.k8s.io
		{"resource.k8s.io", "DeviceClass", true, genSpec},
		{"resource.k8s.io", "DeviceTaintRule", false, genSpec},
		{"resource.k8s.io", "ResourceClaim", true, genNone},
		{"resource.k8s.io", "ResourceClaimTemplate", true, genNone},
		{"resource.k8s.io", "ResourcePoolStatusRequest", false, genNone},
		{"resource.k8s.io", "ResourceSlice", true, genSpec},
		// scheduling.k8s.io
		{"scheduling.k8s.io", "CompositePodGroup", false, genNone},
		{"scheduling.k8s.io", "PodGroup", false, genNone},
		{"scheduling.k8s.io", "PriorityClass", true, GenerationRule{SetOnCreate: true,
			Why: "%s sets metadata.generation to 1 on create and never bumps it"}},
		{"scheduling.k8s.io", "Workload", false, genNone},
		// storage.k8s.io
		{"storage.k8s.io", "CSIDriver", false, GenerationRule{Compare: []string{"spec"},
			Why: "%s bumps metadata.generation on any change to spec (create does not set it)"}},
		{"storage.k8s.io", "CSINode", false, genNone},
		{"storage.k8s.io", "CSIStorageCapacity", false, genNone},
		{"storage.k8s.io", "StorageClass", true, genNone},
		{"storage.k8s.io", "VolumeAttachment", false, genNone},
		{"storage.k8s.io", "VolumeAttributesClass", true, genNone},
		// storagemigration.k8s.io
		{"storagemigration.k8s.io", "StorageVersionMigration", false, genNone},
	}
	out := make(map[string]Strategy, len(rows))
	for _, r := range rows {
		s := Strategy{AllowUnconditionalUpdate: r.uncond, Generation: r.gen}
		s.Generation.Compare = slices.Clone(r.gen.Compare)
		s.Generation.AllExcept = slices.Clone(r.gen.AllExcept)
		s.Generation.Ignore = slices.Clone(r.gen.Ignore)
		s.Generation.Why = fmt.Sprintf(r.gen.Why, r.kind)
		out[r.group+"/"+r.kind] = s
	}
	edit := func(key string, f func(*Strategy)) {
		s, ok := out[key]
		if !ok {
			panic("schema: strategy table has no " + key)
		}
		f(&s)
		out[key] = s
	}

	// Subresources, deletion and storage.
	edit("/Pod", func(s *Strategy) {
		s.ExtraSubresources = []string{"resize", "ephemeralcontainers"}
		s.BypassSubresources = []string{"binding"}
		s.GracefulDelete = true
	})
	edit("/Namespace", func(s *Strategy) { s.NoDeleteGenerationBump = true })
	edit("resource.k8s.io/DeviceTaintRule", func(s *Strategy) { s.UnconditionalUpdateVersions = []string{"v1alpha3", "v1beta2"} })
	// autoscaling/v1 HorizontalPodAutoscalers are stored as v2 (DefaultStorageVersion).
	edit("autoscaling/HorizontalPodAutoscaler", func(s *Strategy) { s.StorageVersion = "v2" })
	for key, prefix := range map[string]string{
		"/ReplicationController":    "controllers",
		"/Endpoints":                "services/endpoints",
		"/Node":                     "minions",
		"/Service":                  "services/specs",
		"networking.k8s.io/Ingress": "ingress",
		"apiextensions.k8s.io/CustomResourceDefinition": "apiextensions.k8s.io/customresourcedefinitions",
		"apiregistration.k8s.io/APIService":             "apiregistration.k8s.io/apiservices",
	} {
		edit(key, func(s *Strategy) { s.StoragePrefix = prefix })
	}
	for key, policy := range map[string]GCPolicy{
		"/Event": GCUnsupported, "events.k8s.io/Event": GCUnsupported,
		"/ReplicationController": GCOrphan, "batch/Job": GCOrphan,
	} {
		edit(key, func(s *Strategy) { s.GCPolicy = policy })
	}
	for _, key := range []string{
		"/Pod", "/Service", "/ServiceAccount", "/ResourceQuota", "/PersistentVolumeClaim", "/PodTemplate",
		"/Namespace", "/PersistentVolume",
		"storage.k8s.io/StorageClass", "storage.k8s.io/CSIDriver", "storage.k8s.io/CSINode",
		"storage.k8s.io/VolumeAttachment", "storage.k8s.io/VolumeAttributesClass",
		"resource.k8s.io/DeviceClass", "resource.k8s.io/ResourceSlice", "resource.k8s.io/ResourceClaim",
		"resource.k8s.io/ResourceClaimTemplate",
	} {
		edit(key, func(s *Strategy) { s.ReturnDeletedObject = true })
	}

	// Reset fields (GetResetFields / GetResetFieldsFilter).
	flowcontrol := []string{"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta3", "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta1"}
	resets := []struct {
		key      string
		versions []string
		sets     map[string][][]string
	}{
		{"apps/Deployment", []string{"apps/v1"}, resetMainAndStatus([][]string{{"spec"}, {"metadata", "labels"}})},
		{"apps/ReplicaSet", []string{"apps/v1"}, resetMainAndStatus(resetSpec)},
		{"apps/StatefulSet", []string{"apps/v1"}, resetMainAndStatus(resetSpec)},
		{"apps/DaemonSet", []string{"apps/v1"}, resetMainAndStatus(resetSpec)},
		{"batch/Job", []string{"batch/v1"}, resetMainAndStatus(resetSpec)},
		{"batch/CronJob", []string{"batch/v1", "batch/v1beta1"}, resetMainAndStatus(resetSpec)},

		{"/Node", []string{"v1"}, resetMainAndStatus(resetSpec)},
		{"/ResourceQuota", []string{"v1"}, resetMainAndStatus(resetSpec)},
		{"/PersistentVolume", []string{"v1"}, resetMainAndStatus(resetSpec)},
		{"/PersistentVolumeClaim", []string{"v1"}, resetMainAndStatus(resetSpec)},
		{"/Service", []string{"v1"}, resetMainAndStatus(resetSpec)},
		{"/ReplicationController", []string{"v1"}, resetMainAndStatus(resetSpec)},
		{"/Namespace", []string{"v1"}, map[string][][]string{"": resetStatus, "status": resetSpec, "finalize": resetStatus}},
		// /ephemeralcontainers and /resize: their REST storage implements neither GetResetFields
		// nor GetResetFieldsFilter (the strategies' include filters are never handed to the field
		// manager): nothing is filtered; the values are reset by the pod strategies' own reset.
		// Recorded: testdata/apply/recorded/pod.
		{"/Pod", []string{"v1"}, map[string][][]string{"": resetStatus, "status": {{"spec"}, {"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}}}},

		{"certificates.k8s.io/CertificateSigningRequest", []string{"certificates.k8s.io/v1", "certificates.k8s.io/v1beta1"}, map[string][][]string{
			"": {{"spec"}, {"status"}}, "status": {{"spec"}, {"status", "conditions"}}, "approval": {{"spec"}, {"status", "certificate"}}}},
		{"certificates.k8s.io/PodCertificateRequest", []string{"certificates.k8s.io/v1", "certificates.k8s.io/v1beta1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"scheduling.k8s.io/PodGroup", []string{"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"}, resetMainAndStatus(resetMetaAndSpec)},
		{"scheduling.k8s.io/CompositePodGroup", []string{"scheduling.k8s.io/v1alpha3"}, resetMainAndStatus(resetMetaAndSpec)},
		// ServiceCIDRStatusFieldWiping is on by default in 1.37.
		{"networking.k8s.io/ServiceCIDR", []string{"networking.k8s.io/v1", "networking.k8s.io/v1beta1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"networking.k8s.io/Ingress", []string{"networking.k8s.io/v1", "networking.k8s.io/v1beta1"}, resetMainAndStatus(resetSpec)},
		{"extensions/Ingress", []string{"extensions/v1beta1"}, resetMainAndStatus(resetSpec)},
		{"storagemigration.k8s.io/StorageVersionMigration", []string{"storagemigration.k8s.io/v1", "storagemigration.k8s.io/v1beta1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"policy/PodDisruptionBudget", []string{"policy/v1", "policy/v1beta1"}, resetMainAndStatus(resetSpec)},
		{"resource.k8s.io/ResourceClaim", []string{"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3"}, resetMainAndStatus(resetMetaAndSpec)},
		{"resource.k8s.io/DeviceTaintRule", []string{"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"}, resetMainAndStatus(resetMetaAndSpec)},
		{"resource.k8s.io/ResourcePoolStatusRequest", []string{"resource.k8s.io/v1alpha3"}, resetMainAndStatus(resetMetaAndSpec)},
		{"internal.apiserver.k8s.io/StorageVersion", []string{"internal.apiserver.k8s.io/v1alpha1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"storage.k8s.io/VolumeAttachment", []string{"storage.k8s.io/v1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"storage.k8s.io/CSINode", []string{"storage.k8s.io/v1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"autoscaling/HorizontalPodAutoscaler", []string{"autoscaling/v1", "autoscaling/v2"}, resetMainAndStatus(resetSpec)},
		{"flowcontrol.apiserver.k8s.io/FlowSchema", flowcontrol, resetMainAndStatus(resetMetaAndSpec)},
		{"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration", flowcontrol, resetMainAndStatus(resetMetaAndSpec)},
		{"lifecycle.k8s.io/Eviction", []string{"lifecycle.k8s.io/v1alpha1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"lifecycle.k8s.io/EvictionRequest", []string{"lifecycle.k8s.io/v1alpha1"}, resetMainAndStatus(resetMetaAndSpec)},
		{"admissionregistration.k8s.io/ValidatingAdmissionPolicy", []string{"admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1", "admissionregistration.k8s.io/v1alpha1"}, resetMainAndStatus(resetMetaAndSpec)},
		// The CRD status strategy does not reset metadata (kubernetes#137681).
		{"apiextensions.k8s.io/CustomResourceDefinition", []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"}, resetMainAndStatus(resetSpec)},
		{"apiregistration.k8s.io/APIService", []string{"apiregistration.k8s.io/v1", "apiregistration.k8s.io/v1beta1"}, resetMainAndStatus(resetMetaAndSpec)},
	}
	for _, r := range resets {
		edit(r.key, func(s *Strategy) {
			s.ResetAPIVersions = r.versions
			s.Reset = r.sets
		})
	}
	// csrStatusStrategy.PrepareForUpdate puts back the spec only (status.conditions, in its reset
	// fields, is the signer's to write: the stored Approved and Denied conditions are kept by
	// validation.PrepareForUpdate); csrApprovalStrategy's keeps the stored status but the
	// conditions (pkg/registry/certificates/certificates/strategy.go).
	edit("certificates.k8s.io/CertificateSigningRequest", func(s *Strategy) {
		s.ResetValues = map[string][][]string{"status": {{"spec"}}, "approval": {{"spec"}, {"status", "certificate"}}}
	})
	// apiServerStatusStrategy.PrepareForUpdate (kube-aggregator).
	edit("apiregistration.k8s.io/APIService", func(s *Strategy) {
		s.ResetValues = map[string][][]string{"status": {{"spec"}, {"metadata", "labels"}, {"metadata", "annotations"},
			{"metadata", "finalizers"}, {"metadata", "ownerReferences"}}}
	})
	return out
}

// Strategy returns the strategy of the kind (BuiltinStrategy of its group and kind); ok is false
// for a kind that is not a stored resource (subresource bodies, reviews, ComponentStatus).
func (k *Kind) Strategy() (s Strategy, ok bool) {
	if k.Resource == "" {
		return Strategy{}, false
	}
	return BuiltinStrategy(k.GVK)
}

// sharedStorage holds kube-apiserver's cohabitating resources (the storage factory's
// AddCohabitatingResources) that share another resource's storage: by group and resource, the
// resource whose storage it is and the version objects are stored in there.
var sharedStorage = map[[2]string]GroupVersionResource{
	// events.k8s.io Events are core Events: one storage, stored as core v1 Events, read,
	// listed and watched through either group.
	{"events.k8s.io", "events"}: {Version: "v1", Resource: "events"},
}

// SharedStorage returns the resource (with its storage version) whose storage group's resource
// shares, and whether it shares one: objects written through either are stored once, under the
// other's name and in its version, and each group reads them in its own version.
func SharedStorage(group, resource string) (GroupVersionResource, bool) {
	r, ok := sharedStorage[[2]string{group, resource}]
	return r, ok
}
