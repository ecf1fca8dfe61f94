package rbac_test

import (
	"fmt"

	"github.com/writepath/writepath/rbac"
)

type stored struct{ role, binding map[string]any }

func (s stored) ClusterRoleBindings() ([]map[string]any, error) { return nil, nil }
func (s stored) RoleBindings(string) ([]map[string]any, error) {
	return []map[string]any{s.binding}, nil
}
func (s stored) ClusterRole(string) (map[string]any, error) { return nil, nil }
func (s stored) Role(_, name string) (map[string]any, error) {
	if name == "reader" {
		return s.role, nil
	}
	return nil, nil
}

func ExampleAuthorize() {
	p := stored{
		role: map[string]any{"kind": "Role", "metadata": map[string]any{"name": "reader", "namespace": "demo"},
			"rules": []any{map[string]any{"verbs": []any{"get"}, "apiGroups": []any{""}, "resources": []any{"pods"}}}},
		binding: map[string]any{"kind": "RoleBinding", "metadata": map[string]any{"name": "read", "namespace": "demo"},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
			"subjects": []any{map[string]any{"kind": "User", "name": "bob"}}},
	}
	d, reason, _ := rbac.Authorize(p, rbac.Attributes{User: rbac.User{Name: "bob"}, Verb: "get",
		ResourceRequest: true, Namespace: "demo", Resource: "pods"})
	fmt.Println(d == rbac.Allow, reason)
	d, reason, _ = rbac.Authorize(p, rbac.Attributes{User: rbac.User{Name: "bob"}, Verb: "delete",
		ResourceRequest: true, Namespace: "demo", Resource: "pods"})
	fmt.Println(d == rbac.Allow, reason == "")
	// Output:
	// true RBAC: allowed by RoleBinding "read/demo" of Role "reader" to User "bob"
	// false true
}
