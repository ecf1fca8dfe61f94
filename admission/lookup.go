package admission

import "sync/atomic"

// Lookup is what admission reads at request time, as the apiserver's
// admission plugins read their informers: the namespaces
// (NamespaceLifecycle, namespaceSelector, the namespaceObject variable) and
// the param objects of policies. The caller implements it over its store (a
// server's state, a registry world); a namespace or param written between two
// requests is seen by the second, and nothing is recompiled: the compiled
// chain holds no namespace and no param. It must be safe for concurrent use
// when the chain is used concurrently; the objects it returns are read, never
// modified nor kept past the request.
type Lookup interface {
	// Namespace returns the Namespace object named name, false when there is
	// none.
	Namespace(name string) (map[string]any, bool)
	// Params returns the objects of a param kind (apiVersion and kind as a
	// policy's paramKind names them), in any namespace and any order.
	Params(apiVersion, kind string) []map[string]any
}

// StaticLookup is a Lookup over fixed lists of namespaces (by metadata.name)
// and param objects, as Config.Namespaces and Config.Params give them. The
// lists are read, not copied: they must not change while it is in use.
func StaticLookup(namespaces, params []map[string]any) Lookup {
	l := &staticLookup{namespaces: map[string]map[string]any{}, nsValues: map[string]any{}, params: map[[2]string][]map[string]any{}}
	for _, ns := range namespaces {
		name := getString(ns, "metadata", "name")
		l.namespaces[name] = ns
		l.nsValues[name] = namespaceValue(ns)
	}
	for _, p := range params {
		k := [2]string{getString(p, "apiVersion"), getString(p, "kind")}
		l.params[k] = append(l.params[k], p)
	}
	return l
}

type staticLookup struct {
	namespaces map[string]map[string]any
	// nsValues are the namespaces' namespaceObject values, made once.
	nsValues map[string]any
	params   map[[2]string][]map[string]any
}

func (l *staticLookup) Namespace(name string) (map[string]any, bool) {
	ns, ok := l.namespaces[name]
	return ns, ok
}

func (l *staticLookup) Params(apiVersion, kind string) []map[string]any {
	return l.params[[2]string{apiVersion, kind}]
}

// compilations counts the CEL programs this package has compiled, for the
// test that proves a request compiles none. It is a counter, not a cache.
var compilations atomic.Int64
