package gc

import (
	"fmt"
	"strings"
)

// Policy is a resource's default garbage-collection policy when a DELETE names none
// (rest.GarbageCollectionPolicy in k8s.io/apiserver).
type Policy string

// The default policies a resource's registry strategy can declare.
const (
	// PolicyBackground: dependents are deleted in the background. This is the policy of every
	// resource whose strategy declares none, and of apps/v1 workloads ("DeleteDependents").
	PolicyBackground Policy = ""
	// PolicyOrphan: a DELETE without options orphans dependents (batch/v1 Job and v1
	// ReplicationController, for backward compatibility).
	PolicyOrphan Policy = "OrphanDependents"
	// PolicyUnsupported: the resource cannot be garbage collected; GC finalizers are never set
	// (core and events.k8s.io Events).
	PolicyUnsupported Policy = "Unsupported"
)

// Kind describes one served kind as the deletion machinery needs it: its resource (plural), its
// scope, its default garbage-collection policy and whether its strategy supports graceful
// deletion.
type Kind struct {
	Group      string
	Version    string
	Kind       string
	Resource   string
	Namespaced bool
	Policy     Policy
	// Graceful is true for pods, the only built-in resource whose strategy implements
	// CheckGracefulDelete.
	Graceful bool
	// ReturnDeletedObject is true when a successful DELETE answers with the deleted object
	// rather than a Status (pods, custom resources, and several other registries).
	ReturnDeletedObject bool
}

// APIVersion returns group/version ("v1" for the core group).
func (k Kind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// Kinds looks up a kind by apiVersion and kind. known is false when the server serves no such
// kind at that version (the garbage collector's REST mapping fails).
type Kinds func(apiVersion, kind string) (k Kind, known bool)

type builtinKind struct {
	group, kind, resource string
	namespaced            bool
	versions              []string
	policy                map[string]Policy // by version; missing = background
	graceful, returnObj   bool
}

// builtin lists the kinds kube-apiserver 1.37 serves by default (beta APIs are off by default).
var builtin = []builtinKind{
	{group: "", kind: "Pod", resource: "pods", namespaced: true, versions: []string{"v1"}, graceful: true, returnObj: true},
	{group: "", kind: "ConfigMap", resource: "configmaps", namespaced: true, versions: []string{"v1"}},
	{group: "", kind: "Secret", resource: "secrets", namespaced: true, versions: []string{"v1"}},
	{group: "", kind: "Service", resource: "services", namespaced: true, versions: []string{"v1"}, returnObj: true},
	{group: "", kind: "ServiceAccount", resource: "serviceaccounts", namespaced: true, versions: []string{"v1"}, returnObj: true},
	{group: "", kind: "Endpoints", resource: "endpoints", namespaced: true, versions: []string{"v1"}},
	{group: "", kind: "Event", resource: "events", namespaced: true, versions: []string{"v1"}, policy: map[string]Policy{"v1": PolicyUnsupported}},
	{group: "", kind: "LimitRange", resource: "limitranges", namespaced: true, versions: []string{"v1"}},
	{group: "", kind: "ResourceQuota", resource: "resourcequotas", namespaced: true, versions: []string{"v1"}, returnObj: true},
	{group: "", kind: "PersistentVolumeClaim", resource: "persistentvolumeclaims", namespaced: true, versions: []string{"v1"}, returnObj: true},
	{group: "", kind: "PodTemplate", resource: "podtemplates", namespaced: true, versions: []string{"v1"}, returnObj: true},
	{group: "", kind: "ReplicationController", resource: "replicationcontrollers", namespaced: true, versions: []string{"v1"}, policy: map[string]Policy{"v1": PolicyOrphan}},
	{group: "", kind: "Namespace", resource: "namespaces", versions: []string{"v1"}, returnObj: true},
	{group: "", kind: "Node", resource: "nodes", versions: []string{"v1"}},
	{group: "", kind: "PersistentVolume", resource: "persistentvolumes", versions: []string{"v1"}, returnObj: true},
	{group: "apps", kind: "Deployment", resource: "deployments", namespaced: true, versions: []string{"v1"}},
	{group: "apps", kind: "ReplicaSet", resource: "replicasets", namespaced: true, versions: []string{"v1"}},
	{group: "apps", kind: "StatefulSet", resource: "statefulsets", namespaced: true, versions: []string{"v1"}},
	{group: "apps", kind: "DaemonSet", resource: "daemonsets", namespaced: true, versions: []string{"v1"}},
	{group: "apps", kind: "ControllerRevision", resource: "controllerrevisions", namespaced: true, versions: []string{"v1"}},
	{group: "batch", kind: "Job", resource: "jobs", namespaced: true, versions: []string{"v1"}, policy: map[string]Policy{"v1": PolicyOrphan}},
	{group: "batch", kind: "CronJob", resource: "cronjobs", namespaced: true, versions: []string{"v1"}},
	{group: "autoscaling", kind: "HorizontalPodAutoscaler", resource: "horizontalpodautoscalers", namespaced: true, versions: []string{"v1", "v2"}},
	{group: "policy", kind: "PodDisruptionBudget", resource: "poddisruptionbudgets", namespaced: true, versions: []string{"v1"}},
	{group: "networking.k8s.io", kind: "Ingress", resource: "ingresses", namespaced: true, versions: []string{"v1"}},
	{group: "networking.k8s.io", kind: "NetworkPolicy", resource: "networkpolicies", namespaced: true, versions: []string{"v1"}},
	{group: "networking.k8s.io", kind: "IngressClass", resource: "ingressclasses", versions: []string{"v1"}},
	{group: "networking.k8s.io", kind: "IPAddress", resource: "ipaddresses", versions: []string{"v1"}},
	{group: "networking.k8s.io", kind: "ServiceCIDR", resource: "servicecidrs", versions: []string{"v1"}},
	{group: "discovery.k8s.io", kind: "EndpointSlice", resource: "endpointslices", namespaced: true, versions: []string{"v1"}},
	{group: "events.k8s.io", kind: "Event", resource: "events", namespaced: true, versions: []string{"v1"}, policy: map[string]Policy{"v1": PolicyUnsupported}},
	{group: "coordination.k8s.io", kind: "Lease", resource: "leases", namespaced: true, versions: []string{"v1"}},
	{group: "rbac.authorization.k8s.io", kind: "Role", resource: "roles", namespaced: true, versions: []string{"v1"}},
	{group: "rbac.authorization.k8s.io", kind: "RoleBinding", resource: "rolebindings", namespaced: true, versions: []string{"v1"}},
	{group: "rbac.authorization.k8s.io", kind: "ClusterRole", resource: "clusterroles", versions: []string{"v1"}},
	{group: "rbac.authorization.k8s.io", kind: "ClusterRoleBinding", resource: "clusterrolebindings", versions: []string{"v1"}},
	{group: "storage.k8s.io", kind: "StorageClass", resource: "storageclasses", versions: []string{"v1"}, returnObj: true},
	{group: "storage.k8s.io", kind: "CSIDriver", resource: "csidrivers", versions: []string{"v1"}, returnObj: true},
	{group: "storage.k8s.io", kind: "CSINode", resource: "csinodes", versions: []string{"v1"}, returnObj: true},
	{group: "storage.k8s.io", kind: "VolumeAttachment", resource: "volumeattachments", versions: []string{"v1"}, returnObj: true},
	{group: "storage.k8s.io", kind: "VolumeAttributesClass", resource: "volumeattributesclasses", versions: []string{"v1"}, returnObj: true},
	{group: "storage.k8s.io", kind: "CSIStorageCapacity", resource: "csistoragecapacities", namespaced: true, versions: []string{"v1"}},
	{group: "scheduling.k8s.io", kind: "PriorityClass", resource: "priorityclasses", versions: []string{"v1"}},
	{group: "node.k8s.io", kind: "RuntimeClass", resource: "runtimeclasses", versions: []string{"v1"}},
	{group: "certificates.k8s.io", kind: "CertificateSigningRequest", resource: "certificatesigningrequests", versions: []string{"v1"}},
	{group: "admissionregistration.k8s.io", kind: "MutatingWebhookConfiguration", resource: "mutatingwebhookconfigurations", versions: []string{"v1"}},
	{group: "admissionregistration.k8s.io", kind: "ValidatingWebhookConfiguration", resource: "validatingwebhookconfigurations", versions: []string{"v1"}},
	{group: "admissionregistration.k8s.io", kind: "ValidatingAdmissionPolicy", resource: "validatingadmissionpolicies", versions: []string{"v1"}},
	{group: "admissionregistration.k8s.io", kind: "ValidatingAdmissionPolicyBinding", resource: "validatingadmissionpolicybindings", versions: []string{"v1"}},
	{group: "admissionregistration.k8s.io", kind: "MutatingAdmissionPolicy", resource: "mutatingadmissionpolicies", versions: []string{"v1"}},
	{group: "admissionregistration.k8s.io", kind: "MutatingAdmissionPolicyBinding", resource: "mutatingadmissionpolicybindings", versions: []string{"v1"}},
	{group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", resource: "customresourcedefinitions", versions: []string{"v1"}},
	{group: "apiregistration.k8s.io", kind: "APIService", resource: "apiservices", versions: []string{"v1"}},
	{group: "flowcontrol.apiserver.k8s.io", kind: "FlowSchema", resource: "flowschemas", versions: []string{"v1"}},
	{group: "flowcontrol.apiserver.k8s.io", kind: "PriorityLevelConfiguration", resource: "prioritylevelconfigurations", versions: []string{"v1"}},
	{group: "resource.k8s.io", kind: "DeviceClass", resource: "deviceclasses", versions: []string{"v1"}, returnObj: true},
	{group: "resource.k8s.io", kind: "ResourceSlice", resource: "resourceslices", versions: []string{"v1"}, returnObj: true},
	{group: "resource.k8s.io", kind: "ResourceClaim", resource: "resourceclaims", namespaced: true, versions: []string{"v1"}, returnObj: true},
	{group: "resource.k8s.io", kind: "ResourceClaimTemplate", resource: "resourceclaimtemplates", namespaced: true, versions: []string{"v1"}, returnObj: true},
}

var builtinIndex = func() map[string]*builtinKind {
	m := make(map[string]*builtinKind, len(builtin))
	for i := range builtin {
		b := &builtin[i]
		m[b.group+"/"+b.kind] = b
	}
	return m
}()

// Builtin looks up the kinds kube-apiserver 1.37 serves by default. Custom resources are not
// known to it; Run and Step learn them from CustomResourceDefinitions in the snapshot.
func Builtin(apiVersion, kind string) (Kind, bool) {
	group, version := splitAPIVersion(apiVersion)
	b, ok := builtinIndex[group+"/"+kind]
	if !ok {
		return Kind{}, false
	}
	served := false
	for _, v := range b.versions {
		if v == version {
			served = true
		}
	}
	if !served {
		return Kind{}, false
	}
	return Kind{Group: group, Version: version, Kind: kind, Resource: b.resource, Namespaced: b.namespaced,
		Policy: b.policy[version], Graceful: b.graceful, ReturnDeletedObject: b.returnObj}, true
}

// guessResource pluralises a kind the way meta.UnsafeGuessKindToResource does.
func guessResource(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return k
	case strings.HasSuffix(k, "endpoints"):
		return k
	case strings.HasSuffix(k, "s"):
		return k + "es"
	case strings.HasSuffix(k, "y"):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}

// crdKinds reads the kinds a CustomResourceDefinition serves.
func crdKinds(obj Object) []Kind {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil
	}
	group, _ := spec["group"].(string)
	scope, _ := spec["scope"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	plural, _ := names["plural"].(string)
	if group == "" || kind == "" {
		return nil
	}
	if plural == "" {
		plural = strings.ToLower(kind) + "s"
	}
	var out []Kind
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		name, _ := vm["name"].(string)
		served, _ := vm["served"].(bool)
		if name == "" || !served {
			continue
		}
		out = append(out, Kind{Group: group, Version: name, Kind: kind, Resource: plural,
			Namespaced: scope != "Cluster"})
	}
	return out
}

// catalog resolves kinds: the caller's lookup first, then CRDs of the snapshot, then Builtin.
type catalog struct {
	user  Kinds
	crds  map[string]Kind // apiVersion + "/" + kind
	cache map[[2]string]lookupResult
	// placed holds the kinds of snapshot objects, shared by every object of a kind.
	placed map[[2]string]*Kind
	// last remembers the previous lookups: snapshots list objects of a kind together.
	lastPlaced                  *Kind
	lastPlacedKey               [2]string
	lastPlacedNS                bool
	lastLookupKey               [2]string
	lastLookup                  lookupResult
	lastLookupValid, lastPValid bool
}

type lookupResult struct {
	k  Kind
	ok bool
}

func newCatalog(user Kinds, objs []Object) *catalog {
	c := &catalog{user: user, crds: map[string]Kind{}}
	for _, o := range objs {
		if o["kind"] != "CustomResourceDefinition" {
			continue
		}
		if av, _ := o["apiVersion"].(string); av != "apiextensions.k8s.io/v1" {
			continue
		}
		for _, k := range crdKinds(o) {
			c.crds[k.APIVersion()+"/"+k.Kind] = k
		}
	}
	return c
}

func (c *catalog) lookup(apiVersion, kind string) (Kind, bool) {
	if c.lastLookupValid && c.lastLookupKey[0] == apiVersion && c.lastLookupKey[1] == kind {
		return c.lastLookup.k, c.lastLookup.ok
	}
	k, ok := c.lookupCached(apiVersion, kind)
	c.lastLookupKey, c.lastLookup, c.lastLookupValid = [2]string{apiVersion, kind}, lookupResult{k, ok}, true
	return k, ok
}

func (c *catalog) lookupCached(apiVersion, kind string) (Kind, bool) {
	if c.cache == nil {
		c.cache = map[[2]string]lookupResult{}
	}
	key := [2]string{apiVersion, kind}
	if r, ok := c.cache[key]; ok {
		return r.k, r.ok
	}
	k, ok := c.resolve(apiVersion, kind)
	c.cache[key] = lookupResult{k, ok}
	return k, ok
}

func (c *catalog) resolve(apiVersion, kind string) (Kind, bool) {
	if c.user != nil {
		if k, ok := c.user(apiVersion, kind); ok {
			return k, true
		}
	}
	if k, ok := c.crds[apiVersion+"/"+kind]; ok {
		return k, true
	}
	return Builtin(apiVersion, kind)
}

// kindPtr is kindOf, shared between the objects of a kind.
func (c *catalog) kindPtr(m *meta) *Kind {
	if c.lastPValid && c.lastPlacedKey[0] == m.apiVersion && c.lastPlacedKey[1] == m.kind && c.lastPlacedNS == (m.namespace != "") {
		return c.lastPlaced
	}
	k := c.kindPtrCached(m)
	c.lastPlaced, c.lastPlacedKey, c.lastPlacedNS, c.lastPValid = k, [2]string{m.apiVersion, m.kind}, m.namespace != "", true
	return k
}

func (c *catalog) kindPtrCached(m *meta) *Kind {
	if c.placed == nil {
		c.placed = map[[2]string]*Kind{}
	}
	key := [2]string{m.apiVersion, m.kind}
	if _, known := c.lookup(m.apiVersion, m.kind); !known {
		// A guessed kind depends on the object's namespace.
		key[1] += "\x00" + fmt.Sprint(m.namespace != "")
	}
	if k, ok := c.placed[key]; ok {
		return k
	}
	k := c.kindOf(m)
	c.placed[key] = &k
	return &k
}

// kindOf resolves the kind of an object in the snapshot. Objects of kinds nobody declares are
// still placed (the object exists, so its kind must be served): scope from metadata.namespace,
// resource by the apiserver's pluralisation guess.
func (c *catalog) kindOf(m *meta) Kind {
	if k, ok := c.lookup(m.apiVersion, m.kind); ok {
		return k
	}
	group, version := splitAPIVersion(m.apiVersion)
	return Kind{Group: group, Version: version, Kind: m.kind, Resource: guessResource(m.kind), Namespaced: m.namespace != ""}
}
