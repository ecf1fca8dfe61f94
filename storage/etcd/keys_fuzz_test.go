package etcd

import (
	"strings"
	"testing"

	"github.com/writepath/writepath/cluster"
)

// FuzzKeyRoundTrip: every key a store writes reads back as itself from its etcd key, under the
// prefix of its resource and of its namespace.
func FuzzKeyRoundTrip(f *testing.F) {
	f.Add("", "pods", "demo", "web", "/registry")
	f.Add("apps", "deployments", "a-b", "x", "/registry")
	f.Add("", "services", "default", "kubernetes", "/tenant")
	f.Add("example.com", "widgets", "", "w", "/registry")
	f.Add("", "namespaces", "", "kube-system", "")
	f.Fuzz(func(t *testing.T, group, resource, namespace, name, prefix string) {
		if name == "" || strings.Contains(name, "/") || strings.Contains(namespace, "/") ||
			strings.Contains(resource, "/") || strings.Contains(group, "/") || resource == "" {
			return // not a key the API can name
		}
		k := cluster.Key{Group: group, Resource: resource, Namespace: namespace, Name: name}
		ek := keyOf(prefix, k)
		for _, ns := range []string{"", namespace} {
			p := cluster.Prefix{Group: group, Resource: resource, Namespace: ns}
			if !strings.HasPrefix(ek, rangeOf(prefix, p)) {
				t.Fatalf("%q is not under %q", ek, rangeOf(prefix, p))
			}
			got, ok := keyFrom(prefix, p, ek)
			if !ok || got != k {
				t.Fatalf("keyFrom(%q) = %v, %v; want %v", ek, got, ok, k)
			}
		}
	})
}
