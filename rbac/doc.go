// Package rbac is the RBAC authorizer of kube-apiserver 1.37 (k8s.io/kubernetes
// plugin/pkg/auth/authorizer/rbac) as pure functions over the stored RBAC objects: whether a
// user may do what Attributes describe (Authorize, with the reason text RBAC gives), and which
// rules apply to a user in a namespace (RulesFor, what a SelfSubjectRulesReview lists).
//
// The rules are read from a Policy: a view of the stored ClusterRoles, Roles, ClusterRoleBindings
// and RoleBindings (rbac.authorization.k8s.io/v1 objects as map[string]any). Bindings are visited
// as the apiserver's rule resolver visits them: every ClusterRoleBinding that names the user, then
// every RoleBinding of the request's namespace that names it, each binding's role's rules in their
// order; a binding applies through its first subject that names the user (a User by name, a Group
// the user is in, a ServiceAccount by its username system:serviceaccount:NS:NAME, a RoleBinding's
// ServiceAccount without a namespace being the binding's). A ClusterRole's rules are taken as
// stored: its aggregationRule is kube-controller-manager's clusterrole-aggregation controller's
// business, which writes the aggregated rules into the ClusterRole.
//
// # Usage
//
//	d, reason, err := rbac.Authorize(policy, rbac.Attributes{User: rbac.User{Name: "bob"},
//		Verb: "get", ResourceRequest: true, Namespace: "demo", Resource: "pods"})
//	// d == rbac.Allow, reason == `RBAC: allowed by RoleBinding "read/demo" of Role "reader" to User "bob"`
//
// # Invariants
//
// Pure: Authorize and RulesFor read the Policy and their arguments only, never modify what the
// Policy returns, and return fresh values. The order of the answers (which binding a reason names
// when several allow; the order of RulesFor's rules) is the order the Policy lists the bindings in:
// kube-apiserver lists them from its informer cache, in no defined order.
//
// # Errors
//
// A binding whose role is missing is not an error of the call: as in the apiserver, it is
// collected and reported in the reason of a request no rule allows
// (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`) and in RulesFor's error. An error
// the Policy returns is reported the same way.
package rbac
