package cli

import "github.com/writepath/writepath/internal/value"

// defaultNamespace is the request namespace when -n is not given: what kubectl's context gives
// when it names none.
const defaultNamespace = "default"

// namespaceFlag declares -n/--namespace, the request namespace as kubectl's: objects of a
// namespaced kind without metadata.namespace get it; an object in another namespace is refused
// when -n is given (requireNamespace). usage says what the verb does with it.
func (f *flags) namespace(usage string) *string {
	return f.String("n", "", usage)
}

// namespaceGiven reports whether -n/--namespace was on the command line.
func (f *flags) namespaceGiven() bool {
	fl := f.FlagSet.Lookup("namespace")
	return fl != nil && fl.Changed
}

// requireNamespace is kubectl's resource builder step for objects read from -f: an object of a
// namespaced kind without a namespace is put in ns; with enforce (-n given: cli-runtime's
// RequireNamespace) one in another namespace is refused with kubectl's words, without (ns is
// the context's default: DefaultNamespace) it keeps its own. namespaced tells the kinds apart.
// The objects are copied, never changed; nil entries stay nil.
func requireNamespace(objs []map[string]any, ns string, enforce bool, namespaced func(map[string]any) bool) ([]map[string]any, error) {
	out := make([]map[string]any, len(objs))
	for i, obj := range objs {
		out[i] = obj
		if obj == nil || !namespaced(obj) {
			continue
		}
		md, _ := obj["metadata"].(map[string]any)
		has, _ := md["namespace"].(string)
		if has == ns {
			continue
		}
		if has != "" && !enforce {
			continue
		}
		if has != "" {
			// cli-runtime's resource.RequireNamespace error, word for word.
			return nil, usagef("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", has, ns, has)
		}
		c, err := value.DeepCopyMap(obj)
		if err != nil {
			return nil, &inputError{err: err}
		}
		cmd, ok := c["metadata"].(map[string]any)
		if !ok {
			cmd = map[string]any{}
			c["metadata"] = cmd
		}
		cmd["namespace"] = ns
		out[i] = c
	}
	return out, nil
}

// namespacedBuiltinOr is the namespaced test of requireNamespace: a built-in kind by the
// resource table, a custom resource by its CRD among crds (its spec.scope), and a kind neither
// knows as unknown says (kubectl would ask discovery): true where -n names the namespace, as
// most custom resources are namespaced; false where only the default would be put in.
func namespacedBuiltinOr(crds []map[string]any, unknown bool) func(map[string]any) bool {
	return func(obj map[string]any) bool {
		gvk, k, err := kindOf(obj)
		if err != nil {
			return false
		}
		if k != nil {
			return k.Namespaced
		}
		if crd := crdOfKind(crds, gvk.Group, gvk.Kind); crd != nil {
			return crdNamespaced(crd)
		}
		return unknown
	}
}

// crdOfKind is the CustomResourceDefinition among crds that defines group's kind, or nil.
func crdOfKind(crds []map[string]any, group, kind string) map[string]any {
	for _, crd := range crds {
		spec, _ := crd["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		if spec["group"] == group && names["kind"] == kind {
			return crd
		}
	}
	return nil
}

// selectNamespace is -n for the verbs that read a cluster's state and act on one object of it
// (rollout): the objects of namespace ns, and those without a namespace, put in it. Objects
// are copied where they change, never changed.
func selectNamespace(objs []map[string]any, ns string) ([]map[string]any, error) {
	var out []map[string]any
	for _, obj := range objs {
		md, _ := obj["metadata"].(map[string]any)
		if has, _ := md["namespace"].(string); has != "" && has != ns {
			continue
		}
		out = append(out, obj)
	}
	return requireNamespace(out, ns, false, func(map[string]any) bool { return true })
}
