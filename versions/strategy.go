package versions

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/writepath/writepath/schema"
)

// Strategy holds the write rules of one resource that this package models:
// whether an update may omit metadata.resourceVersion, how metadata.generation
// is maintained, and where the object lives in storage (which shows in some
// conflict messages). It is the part of a kube-apiserver REST strategy
// (k8s.io/apiserver/pkg/registry/rest) that concerns versions: the resource's
// name and subresources from schema's catalogue, with the strategy facts of
// schema.Strategy.
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

	// StatusSubresource is true when the resource has a /status subresource;
	// for a custom resource it also means updates of the main resource ignore
	// status.
	StatusSubresource bool
	// SpecReplicasPath is the dotted path of the replica count when the
	// resource has a /scale subresource ("spec.replicas"), "" when it has none.
	SpecReplicasPath string

	// Strategy holds the facts of the REST strategy: unconditional updates,
	// the generation rule, the extra and bypassing subresources, deletion and
	// the storage prefix.
	schema.Strategy
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
	return Strategy{
		Group:             group,
		Resource:          resource,
		Kind:              kind,
		Custom:            true,
		StatusSubresource: opts.StatusSubresource,
		SpecReplicasPath:  strings.TrimPrefix(opts.SpecReplicasPath, "."),
		Strategy:          schema.CustomResourceStrategy(opts.StatusSubresource),
	}
}

// Builtin returns the strategy of a kind kube-apiserver 1.37 serves (including
// CustomResourceDefinition and APIService), by group and kind: a strategy is the same at every
// version of a kind, so gvk.Version is not read. The lookup has the argument of schema.Builtin
// and gc.Builtin.
func Builtin(gvk schema.GroupVersionKind) (Strategy, bool) {
	if i, ok := builtinIndex().byKind[[2]string{gvk.Group, gvk.Kind}]; ok {
		return builtinTable()[i].clone(), true
	}
	return Strategy{}, false
}

// BuiltinResource returns the strategy of a built-in resource by group and plural resource name
// (gvr.Version is not read), with the argument of schema.BuiltinForResource.
func BuiltinResource(gvr schema.GroupVersionResource) (Strategy, bool) {
	if i, ok := builtinIndex().byResource[[2]string{gvr.Group, gvr.Resource}]; ok {
		return builtinTable()[i].clone(), true
	}
	return Strategy{}, false
}

// builtinIndex indexes builtinTable by group and kind and by group and resource: the first
// entry of each, as a scan of the table in its order finds it.
var builtinIndex = sync.OnceValue(func() (ix struct{ byKind, byResource map[[2]string]int }) {
	table := builtinTable()
	ix.byKind = make(map[[2]string]int, len(table))
	ix.byResource = make(map[[2]string]int, len(table))
	for i, s := range table {
		if _, ok := ix.byKind[[2]string{s.Group, s.Kind}]; !ok {
			ix.byKind[[2]string{s.Group, s.Kind}] = i
		}
		if _, ok := ix.byResource[[2]string{s.Group, s.Resource}]; !ok {
			ix.byResource[[2]string{s.Group, s.Resource}] = i
		}
	}
	return ix
})

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
	if s, ok := Builtin(schema.GroupVersionKind{Group: group, Kind: kind}); ok {
		return s, nil
	}
	if group == "" {
		return Strategy{}, fmt.Errorf("unknown kind %q in the core group", kind)
	}
	plural, _ := schema.GuessResource(kind)
	return CustomResource(group, plural, kind, opts), nil
}

// builtinTable is the strategies of the built-in resources: the catalogue's
// kinds that have a REST strategy, one per group and kind, ordered by group and
// resource. Callers get clones (Strategy.clone), so the table is never altered.
var builtinTable = sync.OnceValue(func() []Strategy {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return nil
	}
	var out []Strategy
	seen := map[string]bool{}
	for _, k := range kinds {
		st, ok := k.Strategy()
		key := k.GVK.Group + "/" + k.GVK.Kind
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		s := Strategy{Group: k.GVK.Group, Resource: k.Resource, Kind: k.GVK.Kind,
			StatusSubresource: k.Subresources.Status, Strategy: st}
		if sc := k.Subresources.Scale; sc != nil {
			s.SpecReplicasPath = strings.TrimPrefix(sc.SpecReplicasPath, ".")
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Strategy) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Resource, b.Resource)
	})
	return out
})

// clone returns s with its slices copied.
func (s Strategy) clone() Strategy {
	s.Strategy = s.Strategy.Clone()
	return s
}
