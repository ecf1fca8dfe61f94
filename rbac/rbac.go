package rbac

import (
	"fmt"
	"strings"
)

// Attributes is what a request asks to do, as the apiserver's authorizer.Attributes describes it.
type Attributes struct {
	User User
	// Verb is the request's verb: get, list, watch, create, update, patch, delete,
	// deletecollection, or any other word a SubjectAccessReview names (impersonate, bind, ...).
	Verb string
	// ResourceRequest is true for a request on a resource (Namespace..Name apply), false for a
	// non-resource URL (Path applies).
	ResourceRequest bool
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	// Path is the non-resource URL, e.g. /healthz.
	Path string
}

// User is the user asking: its name, uid, groups and extra (RBAC reads the name and the groups).
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Decision is an authorizer's answer.
type Decision int

const (
	// NoOpinion: no rule allows the request (RBAC never denies; the apiserver then refuses it).
	NoOpinion Decision = iota
	// Allow: a rule allows the request.
	Allow
)

// Policy is a view of the stored RBAC objects (rbac.authorization.k8s.io/v1, as map[string]any).
// A lookup of a missing object returns nil and no error.
type Policy interface {
	ClusterRoleBindings() ([]map[string]any, error)
	// RoleBindings returns the RoleBindings of namespace.
	RoleBindings(namespace string) ([]map[string]any, error)
	ClusterRole(name string) (map[string]any, error)
	Role(namespace, name string) (map[string]any, error)
}

// Rule is a PolicyRule of a Role or ClusterRole.
type Rule struct {
	Verbs           []string
	APIGroups       []string
	Resources       []string
	ResourceNames   []string
	NonResourceURLs []string
}

// Authorize is the RBAC authorizer's Authorize: Allow with the reason
// `RBAC: allowed by <binding>` naming the first binding whose rule allows the request, or
// NoOpinion with the reason listing the errors met on the way (a missing role), "" when none.
// The error is always nil, as RBAC's: what goes wrong is in the reason.
func Authorize(p Policy, a Attributes) (Decision, string, error) {
	var errs []error
	var reason string
	allowed := false
	visitRules(p, a.User, a.Namespace, func(source describer, r *Rule, err error) bool {
		if r != nil && RuleAllows(a, *r) {
			allowed = true
			reason = "RBAC: allowed by " + source.String()
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowed {
		return Allow, reason, nil
	}
	if len(errs) > 0 {
		return NoOpinion, "RBAC: " + AggregateError(errs), nil
	}
	return NoOpinion, "", nil
}

// RulesFor returns the rules of every binding that applies to u in namespace (the
// ClusterRoleBindings' and, for a namespace, that namespace's RoleBindings'), in the order
// visited, and the errors met on the way aggregated as the apiserver aggregates them ("" when
// none).
func RulesFor(p Policy, u User, namespace string) ([]Rule, string) {
	var rules []Rule
	var errs []error
	visitRules(p, u, namespace, func(_ describer, r *Rule, err error) bool {
		if r != nil {
			rules = append(rules, *r)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, AggregateError(errs)
}

// AggregateError is the text of k8s.io/apimachinery's utilerrors.NewAggregate(errs): "" for none,
// the error itself for one, else "[a, b]" with repeated texts once.
func AggregateError(errs []error) string {
	var msgs []string
	seen := map[string]bool{}
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	switch len(msgs) {
	case 0:
		return ""
	case 1:
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// describer names the binding a rule came from, as RBAC's reason does.
type describer struct {
	kind    string // ClusterRoleBinding or RoleBinding
	binding map[string]any
	subject map[string]any
}

func (d describer) String() string {
	md, _ := d.binding["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	ref, _ := d.binding["roleRef"].(map[string]any)
	if d.kind == "RoleBinding" {
		name += "/" + ns
	}
	return fmt.Sprintf("%s %q of %s %q to %s", d.kind, name, str(ref, "kind"), str(ref, "name"), describeSubject(d.subject, ns))
}

func describeSubject(s map[string]any, bindingNamespace string) string {
	kind, name := str(s, "kind"), str(s, "name")
	if kind == "ServiceAccount" {
		ns := str(s, "namespace")
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", kind, name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// notFound is the listers' NotFound error text: `clusterrole.rbac.authorization.k8s.io "x" not found`.
type notFound struct{ resource, name string }

func (e notFound) Error() string {
	return fmt.Sprintf("%s.rbac.authorization.k8s.io %q not found", e.resource, e.name)
}

// visitRules is DefaultRuleResolver.VisitRulesFor: visit returns false to stop.
func visitRules(p Policy, u User, namespace string, visit func(describer, *Rule, error) bool) {
	crbs, err := p.ClusterRoleBindings()
	if err != nil {
		if !visit(describer{}, nil, err) {
			return
		}
	} else if !visitBindings(p, u, "ClusterRoleBinding", crbs, "", visit) {
		return
	}
	if namespace == "" {
		return
	}
	rbs, err := p.RoleBindings(namespace)
	if err != nil {
		visit(describer{}, nil, err)
		return
	}
	visitBindings(p, u, "RoleBinding", rbs, namespace, visit)
}

func visitBindings(p Policy, u User, kind string, bindings []map[string]any, namespace string, visit func(describer, *Rule, error) bool) bool {
	for _, b := range bindings {
		subject := appliesTo(u, b, namespace)
		if subject == nil {
			continue
		}
		rules, err := roleRules(p, b, namespace)
		if err != nil {
			if !visit(describer{}, nil, err) {
				return false
			}
			continue
		}
		d := describer{kind: kind, binding: b, subject: subject}
		for i := range rules {
			if !visit(d, &rules[i], nil) {
				return false
			}
		}
	}
	return true
}

// appliesTo returns the first subject of binding b that names u, or nil.
func appliesTo(u User, b map[string]any, namespace string) map[string]any {
	subjects, _ := b["subjects"].([]any)
	for _, s := range subjects {
		m, _ := s.(map[string]any)
		if m != nil && appliesToUser(u, m, namespace) {
			return m
		}
	}
	return nil
}

func appliesToUser(u User, s map[string]any, namespace string) bool {
	name := str(s, "name")
	switch str(s, "kind") {
	case "User":
		return u.Name == name
	case "Group":
		for _, g := range u.Groups {
			if g == name {
				return true
			}
		}
		return false
	case "ServiceAccount":
		ns := namespace
		if sns := str(s, "namespace"); sns != "" {
			ns = sns
		}
		if ns == "" {
			return false
		}
		return u.Name == "system:serviceaccount:"+ns+":"+name
	}
	return false
}

// roleRules is GetRoleReferenceRules: the rules of the role a binding refers to.
func roleRules(p Policy, b map[string]any, namespace string) ([]Rule, error) {
	ref, _ := b["roleRef"].(map[string]any)
	name := str(ref, "name")
	var role map[string]any
	var err error
	switch kind := str(ref, "kind"); kind {
	case "Role":
		if role, err = p.Role(namespace, name); err == nil && role == nil {
			err = notFound{"role", name}
		}
	case "ClusterRole":
		if role, err = p.ClusterRole(name); err == nil && role == nil {
			err = notFound{"clusterrole", name}
		}
	default:
		err = fmt.Errorf("unsupported role reference kind: %q", kind)
	}
	if err != nil {
		return nil, err
	}
	return Rules(role), nil
}

// Rules returns the rules of a stored Role or ClusterRole.
func Rules(role map[string]any) []Rule {
	list, _ := role["rules"].([]any)
	out := make([]Rule, 0, len(list))
	for _, r := range list {
		m, _ := r.(map[string]any)
		out = append(out, Rule{Verbs: strs(m["verbs"]), APIGroups: strs(m["apiGroups"]), Resources: strs(m["resources"]),
			ResourceNames: strs(m["resourceNames"]), NonResourceURLs: strs(m["nonResourceURLs"])})
	}
	return out
}

// RuleAllows is RBAC's RuleAllows: whether rule r allows what a asks.
func RuleAllows(a Attributes, r Rule) bool {
	if !has(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return nonResourceURLMatches(r, a.Path)
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	return has(r.APIGroups, a.APIGroup) && resourceMatches(r, combined, a.Subresource) && resourceNameMatches(r, a.Name)
}

// has reports whether values holds want or "*".
func has(values []string, want string) bool {
	for _, v := range values {
		if v == "*" || v == want {
			return true
		}
	}
	return false
}

func resourceMatches(r Rule, combined, subresource string) bool {
	for _, res := range r.Resources {
		if res == "*" || res == combined {
			return true
		}
		// "*/scale" matches the scale subresource of every resource.
		if subresource != "" && len(res) == len(subresource)+2 && strings.HasPrefix(res, "*/") && strings.HasSuffix(res, subresource) {
			return true
		}
	}
	return false
}

func resourceNameMatches(r Rule, name string) bool {
	if len(r.ResourceNames) == 0 {
		return true
	}
	for _, n := range r.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

func nonResourceURLMatches(r Rule, path string) bool {
	for _, u := range r.NonResourceURLs {
		if u == "*" || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func strs(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
