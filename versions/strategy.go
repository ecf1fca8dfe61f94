package versions

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Strategy holds the write rules of one resource that this package models:
// whether an update may omit metadata.resourceVersion, how metadata.generation
// is maintained, and where the object lives in storage (which shows in some
// conflict messages). It is the part of a kube-apiserver REST strategy
// (k8s.io/apiserver/pkg/registry/rest) that concerns versions.
//
// Strategies are values; the zero value is a resource that allows
// unconditional updates and does not track generation. Use Builtin or
// BuiltinResource for the types kube-apiserver 1.37 serves, and CustomResource
// for objects of a CustomResourceDefinition.
type Strategy struct {
	// Group is the API group ("" for the core group).
	Group string
	// Resource is the plural resource name, e.g. "deployments".
	Resource string
	// Kind is the kind, e.g. "Deployment".
	Kind string
	// Custom marks a custom resource, served by apiextensions-apiserver.
	Custom bool

	// AllowUnconditionalUpdate says whether an update without
	// metadata.resourceVersion (or with "0") is accepted and applied to the
	// latest stored version, instead of failing with 422.
	AllowUnconditionalUpdate bool
	// UnconditionalUpdateVersions lists API versions in which unconditional
	// updates are allowed although AllowUnconditionalUpdate is false
	// (DeviceTaintRule keeps the old behaviour in v1alpha3 and v1beta2).
	UnconditionalUpdateVersions []string

	// Generation says how metadata.generation changes.
	Generation GenerationPolicy

	// StatusSubresource is true when the resource has a /status subresource;
	// for a custom resource it also means updates of the main resource ignore
	// status.
	StatusSubresource bool
	// SpecReplicasPath is the dotted path of the replica count when the
	// resource has a /scale subresource ("spec.replicas"), "" when it has none.
	SpecReplicasPath string
	// ExtraSubresources lists other subresources whose writes go through
	// a strategy that bumps the generation like the main one (pods:
	// "resize", "ephemeralcontainers").
	ExtraSubresources []string
	// BypassSubresources lists subresources whose writes go straight to
	// storage without a strategy, so they never bump the generation although
	// they change spec (pods: "binding" sets spec.nodeName).
	BypassSubresources []string

	// NoDeleteGenerationBump is true for resources whose deletion never bumps
	// metadata.generation (namespaces: their REST storage sets the
	// deletionTimestamp itself).
	NoDeleteGenerationBump bool
	// GracefulDelete is true for resources with graceful deletion (pods).
	GracefulDelete bool
	// StoragePrefix is the etcd key prefix under /registry, when it is not
	// the default (the resource name, or group/resource for resources not
	// served by kube-apiserver's own registry).
	StoragePrefix string
}

// GenerationPolicy is how a strategy maintains metadata.generation.
//
// On create, generation is 1 when SetOnCreate; otherwise whatever the client
// sent is kept (0 when absent), because kube-apiserver does not reset it. On
// an update, the server first restores the stored generation (a client cannot
// change it), then adds 1 when a compared field changed. A compared field is
// one of Compare, or, when AllExcept is set, any top-level field not listed in
// AllExcept (apiVersion and kind are never compared). Ignore lists paths the
// strategy resets before comparing.
type GenerationPolicy struct {
	// SetOnCreate is true when create sets generation to 1.
	SetOnCreate bool
	// Compare lists dotted field paths whose change bumps the generation.
	Compare []string
	// AllExcept, when non-nil, makes every top-level field but these compared.
	AllExcept []string
	// Ignore lists dotted field paths left out of the comparison.
	Ignore []string
	// Unstructured selects the equality of custom resources (apimachinery's
	// semantic equality on unstructured content: null, absent and {} differ;
	// 1 and 1.0 differ) instead of that of typed objects (absent, null, "",
	// {} and [] are all empty; numbers compare by value).
	Unstructured bool
	// Why is the rule in words, used in explanations.
	Why string
}

// Tracked reports whether the policy ever sets or bumps the generation.
func (p GenerationPolicy) Tracked() bool {
	return p.SetOnCreate || len(p.Compare) > 0 || p.AllExcept != nil
}

// AllowsUnconditionalUpdate reports whether an update sent in API version
// version may omit metadata.resourceVersion.
func (s Strategy) AllowsUnconditionalUpdate(version string) bool {
	return s.AllowUnconditionalUpdate || slices.Contains(s.UnconditionalUpdateVersions, version)
}

// GroupResource returns "resource.group", or "resource" for the core group:
// how apiserver messages name the resource.
func (s Strategy) GroupResource() string {
	if s.Group == "" {
		return s.Resource
	}
	return s.Resource + "." + s.Group
}

// GroupKind returns "Kind.group", or "Kind" for the core group.
func (s Strategy) GroupKind() string {
	if s.Group == "" {
		return s.Kind
	}
	return s.Kind + "." + s.Group
}

// StorageKey returns the etcd key of the named object under the default
// --etcd-prefix "/registry": "/registry/configmaps/default/cm1",
// "/registry/example.com/widgets/default/w1", "/registry/minions/node-1".
func (s Strategy) StorageKey(namespace, name string) string {
	prefix := s.StoragePrefix
	if prefix == "" {
		prefix = s.Resource
		if s.Custom {
			prefix = s.Group + "/" + s.Resource
		}
	}
	key := "/registry/" + prefix
	if namespace != "" {
		key += "/" + namespace
	}
	return key + "/" + name
}

// HasSubresource reports whether the strategy serves the subresource.
func (s Strategy) HasSubresource(sub string) bool {
	switch sub {
	case "":
		return true
	case "status":
		return s.StatusSubresource
	case "scale":
		return s.SpecReplicasPath != ""
	}
	return slices.Contains(s.ExtraSubresources, sub) || slices.Contains(s.BypassSubresources, sub)
}

// CustomResourceOptions describes the subresources of a custom resource's
// version, as its CustomResourceDefinition declares them.
type CustomResourceOptions struct {
	// StatusSubresource is spec.versions[*].subresources.status != nil.
	StatusSubresource bool
	// SpecReplicasPath is subresources.scale.specReplicasPath (".spec.replicas"
	// or "spec.replicas"), "" when there is no scale subresource.
	SpecReplicasPath string
}

// CustomResource returns the strategy of apiextensions-apiserver for objects of
// group/resource (kind) with the given subresources: generation 1 on create,
// bumped by any change outside metadata (and outside status when the status
// subresource is enabled, because the main resource then ignores status);
// unconditional updates are not allowed.
func CustomResource(group, resource, kind string, opts CustomResourceOptions) Strategy {
	except := []string{"metadata"}
	why := "custom resources bump metadata.generation on any change outside metadata"
	if opts.StatusSubresource {
		except = []string{"metadata", "status"}
		why = "custom resources with a status subresource bump metadata.generation on any change outside metadata and status"
	}
	return Strategy{
		Group:    group,
		Resource: resource,
		Kind:     kind,
		Custom:   true,
		Generation: GenerationPolicy{
			SetOnCreate:  true,
			AllExcept:    except,
			Unstructured: true,
			Why:          why,
		},
		StatusSubresource: opts.StatusSubresource,
		SpecReplicasPath:  strings.TrimPrefix(opts.SpecReplicasPath, "."),
	}
}

// Builtin returns the strategy of a kind kube-apiserver 1.37 serves (including
// CustomResourceDefinition and APIService), by group and kind.
func Builtin(group, kind string) (Strategy, bool) {
	for _, s := range builtinTable() {
		if s.Group == group && s.Kind == kind {
			return s.clone(), true
		}
	}
	return Strategy{}, false
}

// BuiltinResource returns the strategy of a built-in resource by group and
// plural resource name.
func BuiltinResource(group, resource string) (Strategy, bool) {
	for _, s := range builtinTable() {
		if s.Group == group && s.Resource == resource {
			return s.clone(), true
		}
	}
	return Strategy{}, false
}

// Builtins returns the strategies of all built-in resources, ordered by group
// and resource. The slice is fresh on each call.
func Builtins() []Strategy {
	table := builtinTable()
	out := make([]Strategy, len(table))
	for i, s := range table {
		out[i] = s.clone()
	}
	slices.SortFunc(out, func(a, b Strategy) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Resource, b.Resource)
	})
	return out
}

// StrategyFor returns the strategy for obj by its apiVersion and kind: the
// built-in one, or else CustomResource with opts and a resource name guessed
// as the lower-case plural of the kind (only used in messages and keys; pass
// the CRD's plural through CustomResource when it matters).
func StrategyFor(obj map[string]any, opts CustomResourceOptions) (Strategy, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return Strategy{}, fmt.Errorf("object has no apiVersion and kind: cannot tell its resource")
	}
	group := ""
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	if s, ok := Builtin(group, kind); ok {
		return s, nil
	}
	if group == "" {
		return Strategy{}, fmt.Errorf("unknown kind %q in the core group", kind)
	}
	return CustomResource(group, guessPlural(kind), kind, opts), nil
}

// guessPlural lower-cases kind and pluralises it like kubectl's fallback
// (k8s.io/apimachinery/pkg/api/meta.UnsafeGuessKindToResource).
func guessPlural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return k
	case strings.HasSuffix(k, "s"):
		return k + "es"
	case strings.HasSuffix(k, "y"):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}

// Generation rules of the built-in strategies, from
// k8s.io/kubernetes/pkg/registry/*/*/strategy.go (v1.37.2), PrepareForCreate
// and PrepareForUpdate.
var (
	genNone = GenerationPolicy{Why: "%s does not track metadata.generation"}
	genSpec = GenerationPolicy{SetOnCreate: true, Compare: []string{"spec"},
		Why: "%s bumps metadata.generation on any change to spec"}
)

func specPolicy(why string) GenerationPolicy {
	p := genSpec
	if why != "" {
		p.Why = why
	}
	return p
}

// builtinTable is the table of built-in strategies, built once. Callers get
// clones (Strategy.clone), so the table is never altered.
var builtinTable = sync.OnceValue(builtins)

// clone returns s with its slices copied.
func (s Strategy) clone() Strategy {
	s.UnconditionalUpdateVersions = slices.Clone(s.UnconditionalUpdateVersions)
	s.ExtraSubresources = slices.Clone(s.ExtraSubresources)
	s.BypassSubresources = slices.Clone(s.BypassSubresources)
	s.Generation.Compare = slices.Clone(s.Generation.Compare)
	s.Generation.AllExcept = slices.Clone(s.Generation.AllExcept)
	s.Generation.Ignore = slices.Clone(s.Generation.Ignore)
	return s
}

// builtins builds the table.
func builtins() []Strategy {
	type row struct {
		group, resource, kind string
		uncond                bool
		gen                   GenerationPolicy
		status                bool
		scale                 bool
	}
	rows := []row{
		// core
		{"", "configmaps", "ConfigMap", true, genNone, false, false},
		{"", "endpoints", "Endpoints", true, genNone, false, false},
		{"", "events", "Event", true, genNone, false, false},
		{"", "limitranges", "LimitRange", true, genNone, false, false},
		{"", "namespaces", "Namespace", true, genNone, true, false},
		{"", "nodes", "Node", true, genNone, true, false},
		{"", "persistentvolumeclaims", "PersistentVolumeClaim", true, genNone, true, false},
		{"", "persistentvolumes", "PersistentVolume", true, genNone, true, false},
		{"", "pods", "Pod", true, genSpec, true, false},
		{"", "podtemplates", "PodTemplate", true, GenerationPolicy{SetOnCreate: true, Compare: []string{"template"},
			Why: "%s bumps metadata.generation on any change to template"}, false, false},
		{"", "replicationcontrollers", "ReplicationController", true, genSpec, true, true},
		{"", "resourcequotas", "ResourceQuota", true, genNone, true, false},
		{"", "secrets", "Secret", true, genNone, false, false},
		{"", "serviceaccounts", "ServiceAccount", true, genNone, false, false},
		{"", "services", "Service", true, genNone, true, false},
		// admissionregistration.k8s.io
		{"admissionregistration.k8s.io", "mutatingadmissionpolicies", "MutatingAdmissionPolicy", false, genSpec, false, false},
		{"admissionregistration.k8s.io", "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", false, genSpec, false, false},
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false,
			GenerationPolicy{SetOnCreate: true, Compare: []string{"webhooks"}, Why: "%s bumps metadata.generation on any change to webhooks"}, false, false},
		{"admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false, genSpec, true, false},
		{"admissionregistration.k8s.io", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", false, genSpec, false, false},
		{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false,
			GenerationPolicy{SetOnCreate: true, Compare: []string{"webhooks"}, Why: "%s bumps metadata.generation on any change to webhooks"}, false, false},
		// apiextensions.k8s.io, apiregistration.k8s.io
		{"apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", false, genSpec, true, false},
		{"apiregistration.k8s.io", "apiservices", "APIService", false, genNone, true, false},
		// apps
		{"apps", "controllerrevisions", "ControllerRevision", true, genNone, false, false},
		{"apps", "daemonsets", "DaemonSet", true, GenerationPolicy{SetOnCreate: true, Compare: []string{"spec"}, Ignore: []string{"spec.templateGeneration"},
			Why: "%s bumps metadata.generation on any change to spec (spec.templateGeneration is kept by the server)"}, true, false},
		{"apps", "deployments", "Deployment", true, GenerationPolicy{SetOnCreate: true, Compare: []string{"spec", "metadata.annotations"},
			Why: "%s bumps metadata.generation on any change to spec or metadata.annotations"}, true, true},
		{"apps", "replicasets", "ReplicaSet", true, genSpec, true, true},
		{"apps", "statefulsets", "StatefulSet", true, genSpec, true, true},
		// autoscaling: generation tracked since HPAGeneration (beta, on by default in 1.37)
		{"autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, specPolicy(
			"%s bumps metadata.generation on any change to spec (feature gate HPAGeneration, on by default in 1.37)"), true, false},
		// batch
		{"batch", "cronjobs", "CronJob", true, genSpec, true, false},
		{"batch", "jobs", "Job", true, genSpec, true, false},
		// certificates.k8s.io
		{"certificates.k8s.io", "certificatesigningrequests", "CertificateSigningRequest", true, genNone, true, false},
		{"certificates.k8s.io", "clustertrustbundles", "ClusterTrustBundle", false, genNone, false, false},
		{"certificates.k8s.io", "podcertificaterequests", "PodCertificateRequest", false, genNone, true, false},
		// coordination.k8s.io
		{"coordination.k8s.io", "leasecandidates", "LeaseCandidate", false, genNone, false, false},
		{"coordination.k8s.io", "leases", "Lease", false, genNone, false, false},
		// discovery.k8s.io
		{"discovery.k8s.io", "endpointslices", "EndpointSlice", true, GenerationPolicy{SetOnCreate: true,
			AllExcept: []string{"metadata"}, Compare: []string{"metadata.labels"},
			Why: "%s bumps metadata.generation on any change outside metadata, or to metadata.labels"}, false, false},
		// events.k8s.io shares the core events strategy
		{"events.k8s.io", "events", "Event", true, genNone, false, false},
		// flowcontrol.apiserver.k8s.io
		{"flowcontrol.apiserver.k8s.io", "flowschemas", "FlowSchema", true, genSpec, true, false},
		{"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", "PriorityLevelConfiguration", true, genSpec, true, false},
		// internal.apiserver.k8s.io
		{"internal.apiserver.k8s.io", "storageversions", "StorageVersion", false, genNone, true, false},
		// lifecycle.k8s.io
		{"lifecycle.k8s.io", "evictionrequests", "EvictionRequest", false, genSpec, true, false},
		{"lifecycle.k8s.io", "evictions", "Eviction", false, genSpec, true, false},
		// networking.k8s.io
		{"networking.k8s.io", "ingressclasses", "IngressClass", true, genSpec, false, false},
		{"networking.k8s.io", "ingresses", "Ingress", true, genSpec, true, false},
		{"networking.k8s.io", "ipaddresses", "IPAddress", true, genNone, false, false},
		{"networking.k8s.io", "networkpolicies", "NetworkPolicy", true, genSpec, false, false},
		{"networking.k8s.io", "servicecidrs", "ServiceCIDR", true, genNone, true, false},
		// node.k8s.io
		{"node.k8s.io", "runtimeclasses", "RuntimeClass", false, genNone, false, false},
		// policy
		{"policy", "poddisruptionbudgets", "PodDisruptionBudget", false, genSpec, true, false},
		// rbac.authorization.k8s.io
		{"rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", true, genNone, false, false},
		{"rbac.authorization.k8s.io", "clusterroles", "ClusterRole", true, genNone, false, false},
		{"rbac.authorization.k8s.io", "rolebindings", "RoleBinding", true, genNone, false, false},
		{"rbac.authorization.k8s.io", "roles", "Role", true, genNone, false, false},
		// resource.k8s.io
		{"resource.k8s.io", "deviceclasses", "DeviceClass", true, genSpec, false, false},
		{"resource.k8s.io", "devicetaintrules", "DeviceTaintRule", false, genSpec, true, false},
		{"resource.k8s.io", "resourceclaims", "ResourceClaim", true, genNone, true, false},
		{"resource.k8s.io", "resourceclaimtemplates", "ResourceClaimTemplate", true, genNone, false, false},
		{"resource.k8s.io", "resourcepoolstatusrequests", "ResourcePoolStatusRequest", false, genNone, true, false},
		{"resource.k8s.io", "resourceslices", "ResourceSlice", true, genSpec, false, false},
		// scheduling.k8s.io
		{"scheduling.k8s.io", "compositepodgroups", "CompositePodGroup", false, genNone, true, false},
		{"scheduling.k8s.io", "podgroups", "PodGroup", false, genNone, true, false},
		{"scheduling.k8s.io", "priorityclasses", "PriorityClass", true, GenerationPolicy{SetOnCreate: true,
			Why: "%s sets metadata.generation to 1 on create and never bumps it"}, false, false},
		{"scheduling.k8s.io", "workloads", "Workload", false, genNone, false, false},
		// storage.k8s.io
		{"storage.k8s.io", "csidrivers", "CSIDriver", false, GenerationPolicy{Compare: []string{"spec"},
			Why: "%s bumps metadata.generation on any change to spec (create does not set it)"}, false, false},
		{"storage.k8s.io", "csinodes", "CSINode", false, genNone, true, false},
		{"storage.k8s.io", "csistoragecapacities", "CSIStorageCapacity", false, genNone, false, false},
		{"storage.k8s.io", "storageclasses", "StorageClass", true, genNone, false, false},
		{"storage.k8s.io", "volumeattachments", "VolumeAttachment", false, genNone, true, false},
		{"storage.k8s.io", "volumeattributesclasses", "VolumeAttributesClass", true, genNone, false, false},
		// storagemigration.k8s.io
		{"storagemigration.k8s.io", "storageversionmigrations", "StorageVersionMigration", false, genNone, true, false},
	}
	out := make([]Strategy, 0, len(rows))
	for _, r := range rows {
		s := Strategy{
			Group:                    r.group,
			Resource:                 r.resource,
			Kind:                     r.kind,
			AllowUnconditionalUpdate: r.uncond,
			Generation:               r.gen,
			StatusSubresource:        r.status,
		}
		s.Generation.Compare = slices.Clone(r.gen.Compare)
		s.Generation.AllExcept = slices.Clone(r.gen.AllExcept)
		s.Generation.Ignore = slices.Clone(r.gen.Ignore)
		if r.scale {
			s.SpecReplicasPath = "spec.replicas"
		}
		s.Generation.Why = fmt.Sprintf(r.gen.Why, r.kind)
		out = append(out, s)
	}
	for i := range out {
		s := &out[i]
		switch s.Group + "/" + s.Resource {
		case "/pods":
			s.ExtraSubresources = []string{"resize", "ephemeralcontainers"}
			s.BypassSubresources = []string{"binding"}
			s.GracefulDelete = true
		case "/namespaces":
			s.NoDeleteGenerationBump = true
		case "resource.k8s.io/devicetaintrules":
			s.UnconditionalUpdateVersions = []string{"v1alpha3", "v1beta2"}
		case "/replicationcontrollers":
			s.StoragePrefix = "controllers"
		case "/endpoints":
			s.StoragePrefix = "services/endpoints"
		case "/nodes":
			s.StoragePrefix = "minions"
		case "/services":
			s.StoragePrefix = "services/specs"
		case "networking.k8s.io/ingresses":
			s.StoragePrefix = "ingress"
		case "apiextensions.k8s.io/customresourcedefinitions", "apiregistration.k8s.io/apiservices":
			s.StoragePrefix = s.Group + "/" + s.Resource
		}
	}
	return out
}
