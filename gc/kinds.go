package gc

import (
	"fmt"
	"sync"

	"github.com/writepath/writepath/schema"
)

// Kind describes one served kind as the deletion machinery needs it: its resource (plural), its
// scope, its default garbage-collection policy and whether its strategy supports graceful
// deletion (for a built-in kind, schema's catalogue and schema.Strategy facts).
type Kind struct {
	Group      string
	Version    string
	Kind       string
	Resource   string
	Namespaced bool
	Policy     schema.GCPolicy
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

// builtinIndex holds the kinds kube-apiserver 1.37 serves by default that are stored (have a
// REST strategy): by group, version and kind, and their served versions (sorted) by group + "/" +
// kind.
var builtinIndex = sync.OnceValue(func() (idx struct {
	kinds    map[schema.GroupVersionKind]Kind
	versions map[string][]string
}) {
	idx.kinds, idx.versions = map[schema.GroupVersionKind]Kind{}, map[string][]string{}
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return idx
	}
	for _, k := range kinds {
		if !k.ServedByDefault {
			continue
		}
		st, ok := k.Strategy()
		if !ok {
			continue
		}
		idx.kinds[k.GVK] = Kind{Group: k.GVK.Group, Version: k.GVK.Version, Kind: k.GVK.Kind,
			Resource: k.Resource, Namespaced: k.Namespaced, Policy: st.GCPolicy, Graceful: st.GracefulDelete,
			ReturnDeletedObject: st.ReturnDeletedObject}
		gk := k.GVK.Group + "/" + k.GVK.Kind
		idx.versions[gk] = append(idx.versions[gk], k.GVK.Version)
	}
	return idx
})

// Builtin looks up the kinds kube-apiserver 1.37 serves by default, with the argument of
// schema.Builtin (whose catalogue it reads). Custom resources are not known to it; Run and Step
// learn them from CustomResourceDefinitions in the snapshot.
func Builtin(gvk schema.GroupVersionKind) (Kind, bool) {
	k, ok := builtinIndex().kinds[gvk]
	return k, ok
}

// builtin is Builtin by apiVersion and kind, as objects name them.
func builtin(apiVersion, kind string) (Kind, bool) {
	gv, err := schema.ParseAPIVersion(apiVersion)
	if err != nil || gv.String() != apiVersion {
		return Kind{}, false // "/v1" and the like name no served version
	}
	return Builtin(gv.WithKind(kind))
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
		plural, _ = schema.GuessResource(kind)
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
	return builtin(apiVersion, kind)
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
	plural, _ := schema.GuessResource(m.kind)
	return Kind{Group: group, Version: version, Kind: m.kind, Resource: plural, Namespaced: m.namespace != ""}
}
