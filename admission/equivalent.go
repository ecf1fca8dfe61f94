package admission

import (
	"fmt"
	"sort"
	"sync"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Versions tells the chain what the apiserver knows about the kinds it serves
// beyond the built-in catalogue: the CustomResourceDefinitions, and how to
// convert an object between versions of its kind. matchPolicy Equivalent
// needs both (a webhook or policy registered for one version sees requests
// made through another, with the object converted to its version), and
// ApplyConfiguration mutations of custom resources merge with their CRD's
// schema.
type Versions struct {
	// CRDs are the CustomResourceDefinitions served (see schema.FromCRD). Each
	// version of a CRD, served or not, is equivalent to the others, as the
	// apiextensions-apiserver registers them.
	CRDs []*schema.CRD
	// Converter converts objects between versions of a kind (for example
	// conversion.Builtin, which converts the kinds kube-apiserver serves in
	// several versions by default and custom resources whose CRD uses the None
	// strategy; a CRD with a conversion webhook needs its conversion.Converter
	// in front of it). When it is a schema.OntoConverter, a webhook's or
	// policy's result is converted back into the object held. Nil converts
	// nothing: a match through another version fails as an unknown
	// conversion.
	Converter schema.Converter
}

func (v *Versions) crdVersion(gvk schema.GroupVersionKind) *schema.Version {
	for _, crd := range v.CRDs {
		if crd == nil || crd.Group != gvk.Group || crd.Names.Kind != gvk.Kind {
			continue
		}
		if ver := crd.Version(gvk.Version); ver != nil {
			return ver
		}
	}
	return nil
}

// equivalentResourcesFor is the apiserver's EquivalentResourceMapper: the
// resources (every version, and every group sharing the storage) registered
// for the same stored resource with the same subresource, in registration
// order, and the kind each serves.
func (c *Chain) equivalentResourcesFor(res schema.GroupVersionResource, sub string) []schema.GroupVersionResource {
	for _, crd := range c.cfg.Versions.CRDs {
		if crd == nil || crd.Group != res.Group || crd.Names.Plural != res.Resource {
			continue
		}
		var out []schema.GroupVersionResource
		for _, v := range crd.Versions {
			if crdHasSubresource(v, sub) {
				out = append(out, schema.GroupVersionResource{Group: crd.Group, Version: v.Name, Resource: crd.Names.Plural})
			}
		}
		return out
	}
	return builtinEquivalents().resourcesFor(res, sub)
}

// kindFor is EquivalentResourceMapper.KindFor: the kind served at res/sub, or
// the zero kind.
func (c *Chain) kindFor(res schema.GroupVersionResource, sub string) schema.GroupVersionKind {
	for _, crd := range c.cfg.Versions.CRDs {
		if crd == nil || crd.Group != res.Group || crd.Names.Plural != res.Resource {
			continue
		}
		v := crd.Version(res.Version)
		if v == nil || !crdHasSubresource(v, sub) {
			return schema.GroupVersionKind{}
		}
		if sub == "scale" {
			return scaleKind
		}
		return schema.GroupVersionKind{Group: crd.Group, Version: v.Name, Kind: crd.Names.Kind}
	}
	return builtinEquivalents().kinds[resourceKey{res, sub}]
}

var scaleKind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

func crdHasSubresource(v *schema.Version, sub string) bool {
	switch sub {
	case "":
		return true
	case "status":
		return v.Subresources.Status
	case "scale":
		return v.Subresources.Scale != nil
	}
	return false
}

type resourceKey struct {
	res schema.GroupVersionResource
	sub string
}

// equivalents is kube-apiserver's EquivalentResourceRegistry for the
// built-in resources served by default.
type equivalents struct {
	// key is the storage identity of a group's resource ("group/resource",
	// shared by cohabiting resources).
	key   map[string]string
	byKey map[string]map[string][]schema.GroupVersionResource
	kinds map[resourceKey]schema.GroupVersionKind
}

func (e *equivalents) resourcesFor(res schema.GroupVersionResource, sub string) []schema.GroupVersionResource {
	k, ok := e.key[res.Group+"/"+res.Resource]
	if !ok {
		return nil
	}
	return e.byKey[k][sub]
}

// groupOrder orders the registration of equivalent resources across groups:
// kube-apiserver installs the legacy (core) group before the named groups, so
// core events come before events.k8s.io events, the only cross-group
// equivalence served by default. The order among other groups does not matter
// (they share no storage).
var groupOrder = []string{"", "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch",
	"certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "networking.k8s.io", "node.k8s.io",
	"policy", "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "flowcontrol.apiserver.k8s.io",
	"apps", "admissionregistration.k8s.io", "events.k8s.io", "resource.k8s.io", "storagemigration.k8s.io",
	"apiextensions.k8s.io", "apiregistration.k8s.io"}

// versionPriority is the scheme's version priority of groups with several
// versions served by default (higher priority versions are installed first).
var versionPriority = map[string][]string{"autoscaling": {"v2", "v1"}}

var builtinEquivalents = sync.OnceValue(func() *equivalents {
	e := &equivalents{key: map[string]string{}, byKey: map[string]map[string][]schema.GroupVersionResource{}, kinds: map[resourceKey]schema.GroupVersionKind{}}
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return e
	}
	rank := map[string]int{}
	for i, g := range groupOrder {
		rank[g] = i
	}
	vrank := func(g, v string) int {
		for i, p := range versionPriority[g] {
			if p == v {
				return i
			}
		}
		return len(versionPriority[g])
	}
	// The bodies of built-in subresources that are not the parent's kind
	// (deployments/scale is autoscaling/v1 Scale, pods/eviction policy/v1
	// Eviction, ...).
	subresourceKinds := map[string]schema.GroupVersionKind{}
	for _, k := range kinds {
		for _, rs := range k.SubresourceOf {
			subresourceKinds[rs] = schema.GroupVersionKind{Group: k.GVK.Group, Version: k.GVK.Version, Kind: k.GVK.Kind}
		}
	}
	var served []*schema.Kind
	for _, k := range kinds {
		if k.ServedByDefault && k.Resource != "" {
			served = append(served, k)
		}
	}
	sort.SliceStable(served, func(i, j int) bool {
		a, b := served[i].GVK, served[j].GVK
		ra, rb := rank[a.Group], rank[b.Group]
		if ra != rb {
			return ra < rb
		}
		if va, vb := vrank(a.Group, a.Version), vrank(b.Group, b.Version); va != vb {
			return va < vb
		}
		return served[i].Resource < served[j].Resource
	})
	register := func(res schema.GroupVersionResource, sub string, kind schema.GroupVersionKind) {
		gr := res.Group + "/" + res.Resource
		// Resources kube-apiserver stores together (schema.SharedStorage: events.k8s.io
		// events are core events) are one storage identity, the storing resource's.
		st := schema.GroupVersionResource{Group: res.Group, Resource: res.Resource}
		if shared, ok := schema.SharedStorage(res.Group, res.Resource); ok {
			st = shared
		}
		key := st.Group + "/" + st.Resource
		e.key[gr] = key
		if e.byKey[key] == nil {
			e.byKey[key] = map[string][]schema.GroupVersionResource{}
		}
		e.byKey[key][sub] = append(e.byKey[key][sub], res)
		e.kinds[resourceKey{res, sub}] = kind
	}
	for _, k := range served {
		res := schema.GroupVersionResource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: k.Resource}
		kind := schema.GroupVersionKind{Group: k.GVK.Group, Version: k.GVK.Version, Kind: k.GVK.Kind}
		register(res, "", kind)
		if k.Subresources.Status {
			register(res, "status", kind)
		}
		if k.Subresources.Scale != nil {
			register(res, "scale", scaleKind)
		}
		for _, s := range k.Subresources.Other {
			if sk, ok := subresourceKinds[k.Resource+"/"+s]; ok {
				register(res, s, sk)
			} else {
				register(res, s, kind)
			}
		}
	}
	return e
})

// converter is the configured Converter; without one, an object is
// "converted" only to its own kind.
func (c *Chain) converter() schema.Converter {
	if c.cfg.Versions.Converter != nil {
		return c.cfg.Versions.Converter
	}
	return schema.ConverterFunc(func(obj map[string]any, from, to schema.GroupVersionKind) (map[string]any, error) {
		if from == to {
			return value.DeepCopyMap(obj)
		}
		return nil, fmt.Errorf("converting (%s) %s to %s: unknown conversion", from.APIVersion(), from.Kind, to.APIVersion())
	})
}
