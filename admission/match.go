package admission

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/schema"
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

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

func exactOrWildcard(items []string, s string) bool {
	for _, it := range items {
		if it == "*" || it == s {
			return true
		}
	}
	return false
}

// matchesAt is the webhook rule matcher (rules.Matcher) for req with its
// resource read as res (the request's own, or an equivalent one).
func (r rule) matchesAt(req *Request, res schema.GroupVersionResource) bool {
	switch r.scope {
	case "", "*":
	case "Namespaced":
		if res == namespacesGVR || req.Namespace == "" {
			return false
		}
	case "Cluster":
		if res != namespacesGVR && req.Namespace != "" {
			return false
		}
	default:
		return false
	}
	if !exactOrWildcard(r.operations, string(req.Operation)) || !exactOrWildcard(r.apiGroups, res.Group) ||
		!exactOrWildcard(r.apiVersions, res.Version) {
		return false
	}
	for _, rs := range r.resources {
		name, sub, _ := strings.Cut(rs, "/")
		if (name == "*" || name == res.Resource) && (sub == "*" || sub == req.SubResource) {
			return true
		}
	}
	return false
}

// namesMatch is a NamedRuleWithOperations' resourceNames check.
func (r rule) namesMatch(name string) bool {
	if len(r.resourceNames) == 0 {
		return true
	}
	for _, n := range r.resourceNames {
		if n == name {
			return true
		}
	}
	return false
}

// matchedAs is the resource and kind a webhook or policy matched a request
// as: the request's own, or, under matchPolicy Equivalent, an equivalent
// resource (another version or group of the same stored resource) and the kind
// served there, to which the objects are converted.
type matchedAs struct {
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

func (m matchedAs) equivalent(req *Request) bool {
	return m.kind != req.Kind || m.resource != req.Resource
}

// equivalentPolicy reports whether a matchPolicy matches equivalent
// resources: the API defaults matchPolicy to Equivalent (webhooks and
// MatchResources alike), so an absent one is Equivalent.
func equivalentPolicy(matchPolicy string) bool {
	return matchPolicy == "" || matchPolicy == "Equivalent"
}

// unknownKindError is the matchers' error for an equivalent resource whose
// kind the apiserver does not know.
func unknownKindError(res schema.GroupVersionResource) error {
	return fmt.Errorf("unable to convert to %s/%s, Resource=%s: unknown kind", res.Group, res.Version, res.Resource)
}

// matchRules is the policy matcher's matchesResourceRules: the first rule
// matching req itself, else (matchPolicy Equivalent) the first rule matching
// one of its equivalent resources, rules first.
func (c *Chain) matchRules(rs []rule, matchPolicy string, req *Request) (bool, matchedAs, error) {
	for _, r := range rs {
		if r.matchesAt(req, req.Resource) && r.namesMatch(req.Name) {
			return true, matchedAs{resource: req.Resource, kind: req.Kind}, nil
		}
	}
	if !equivalentPolicy(matchPolicy) {
		return false, matchedAs{}, nil
	}
	var eqs []schema.GroupVersionResource
	for _, r := range rs {
		if eqs == nil {
			if eqs = c.equivalentResourcesFor(req.Resource, req.SubResource); len(eqs) < 2 {
				return false, matchedAs{}, nil
			}
		}
		for _, eq := range eqs {
			if eq == req.Resource || !r.matchesAt(req, eq) {
				continue
			}
			kind := c.kindFor(eq, req.SubResource)
			if kind == (schema.GroupVersionKind{}) {
				return false, matchedAs{}, unknownKindError(eq)
			}
			if r.namesMatch(req.Name) {
				return true, matchedAs{resource: eq, kind: kind}, nil
			}
		}
	}
	return false, matchedAs{}, nil
}

// webhookMatch is ShouldCallHook's rule matching: the first rule matching req,
// else (matchPolicy Equivalent) the first rule matching an equivalent
// resource, with the kind served there.
func (c *Chain) webhookMatch(w *webhook, req *Request) (bool, matchedAs, error) {
	for _, r := range w.match.rules {
		if r.matchesAt(req, req.Resource) {
			return true, matchedAs{resource: req.Resource, kind: req.Kind}, nil
		}
	}
	if !equivalentPolicy(w.match.matchPolicy) || len(w.match.rules) == 0 {
		return false, matchedAs{}, nil
	}
	eqs := c.equivalentResourcesFor(req.Resource, req.SubResource)
	for _, r := range w.match.rules {
		for _, eq := range eqs {
			if eq == req.Resource || !r.matchesAt(req, eq) {
				continue
			}
			kind := c.kindFor(eq, req.SubResource)
			if kind == (schema.GroupVersionKind{}) {
				return false, matchedAs{}, status.InternalError(unknownKindError(eq))
			}
			return true, matchedAs{resource: eq, kind: kind}, nil
		}
	}
	return false, matchedAs{}, nil
}

// matches reports whether m selects req, as the policy matcher decides it.
func (m *matchResources) matches(req *Request, c *Chain) (bool, error) {
	ok, _, err := m.matchesAs(req, c)
	return ok, err
}

// matchesAs is the policy matcher's Matches: whether m selects req, and the
// resource and kind it matched as.
func (m *matchResources) matchesAs(req *Request, c *Chain) (bool, matchedAs, error) {
	nsOK, nsErr := m.matchNamespace(req, c)
	if !nsOK && nsErr == nil {
		return false, matchedAs{}, nil
	}
	objOK := m.objectSelector.empty() || labelsMatch(m.objectSelector, req.Object) || labelsMatch(m.objectSelector, req.OldObject)
	if !objOK {
		return false, matchedAs{}, nil
	}
	if excluded, _, err := c.matchRules(m.exclude, m.matchPolicy, req); excluded || err != nil {
		return false, matchedAs{}, err
	}
	as := matchedAs{resource: req.Resource, kind: req.Kind}
	if !(m.policy && len(m.rules) == 0) {
		ok, a, err := c.matchRules(m.rules, m.matchPolicy, req)
		if err != nil {
			return false, matchedAs{}, err
		}
		if !ok {
			return false, matchedAs{}, nil
		}
		as = a
	}
	if nsErr != nil {
		return false, matchedAs{}, nsErr
	}
	return true, as, nil
}

func labelsMatch(s *selector, obj map[string]any) bool {
	if obj == nil {
		return false
	}
	return s.matches(labels.Of(obj))
}

func labelsOf(obj map[string]any) map[string]string { return labels.Of(obj) }

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
		ns, ok := c.lookup.Namespace(req.Name)
		if !ok {
			return nil, status.NotFound(status.GroupResource{Resource: "namespaces"}, req.Name)
		}
		return labelsOf(ns), nil
	}
	ns, ok := c.lookup.Namespace(req.Namespace)
	if !ok {
		return nil, status.NotFound(status.GroupResource{Resource: "namespaces"}, req.Namespace)
	}
	return labelsOf(ns), nil
}

// selector is a parsed metav1.LabelSelector; a nil *selector (no selector in the
// configuration) selects everything, as the defaulted {} does.
type selector struct{ sel labels.Selector }

func (s *selector) empty() bool { return s == nil || s.sel.Empty() }

func (s *selector) matches(ls map[string]string) bool { return s == nil || s.sel.Matches(ls) }

// parseSelector reads a metav1.LabelSelector as LabelSelectorAsSelector does.
func parseSelector(v any) (*selector, error) {
	if v == nil {
		return nil, nil
	}
	sel, err := labels.FromLabelSelector(v)
	if err != nil {
		return nil, err
	}
	return &selector{sel: sel}, nil
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
