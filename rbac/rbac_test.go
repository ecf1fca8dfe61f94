package rbac_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/rbac"
)

// objects is a Policy over a list of stored objects, in the order given.
type objects []map[string]any

func (o objects) of(kind, namespace string) []map[string]any {
	var out []map[string]any
	for _, x := range o {
		md, _ := x["metadata"].(map[string]any)
		if x["kind"] == kind && (md["namespace"] == nil && namespace == "" || md["namespace"] == namespace) {
			out = append(out, x)
		}
	}
	return out
}

func (o objects) named(kind, namespace, name string) map[string]any {
	for _, x := range o.of(kind, namespace) {
		if x["metadata"].(map[string]any)["name"] == name {
			return x
		}
	}
	return nil
}

func (o objects) ClusterRoleBindings() ([]map[string]any, error) {
	return o.of("ClusterRoleBinding", ""), nil
}
func (o objects) RoleBindings(ns string) ([]map[string]any, error) {
	return o.of("RoleBinding", ns), nil
}
func (o objects) ClusterRole(name string) (map[string]any, error) {
	return o.named("ClusterRole", "", name), nil
}
func (o objects) Role(ns, name string) (map[string]any, error) { return o.named("Role", ns, name), nil }

func parse(t *testing.T, docs ...string) objects {
	var out objects
	for _, d := range docs {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(d), &m), d)
		out = append(out, m)
	}
	return out
}

func policy(t *testing.T) objects {
	return parse(t,
		`{"kind":"ClusterRole","metadata":{"name":"reader"},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods","pods/log"]}]}`,
		`{"kind":"ClusterRole","metadata":{"name":"scaler"},"rules":[{"verbs":["update"],"apiGroups":["apps","*"],"resources":["*/scale"]}]}`,
		`{"kind":"ClusterRole","metadata":{"name":"health"},"rules":[{"verbs":["get"],"nonResourceURLs":["/healthz","/metrics/*"]}]}`,
		`{"kind":"ClusterRole","metadata":{"name":"everything"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]},{"verbs":["*"],"nonResourceURLs":["*"]}]}`,
		// An aggregated ClusterRole as stored, before the aggregation controller fills its rules.
		`{"kind":"ClusterRole","metadata":{"name":"aggregate"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}}`,
		`{"kind":"Role","metadata":{"name":"cm-one","namespace":"demo"},"rules":[{"verbs":["get","update"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["one"]}]}`,
		`{"kind":"ClusterRoleBinding","metadata":{"name":"readers"},"roleRef":{"kind":"ClusterRole","name":"reader"},"subjects":[{"kind":"Group","name":"readers"},{"kind":"User","name":"alice"}]}`,
		`{"kind":"ClusterRoleBinding","metadata":{"name":"health"},"roleRef":{"kind":"ClusterRole","name":"health"},"subjects":[{"kind":"ServiceAccount","name":"probe","namespace":"mon"}]}`,
		`{"kind":"ClusterRoleBinding","metadata":{"name":"agg"},"roleRef":{"kind":"ClusterRole","name":"aggregate"},"subjects":[{"kind":"User","name":"carol"}]}`,
		`{"kind":"RoleBinding","metadata":{"name":"cm","namespace":"demo"},"roleRef":{"kind":"Role","name":"cm-one"},"subjects":[{"kind":"ServiceAccount","name":"app"}]}`,
		`{"kind":"RoleBinding","metadata":{"name":"scale","namespace":"demo"},"roleRef":{"kind":"ClusterRole","name":"scaler"},"subjects":[{"kind":"User","name":"bob"}]}`,
		`{"kind":"RoleBinding","metadata":{"name":"gone","namespace":"demo"},"roleRef":{"kind":"ClusterRole","name":"missing"},"subjects":[{"kind":"User","name":"dave"}]}`,
		`{"kind":"RoleBinding","metadata":{"name":"gone-role","namespace":"demo"},"roleRef":{"kind":"Role","name":"missing"},"subjects":[{"kind":"User","name":"dave"}]}`,
	)
}

func res(user rbac.User, verb, ns, group, resource, sub, name string) rbac.Attributes {
	return rbac.Attributes{User: user, Verb: verb, ResourceRequest: true, Namespace: ns, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
}

// TestAuthorize: the reasons are RBAC's words, as kube-apiserver 1.37 answered
// SubjectAccessReviews (testdata/cluster/scenarios/reviews.yaml records some of them).
func TestAuthorize(t *testing.T) {
	p := policy(t)
	alice := rbac.User{Name: "alice"}
	reader := rbac.User{Name: "x", Groups: []string{"readers"}}
	app := rbac.User{Name: "system:serviceaccount:demo:app"}
	for _, tc := range []struct {
		name   string
		a      rbac.Attributes
		allow  bool
		reason string
	}{
		{"user subject", res(alice, "get", "demo", "", "pods", "", ""), true, `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to User "alice"`},
		{"group subject, first that applies", res(rbac.User{Name: "alice", Groups: []string{"readers"}}, "list", "", "", "pods", "", ""), true, `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "readers"`},
		{"group subject", res(reader, "list", "", "", "pods", "", ""), true, `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "readers"`},
		{"verb not listed", res(reader, "delete", "demo", "", "pods", "", ""), false, ""},
		{"other group", res(reader, "get", "demo", "apps", "pods", "", ""), false, ""},
		{"subresource listed", res(reader, "get", "demo", "", "pods", "log", "p"), true, `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "readers"`},
		{"subresource not listed", res(reader, "get", "demo", "", "pods", "exec", "p"), false, ""},
		{"*/scale in a RoleBinding", res(rbac.User{Name: "bob"}, "update", "demo", "apps", "deployments", "scale", "web"), true, `RBAC: allowed by RoleBinding "scale/demo" of ClusterRole "scaler" to User "bob"`},
		{"*/scale is no main resource", res(rbac.User{Name: "bob"}, "update", "demo", "apps", "deployments", "", "web"), false, ""},
		{"RoleBinding only in its namespace", res(rbac.User{Name: "bob"}, "update", "other", "apps", "deployments", "scale", "web"), false, ""},
		{"resourceNames", res(app, "get", "demo", "", "configmaps", "", "one"), true, `RBAC: allowed by RoleBinding "cm/demo" of Role "cm-one" to ServiceAccount "app/demo"`},
		{"resourceNames, other name", res(app, "get", "demo", "", "configmaps", "", "two"), false, ""},
		{"resourceNames, no name (list)", res(app, "list", "demo", "", "configmaps", "", ""), false, ""},
		{"service account of another namespace", res(rbac.User{Name: "system:serviceaccount:other:app"}, "get", "demo", "", "configmaps", "", "one"), false, ""},
		{"nonResourceURL exact", rbac.Attributes{User: rbac.User{Name: "system:serviceaccount:mon:probe"}, Verb: "get", Path: "/healthz"}, true, `RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to ServiceAccount "probe/mon"`},
		{"nonResourceURL prefix", rbac.Attributes{User: rbac.User{Name: "system:serviceaccount:mon:probe"}, Verb: "get", Path: "/metrics/slis"}, true, `RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to ServiceAccount "probe/mon"`},
		{"nonResourceURL other", rbac.Attributes{User: rbac.User{Name: "system:serviceaccount:mon:probe"}, Verb: "get", Path: "/metrics"}, false, ""},
		{"nonResourceURL rule is no resource rule", res(rbac.User{Name: "system:serviceaccount:mon:probe"}, "get", "", "", "healthz", "", ""), false, ""},
		{"aggregated ClusterRole as stored: no rules", res(rbac.User{Name: "carol"}, "get", "demo", "", "pods", "", ""), false, ""},
		{"missing roles", res(rbac.User{Name: "dave"}, "get", "demo", "", "pods", "", ""), false, `RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "missing" not found]`},
		{"missing role outside the namespace is not read", res(rbac.User{Name: "dave"}, "get", "other", "", "pods", "", ""), false, ""},
	} {
		d, reason, err := rbac.Authorize(p, tc.a)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.allow, d == rbac.Allow, tc.name)
		assert.Equal(t, tc.reason, reason, tc.name)
	}
}

func TestAuthorizeWildcards(t *testing.T) {
	p := append(policy(t), parse(t, `{"kind":"ClusterRoleBinding","metadata":{"name":"root"},"roleRef":{"kind":"ClusterRole","name":"everything"},"subjects":[{"kind":"User","name":"root"}]}`)...)
	root := rbac.User{Name: "root"}
	for _, a := range []rbac.Attributes{
		res(root, "escalate", "demo", "rbac.authorization.k8s.io", "clusterroles", "", "x"),
		res(root, "get", "", "example.com", "widgets", "status", ""),
		{User: root, Verb: "post", Path: "/anything"},
	} {
		d, reason, err := rbac.Authorize(p, a)
		require.NoError(t, err)
		assert.Equal(t, rbac.Allow, d, "%+v", a)
		assert.Equal(t, `RBAC: allowed by ClusterRoleBinding "root" of ClusterRole "everything" to User "root"`, reason)
	}
}

func TestRulesFor(t *testing.T) {
	p := policy(t)
	rules, errText := rbac.RulesFor(p, rbac.User{Name: "bob", Groups: []string{"readers"}}, "demo")
	assert.Empty(t, errText)
	assert.Equal(t, []rbac.Rule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}},
		{Verbs: []string{"update"}, APIGroups: []string{"apps", "*"}, Resources: []string{"*/scale"}},
	}, rules)
	rules, errText = rbac.RulesFor(p, rbac.User{Name: "dave"}, "demo")
	assert.Empty(t, rules)
	assert.Equal(t, `[clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "missing" not found]`, errText)
	// Without a namespace only the ClusterRoleBindings count.
	rules, _ = rbac.RulesFor(p, rbac.User{Name: "bob"}, "")
	assert.Empty(t, rules)
}

type failing struct{ objects }

func (failing) ClusterRoleBindings() ([]map[string]any, error) { return nil, errors.New("store down") }

func TestPolicyErrors(t *testing.T) {
	p := failing{policy(t)}
	d, reason, err := rbac.Authorize(p, res(rbac.User{Name: "bob"}, "update", "demo", "apps", "deployments", "scale", "w"))
	require.NoError(t, err)
	// The RoleBindings are still visited after the ClusterRoleBindings failed.
	assert.Equal(t, rbac.Allow, d)
	assert.Equal(t, `RBAC: allowed by RoleBinding "scale/demo" of ClusterRole "scaler" to User "bob"`, reason)
	_, reason, _ = rbac.Authorize(p, res(rbac.User{Name: "bob"}, "get", "demo", "", "pods", "", ""))
	assert.Equal(t, "RBAC: store down", reason)
}

func TestAggregateError(t *testing.T) {
	assert.Equal(t, "", rbac.AggregateError(nil))
	assert.Equal(t, "a", rbac.AggregateError([]error{errors.New("a"), errors.New("a")}))
	assert.Equal(t, "[a, b]", rbac.AggregateError([]error{errors.New("a"), errors.New("b"), errors.New("a")}))
}
