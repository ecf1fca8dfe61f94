package resourcequota

import (
	"fmt"
	"sort"
	"time"

	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/schema"
)

// Operation is the admission operation a request is (admission.Attributes.GetOperation).
type Operation string

// The operations the plugin admits (it is registered for create and update only).
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
)

// ScopeSelector is one corev1.ScopedResourceSelectorRequirement: a quota's spec.scopes entry
// (operator Exists) or a spec.scopeSelector.matchExpressions item.
type ScopeSelector struct {
	ScopeName string
	Operator  string
	Values    []string
}

// evaluator is quota.Evaluator for one group resource.
type evaluator struct {
	gr schema.GroupVersionResource // Version unused
	// matching is MatchingResources.
	matching func(names []string) []string
	// scope is the MatchesScopeFunc; nil is generic.MatchesNoScopeFunc (matches no scope).
	scope func(sel ScopeSelector, obj map[string]any) (bool, error)
	// usage is Usage.
	usage func(obj map[string]any, now time.Time) (ResourceList, error)
	// constraints is Constraints; nil accepts everything.
	constraints func(required []string, obj map[string]any) error
	// handles is Handles.
	handles func(op Operation, subresource string, obj, old map[string]any) bool
}

func (e *evaluator) matchesScope(sel ScopeSelector, obj map[string]any) (bool, error) {
	if e.scope == nil {
		return false, nil
	}
	return e.scope(sel, obj)
}

// matchingScopes is MatchingScopes: the selectors obj matches (none without a scope function).
func (e *evaluator) matchingScopes(obj map[string]any, sels []ScopeSelector) ([]ScopeSelector, error) {
	if e.scope == nil {
		return nil, nil
	}
	var out []ScopeSelector
	for _, s := range sels {
		ok, err := e.scope(s, obj)
		if err != nil {
			return nil, fmt.Errorf("error on matching scope %v: %v", s.goString(), err)
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// goString is %v of the corev1 struct: {ScopeName Operator [values]}.
func (s ScopeSelector) goString() string {
	return fmt.Sprintf("{%s %s %v}", s.ScopeName, s.Operator, s.Values)
}

// matches is generic.Matches: the quota's status.hard names a resource the evaluator tracks
// and obj matches every scope of the quota.
func (e *evaluator) matches(q map[string]any, obj map[string]any) (bool, error) {
	hard := readList(statusOf(q)["hard"])
	matchResource := len(e.matching(hard.names())) > 0
	matchScope := true
	for _, s := range quotaScopes(q) {
		ok, err := e.matchesScope(s, obj)
		if err != nil {
			return false, err
		}
		matchScope = matchScope && ok
	}
	return matchResource && matchScope, nil
}

// objectCountName is generic.ObjectCountQuotaResourceNameFor: count/<resource>[.<group>].
func objectCountName(group, resource string) string {
	if group == "" {
		return "count/" + resource
	}
	return "count/" + resource + "." + group
}

// ignored are the resources quota never counts (pkg/quota/v1/install ignoredResources).
var ignored = map[[2]string]bool{
	{"", "bindings"}: true, {"", "componentstatuses"}: true,
	{"authentication.k8s.io", "tokenreviews"}: true, {"authentication.k8s.io", "selfsubjectreviews"}: true,
	{"authorization.k8s.io", "subjectaccessreviews"}: true, {"authorization.k8s.io", "selfsubjectaccessreviews"}: true,
	{"authorization.k8s.io", "localsubjectaccessreviews"}: true, {"authorization.k8s.io", "selfsubjectrulesreviews"}: true,
	{"", "events"}: true, {"events.k8s.io", "events"}: true,
}

// Ignored reports whether quota ignores resource group/resource (the review kinds, bindings,
// componentstatuses, Events).
func Ignored(group, resource string) bool { return ignored[[2]string{group, resource}] }

// legacyAliases are the object counts with an alias (core registry.go legacyObjectCountAliases).
var legacyAliases = map[string]string{
	"configmaps": "configmaps", "resourcequotas": "resourcequotas",
	"replicationcontrollers": "replicationcontrollers", "secrets": "secrets",
}

// objectCount is generic.NewObjectCountEvaluator.
func objectCount(group, resource, alias string) *evaluator {
	names := []string{objectCountName(group, resource)}
	if alias != "" {
		names = append(names, alias)
	}
	return &evaluator{
		gr:       schema.GroupVersionResource{Group: group, Resource: resource},
		matching: func(in []string) []string { return intersection(in, names) },
		usage: func(map[string]any, time.Time) (ResourceList, error) {
			out := ResourceList{}
			for _, n := range names {
				out[n] = one
			}
			return out, nil
		},
		handles: func(op Operation, sub string, _, _ map[string]any) bool { return sub == "" && op == Create },
	}
}

// evaluatorFor is the evaluator of group/resource: the registered ones (pods, services,
// persistentvolumeclaims, resourceclaims, the legacy aliased counts), else an object count.
// nil for an ignored resource.
func evaluatorFor(group, resource string) *evaluator {
	if Ignored(group, resource) {
		return nil
	}
	switch group + "/" + resource {
	case "/pods":
		return podEvaluator
	case "/services":
		return serviceEvaluator
	case "/persistentvolumeclaims":
		return pvcEvaluator
	case "resource.k8s.io/resourceclaims":
		return claimEvaluator
	}
	if group == "" {
		if alias, ok := legacyAliases[resource]; ok {
			return objectCount("", resource, alias)
		}
	}
	return objectCount(group, resource, "")
}

// MatchingResources is the evaluator of group/resource's MatchingResources: the names among
// names a quota tracks for that resource, sorted.
func MatchingResources(group, resource string, names []string) []string {
	e := evaluatorFor(group, resource)
	if e == nil {
		return nil
	}
	out := e.matching(names)
	sort.Strings(out)
	return out
}

// Usage is the usage the evaluator of group/resource measures for obj at now (pods stuck
// terminating past their grace period are not charged compute resources). Objects of a
// resource without its own evaluator count 1 for count/<resource>[.<group>]. obj is not
// modified.
func Usage(group, resource string, obj map[string]any, now time.Time) (ResourceList, error) {
	e := evaluatorFor(group, resource)
	if e == nil {
		return ResourceList{}, nil
	}
	return e.usage(obj, now)
}

// --- services ---

var serviceResources = []string{"count/services", "services", "services.nodeports", "services.loadbalancers"}

var serviceEvaluator = &evaluator{
	gr:       schema.GroupVersionResource{Resource: "services"},
	matching: func(in []string) []string { return intersection(in, serviceResources) },
	usage: func(svc map[string]any, _ time.Time) (ResourceList, error) {
		spec, _ := svc["spec"].(map[string]any)
		ports, _ := spec["ports"].([]any)
		out := ResourceList{"count/services": one, "services": one, "services.loadbalancers": zero, "services.nodeports": zero}
		switch spec["type"] {
		case "NodePort":
			out["services.nodeports"] = intQuantity(int64(len(ports)))
		case "LoadBalancer":
			if alloc, ok := spec["allocateLoadBalancerNodePorts"].(bool); ok && !alloc {
				n := int64(0)
				for _, p := range ports {
					pm, _ := p.(map[string]any)
					if v, ok := pm["nodePort"].(int64); ok && v != 0 {
						n++
					} else if f, ok := pm["nodePort"].(float64); ok && f != 0 {
						n++
					}
				}
				out["services.nodeports"] = intQuantity(n)
			} else {
				out["services.nodeports"] = intQuantity(int64(len(ports)))
			}
			out["services.loadbalancers"] = one
		}
		return out, nil
	},
	handles: func(op Operation, sub string, _, _ map[string]any) bool {
		return sub == "" && (op == Create || op == Update)
	},
}

func intQuantity(n int64) quantity.Quantity { return quantity.FromInt64(n, quantity.DecimalSI) }
