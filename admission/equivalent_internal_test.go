package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
)

// TestBuiltinEquivalents checks the built-in EquivalentResourceRegistry
// against what kube-apiserver 1.37 registers with default flags.
func TestBuiltinEquivalents(t *testing.T) {
	c := &Chain{}
	hpa := func(v string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "autoscaling", Version: v, Resource: "horizontalpodautoscalers"}
	}
	events := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	newEvents := schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	tests := []struct {
		name string
		res  schema.GroupVersionResource
		sub  string
		want []schema.GroupVersionResource
		kind schema.GroupVersionKind
	}{
		{"hpa v2 first (version priority)", hpa("v1"), "", []schema.GroupVersionResource{hpa("v2"), hpa("v1")},
			schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}},
		{"hpa status", hpa("v2"), "status", []schema.GroupVersionResource{hpa("v2"), hpa("v1")},
			schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}},
		{"events cohabit", newEvents, "", []schema.GroupVersionResource{events, newEvents},
			schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}},
		{"deployments alone", deployments, "", []schema.GroupVersionResource{deployments},
			schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}},
		{"scale is autoscaling/v1 Scale", deployments, "scale", []schema.GroupVersionResource{deployments},
			schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}},
		{"eviction", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "eviction", []schema.GroupVersionResource{{Version: "v1", Resource: "pods"}},
			schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}},
		// Equivalence is by group and resource; only served versions have kinds.
		{"not served by default", schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceclaims"}, "",
			[]schema.GroupVersionResource{{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}}, schema.GroupVersionKind{}},
		{"unknown", schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, "", nil, schema.GroupVersionKind{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, c.equivalentResourcesFor(tt.res, tt.sub))
			assert.Equal(t, tt.kind, c.kindFor(tt.res, tt.sub))
		})
	}
}

// TestMatchRulesEquivalent: rules are tried against the request first, then
// against its equivalents, rules first; Exact never looks further.
func TestMatchRulesEquivalent(t *testing.T) {
	c := &Chain{}
	req := &Request{Operation: Create, Namespace: "ns", Name: "h",
		Kind:     schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		Resource: schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}}
	v1 := rule{operations: []string{"*"}, apiGroups: []string{"autoscaling"}, apiVersions: []string{"v1"}, resources: []string{"horizontalpodautoscalers"}}
	named := v1
	named.resourceNames = []string{"other"}
	v2 := v1
	v2.apiVersions = []string{"v2"}
	asV1 := matchedAs{resource: schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
		kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}}
	asReq := matchedAs{resource: req.Resource, kind: req.Kind}
	tests := []struct {
		name   string
		rules  []rule
		policy string
		ok     bool
		as     matchedAs
	}{
		{"equivalent", []rule{v1}, "Equivalent", true, asV1},
		{"absent is Equivalent", []rule{v1}, "", true, asV1},
		{"exact", []rule{v1}, "Exact", false, matchedAs{}},
		{"the request itself first", []rule{v1, v2}, "Equivalent", true, asReq},
		{"resourceNames still apply", []rule{named}, "Equivalent", false, matchedAs{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, as, err := c.matchRules(tt.rules, tt.policy, req)
			assert.NoError(t, err)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.as, as)
		})
	}
}
