package etcd

import (
	"strings"
	"sync"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/schema"
)

// DefaultPrefix is kube-apiserver's default --etcd-prefix.
const DefaultPrefix = "/registry"

// specialPrefixes are the resource prefixes compiled into kube-apiserver
// (pkg/kubeapiserver.SpecialDefaultResourcePrefixes): a few core resources keep the names they
// had before the API was grouped.
var specialPrefixes = map[[2]string]string{
	{"", "replicationcontrollers"}:     "controllers",
	{"", "endpoints"}:                  "services/endpoints",
	{"", "nodes"}:                      "minions",
	{"", "services"}:                   "services/specs",
	{"networking.k8s.io", "ingresses"}: "ingress",
	{"extensions", "ingresses"}:        "ingress",
}

// groupedServers are the API groups served by kube-apiserver's delegated servers
// (apiextensions-apiserver, kube-aggregator), whose storage factory
// (options.SimpleStorageFactory) lays keys out as <group>/<resource>, like custom resources.
var groupedServers = map[string]bool{
	"apiextensions.k8s.io":   true,
	"apiregistration.k8s.io": true,
}

// builtinResources is the set of group/resource pairs kube-apiserver itself serves (from the one
// resource table, schema.BuiltinKinds): their keys carry no group segment.
var builtinResources = sync.OnceValue(func() map[[2]string]bool {
	out := map[[2]string]bool{}
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return out
	}
	for _, k := range kinds {
		out[[2]string{k.GVK.Group, k.Resource}] = true
	}
	return out
})

// ResourcePrefix returns the key segment kube-apiserver 1.37 stores a resource's objects under
// (below --etcd-prefix): the resource name for the resources kube-apiserver serves itself
// ("deployments", "pods"), the compiled-in legacy names for a few core ones ("services/specs",
// "minions", "controllers", "services/endpoints", "ingress"), and "<group>/<resource>" for
// CustomResourceDefinitions, APIServices and custom resources
// ("apiextensions.k8s.io/customresourcedefinitions", "example.com/widgets").
//
// events.k8s.io Events are core Events (cohabitating resources, schema.SharedStorage): cluster
// stores them under the core key, in core/v1, as kube-apiserver does (/registry/events).
func ResourcePrefix(group, resource string) string {
	if p, ok := specialPrefixes[[2]string{group, resource}]; ok {
		return p
	}
	if group == "" {
		return resource
	}
	if groupedServers[group] || !builtinResources()[[2]string{group, resource}] {
		return group + "/" + resource
	}
	return resource
}

// keyOf returns the etcd key of k below prefix: <prefix>/<resource prefix>/<namespace>/<name>, or
// without the namespace for a cluster-scoped object.
func keyOf(prefix string, k cluster.Key) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteByte('/')
	b.WriteString(ResourcePrefix(k.Group, k.Resource))
	b.WriteByte('/')
	if k.Namespace != "" {
		b.WriteString(k.Namespace)
		b.WriteByte('/')
	}
	b.WriteString(k.Name)
	return b.String()
}

// rangeOf returns the etcd key prefix selecting p's objects (with its trailing slash, so that
// "pods" does not select "podtemplates").
func rangeOf(prefix string, p cluster.Prefix) string {
	s := prefix + "/" + ResourcePrefix(p.Group, p.Resource) + "/"
	if p.Namespace != "" {
		s += p.Namespace + "/"
	}
	return s
}

// keyFrom reads a key under the resource of p back: the rest after the resource prefix is
// "namespace/name" or "name" (names never hold a slash).
func keyFrom(prefix string, p cluster.Prefix, etcdKey string) (cluster.Key, bool) {
	rest, ok := strings.CutPrefix(etcdKey, prefix+"/"+ResourcePrefix(p.Group, p.Resource)+"/")
	if !ok {
		return cluster.Key{}, false
	}
	k := cluster.Key{Group: p.Group, Resource: p.Resource}
	if ns, name, found := strings.Cut(rest, "/"); found {
		if strings.Contains(name, "/") {
			return cluster.Key{}, false
		}
		k.Namespace, k.Name = ns, name
	} else {
		k.Name = rest
	}
	return k, true
}
