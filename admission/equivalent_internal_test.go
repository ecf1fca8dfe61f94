package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBuiltinEquivalents checks the built-in EquivalentResourceRegistry
// against what kube-apiserver 1.37 registers with default flags.
func TestBuiltinEquivalents(t *testing.T) {
	c := &Chain{}
	hpa := func(v string) GroupVersionResource {
		return GroupVersionResource{Group: "autoscaling", Version: v, Resource: "horizontalpodautoscalers"}
	}
	events := GroupVersionResource{Version: "v1", Resource: "events"}
	newEvents := GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	deployments := GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	tests := []struct {
		name string
		res  GroupVersionResource
		sub  string
		want []GroupVersionResource
		kind GroupVersionKind
	}{
		{"hpa v2 first (version priority)", hpa("v1"), "", []GroupVersionResource{hpa("v2"), hpa("v1")},
			GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}},
		{"hpa status", hpa("v2"), "status", []GroupVersionResource{hpa("v2"), hpa("v1")},
			GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}},
		{"events cohabit", newEvents, "", []GroupVersionResource{events, newEvents},
			GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}},
		{"deployments alone", deployments, "", []GroupVersionResource{deployments},
			GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}},
		{"scale is autoscaling/v1 Scale", deployments, "scale", []GroupVersionResource{deployments},
			GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}},
		{"eviction", GroupVersionResource{Version: "v1", Resource: "pods"}, "eviction", []GroupVersionResource{{Version: "v1", Resource: "pods"}},
			GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}},
		// Equivalence is by group and resource; only served versions have kinds.
		{"not served by default", GroupVersionResource{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceclaims"}, "",
			[]GroupVersionResource{{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}}, GroupVersionKind{}},
		{"unknown", GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, "", nil, GroupVersionKind{}},
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
		Kind:     GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		Resource: GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}}
	v1 := rule{operations: []string{"*"}, apiGroups: []string{"autoscaling"}, apiVersions: []string{"v1"}, resources: []string{"horizontalpodautoscalers"}}
	named := v1
	named.resourceNames = []string{"other"}
	v2 := v1
	v2.apiVersions = []string{"v2"}
	asV1 := matchedAs{resource: GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
		kind: GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}}
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
