package admission

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/status"
)

// rule is a RuleWithOperations (with resourceNames for policies).
type rule struct {
	operations, apiGroups, apiVersions, resources, resourceNames []string
	scope                                                        string
}

// matchResources is a webhook's or policy's matching criteria.
type matchResources struct {
	rules, exclude    []rule
	namespaceSelector *selector
	objectSelector    *selector
	matchPolicy       string
	// policy is true for policies (empty resourceRules match everything).
	policy bool
}

var namespacesGVR = GroupVersionResource{Version: "v1", Resource: "namespaces"}

func exactOrWildcard(items []string, s string) bool {
	for _, it := range items {
		if it == "*" || it == s {
			return true
		}
	}
	return false
}

func (r rule) matches(req *Request) bool {
	switch r.scope {
	case "", "*":
	case "Namespaced":
		if req.Resource == namespacesGVR || req.Namespace == "" {
			return false
		}
	case "Cluster":
		if req.Resource != namespacesGVR && req.Namespace != "" {
			return false
		}
	default:
		return false
	}
	if !exactOrWildcard(r.operations, string(req.Operation)) || !exactOrWildcard(r.apiGroups, req.Resource.Group) ||
		!exactOrWildcard(r.apiVersions, req.Resource.Version) {
		return false
	}
	ok := false
	for _, rs := range r.resources {
		res, sub, _ := strings.Cut(rs, "/")
		if (res == "*" || res == req.Resource.Resource) && (sub == "*" || sub == req.SubResource) {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	if len(r.resourceNames) == 0 {
		return true
	}
	for _, n := range r.resourceNames {
		if n == req.Name {
			return true
		}
	}
	return false
}

func anyRule(rs []rule, req *Request) bool {
	for _, r := range rs {
		if r.matches(req) {
			return true
		}
	}
	return false
}

// matches reports whether m selects req, as the policy matcher (and the
// webhook's rule, namespace and object predicates) decide it.
func (m *matchResources) matches(req *Request, c *Chain) (bool, error) {
	nsOK, nsErr := m.matchNamespace(req, c)
	if !nsOK && nsErr == nil {
		return false, nil
	}
	objOK := m.objectSelector.empty() || labelsMatch(m.objectSelector, req.Object) || labelsMatch(m.objectSelector, req.OldObject)
	if !objOK {
		return false, nil
	}
	if anyRule(m.exclude, req) {
		return false, nil
	}
	if !(m.policy && len(m.rules) == 0) && !anyRule(m.rules, req) {
		return false, nil
	}
	if nsErr != nil {
		return false, nsErr
	}
	return true, nil
}

func labelsMatch(s *selector, obj map[string]any) bool {
	if obj == nil {
		return false
	}
	return s.matches(labelsOf(obj))
}

func labelsOf(obj map[string]any) map[string]string {
	md, _ := obj["metadata"].(map[string]any)
	ls, _ := md["labels"].(map[string]any)
	out := make(map[string]string, len(ls))
	for k, v := range ls {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

func (m *matchResources) matchNamespace(req *Request, c *Chain) (bool, error) {
	if req.Namespace == "" && req.Resource.Resource != "namespaces" {
		return true, nil
	}
	if m.namespaceSelector.empty() {
		return true, nil
	}
	ls, err := c.namespaceLabels(req)
	if err != nil {
		return false, err
	}
	return m.namespaceSelector.matches(ls), nil
}

// namespaceLabels is the namespace matcher's GetNamespaceLabels.
func (c *Chain) namespaceLabels(req *Request) (map[string]string, error) {
	if req.Resource.Resource == "namespaces" {
		if req.SubResource == "" && (req.Operation == Create || req.Operation == Update) && req.Object != nil {
			return labelsOf(req.Object), nil
		}
		if req.Operation == Delete && req.OldObject != nil {
			return labelsOf(req.OldObject), nil
		}
		ns, ok := c.namespaces[req.Name]
		if !ok {
			return nil, status.NotFound(status.GroupResource{Resource: "namespaces"}, req.Name)
		}
		return labelsOf(ns), nil
	}
	ns, ok := c.namespaces[req.Namespace]
	if !ok {
		return nil, status.NotFound(status.GroupResource{Resource: "namespaces"}, req.Namespace)
	}
	return labelsOf(ns), nil
}

// selector is a parsed metav1.LabelSelector.
type selector struct {
	reqs []requirement
	// none is a selector that matches nothing (a nil selector in webhooks is
	// "everything"; LabelSelectorAsSelector(nil) is Nothing, not used here).
	none bool
}

type requirement struct {
	key, op string
	values  []string
}

func (s *selector) empty() bool { return s == nil || (!s.none && len(s.reqs) == 0) }

func (s *selector) matches(ls map[string]string) bool {
	if s == nil {
		return true
	}
	if s.none {
		return false
	}
	for _, r := range s.reqs {
		v, has := ls[r.key]
		switch r.op {
		case "In":
			if !has || !contains(r.values, v) {
				return false
			}
		case "NotIn":
			if has && contains(r.values, v) {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		}
	}
	return true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// parseSelector reads a metav1.LabelSelector as LabelSelectorAsSelector does.
func parseSelector(v any) (*selector, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("label selector must be an object")
	}
	s := &selector{}
	if ml, ok := m["matchLabels"].(map[string]any); ok {
		for _, k := range sortedKeys(ml) {
			val, _ := ml[k].(string)
			s.reqs = append(s.reqs, requirement{key: k, op: "In", values: []string{val}})
		}
	}
	exprs, _ := m["matchExpressions"].([]any)
	for _, e := range exprs {
		em, _ := e.(map[string]any)
		key, _ := em["key"].(string)
		op, _ := em["operator"].(string)
		vals := stringList(em["values"])
		switch op {
		case "In", "NotIn":
			if len(vals) == 0 {
				return nil, fmt.Errorf("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty")
			}
		case "Exists", "DoesNotExist":
			if len(vals) > 0 {
				return nil, fmt.Errorf("values: Invalid value: %#v: values set must be empty for exists and does not exist", vals)
			}
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", op)
		}
		s.reqs = append(s.reqs, requirement{key: key, op: op, values: vals})
	}
	return s, nil
}

func stringList(v any) []string {
	xs, _ := v.([]any)
	var out []string
	for _, x := range xs {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func parseRules(v any, named bool) []rule {
	xs, _ := v.([]any)
	var out []rule
	for _, x := range xs {
		m, _ := x.(map[string]any)
		r := rule{
			operations:  stringList(m["operations"]),
			apiGroups:   stringList(m["apiGroups"]),
			apiVersions: stringList(m["apiVersions"]),
			resources:   stringList(m["resources"]),
		}
		r.scope, _ = m["scope"].(string)
		if named {
			r.resourceNames = stringList(m["resourceNames"])
		}
		out = append(out, r)
	}
	return out
}

func parseMatchResources(m map[string]any, policy bool) (*matchResources, error) {
	mr := &matchResources{policy: policy}
	if m == nil {
		return mr, nil
	}
	mr.rules = parseRules(m["resourceRules"], true)
	mr.exclude = parseRules(m["excludeResourceRules"], true)
	var err error
	if mr.namespaceSelector, err = parseSelector(m["namespaceSelector"]); err != nil {
		return nil, err
	}
	if mr.objectSelector, err = parseSelector(m["objectSelector"]); err != nil {
		return nil, err
	}
	mr.matchPolicy, _ = m["matchPolicy"].(string)
	return mr, nil
}
