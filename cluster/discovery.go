package cluster

import (
	"context"
	"strings"

	"github.com/writepath/writepath/schema"
)

// Aggregated discovery (KEP-3352, apidiscovery.k8s.io/v2): /api and /apis answer one
// APIGroupDiscoveryList with every group, version and resource when Accept asks for it, as
// client-go and kubectl do first. The documents are built from the same served resources as the
// legacy ones; their shape is kube-apiserver 1.37's (responseKind group and version empty unless
// a subresource answers another kind, freshness Current, metadata without creationTimestamp).

type discoveryKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type discoverySubresource struct {
	Subresource  string        `json:"subresource"`
	ResponseKind discoveryKind `json:"responseKind"`
	Verbs        []string      `json:"verbs"`
}

type discoveryResource struct {
	Resource         string                 `json:"resource"`
	ResponseKind     discoveryKind          `json:"responseKind"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []discoverySubresource `json:"subresources,omitempty"`
}

type discoveryVersion struct {
	Version   string              `json:"version"`
	Resources []discoveryResource `json:"resources"`
	Freshness string              `json:"freshness"`
}

type discoveryGroupMeta struct {
	Name string `json:"name,omitempty"`
}

type discoveryGroup struct {
	Metadata discoveryGroupMeta `json:"metadata"`
	Versions []discoveryVersion `json:"versions"`
}

type discoveryList struct {
	Kind       string           `json:"kind"`
	APIVersion string           `json:"apiVersion"`
	Metadata   struct{}         `json:"metadata"`
	Items      []discoveryGroup `json:"items"`
}

// aggregatedDiscoveryList builds /api's (core) or /apis' (every other group) document, groups in
// the apiserver's order (groupOrder).
func (c *Cluster) aggregatedDiscoveryList(ctx context.Context, core bool) (discoveryList, error) {
	byGV, groupVersions, err := c.served(ctx)
	if err != nil {
		return discoveryList{}, err
	}
	groups := []string{""}
	if !core {
		groups = orderedGroups(groupVersions)
	}
	list := discoveryList{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2", Items: []discoveryGroup{}}
	for _, g := range groups {
		dg := discoveryGroup{Metadata: discoveryGroupMeta{Name: g}}
		for _, v := range groupVersions[g] {
			dv := discoveryVersion{Version: v, Resources: []discoveryResource{}, Freshness: "Current"}
			index := map[string]int{}
			for _, res := range byGV[schema.GroupVersion{Group: g, Version: v}] {
				parent, sub, isSub := strings.Cut(res.Name, "/")
				if !isSub {
					scope := "Cluster"
					if res.Namespaced {
						scope = "Namespaced"
					}
					kind := discoveryKind{Kind: res.Kind}
					if res.custom { // apiextensions' discovery names the group version
						kind = discoveryKind{Group: g, Version: v, Kind: res.Kind}
					}
					index[parent] = len(dv.Resources)
					dv.Resources = append(dv.Resources, discoveryResource{Resource: res.Name, ResponseKind: kind,
						Scope: scope, SingularResource: res.SingularName, Verbs: res.Verbs, ShortNames: res.ShortNames, Categories: res.Categories})
					continue
				}
				i, ok := index[parent]
				if !ok {
					continue
				}
				kind := discoveryKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
				if res.custom && kind.Group == "" {
					kind.Group, kind.Version = g, v
				}
				subs := append(dv.Resources[i].Subresources, discoverySubresource{Subresource: sub, ResponseKind: kind, Verbs: res.Verbs})
				if res.custom && len(subs) == 2 && subs[0].Subresource == "scale" {
					subs[0], subs[1] = subs[1], subs[0] // status, then scale, as apiextensions lists them
				}
				dv.Resources[i].Subresources = subs
			}
			dg.Versions = append(dg.Versions, dv)
		}
		if len(dg.Versions) > 0 {
			list.Items = append(list.Items, dg)
		}
	}
	return list, nil
}
