package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/writepath/writepath/internal/gen/genio"
)

// The discovery documents: upstream/ holds the ones the Kubernetes repository ships for v1.37.2
// (api/discovery, every group version enabled); cluster/, when present, holds what a real
// kube-apiserver 1.37 with default flags serves (record-discovery.sh), which decides
// ServedByDefault. Without it, a version is taken to be served by default when it is GA.
const (
	upstreamDir = "upstream"
	clusterDir  = "cluster"
)

var gaVersion = regexp.MustCompile(`^v[0-9]+$`)

// scaleReplicas lists, per resource with a scale subresource, where the apiserver's scale storage
// (pkg/registry/{apps,core}/*/storage) reads and writes the scale: spec and status replicas, and
// the selector it formats into Scale.status.selector (a metav1.LabelSelector, or a map of labels
// for replicationcontrollers). The generator fails if discovery shows a scale it does not know.
var scaleReplicas = map[string]scaleDTO{
	"apps/deployments":        {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", SelectorFormat: "LabelSelector"},
	"apps/replicasets":        {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", SelectorFormat: "LabelSelector"},
	"apps/statefulsets":       {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", SelectorFormat: "LabelSelector"},
	"/replicationcontrollers": {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", SelectorFormat: "MatchLabels"},
}

type kindsDTO struct {
	// ServedSource says where ServedByDefault came from: "cluster" or "ga-rule".
	ServedSource string    `json:"servedSource"`
	Kinds        []kindDTO `json:"kinds"`
}

type kindDTO struct {
	Group           string   `json:"group"`
	Version         string   `json:"version"`
	Kind            string   `json:"kind"`
	Resource        string   `json:"resource,omitempty"`
	Singular        string   `json:"singular,omitempty"`
	Namespaced      bool     `json:"namespaced"`
	ServedByDefault bool     `json:"servedByDefault"`
	Verbs           []string `json:"verbs,omitempty"`
	ShortNames      []string `json:"shortNames,omitempty"`
	Categories      []string `json:"categories,omitempty"`
	// SubresourceOf names the resources whose subresource body this kind is ("deployments/scale").
	SubresourceOf []string         `json:"subresourceOf,omitempty"`
	Subresources  []subresourceDTO `json:"subresources,omitempty"`
	// SMDType is the structured-merge-diff type name, "" when no schema has the kind.
	SMDType string `json:"smdType,omitempty"`
	// GoType is the k8s.io Go type (package path and name) the patch metadata is reflected from.
	GoType string `json:"goType"`
	// PatchMeta is the index of GoType in the patch metadata's type table (filled later).
	PatchMeta int `json:"patchMeta"`

	goType reflect.Type
}

type subresourceDTO struct {
	Name    string    `json:"name"`
	Group   string    `json:"group,omitempty"`
	Version string    `json:"version,omitempty"`
	Kind    string    `json:"kind"`
	Verbs   []string  `json:"verbs,omitempty"`
	Scale   *scaleDTO `json:"scale,omitempty"`
}

type scaleDTO struct {
	SpecReplicasPath   string `json:"specReplicasPath"`
	StatusReplicasPath string `json:"statusReplicasPath"`
	LabelSelectorPath  string `json:"labelSelectorPath"`
	SelectorFormat     string `json:"selectorFormat"`
}

type kinds struct {
	list         []*kindDTO
	servedSource string
}

func (k *kinds) dto() kindsDTO {
	out := kindsDTO{ServedSource: k.servedSource}
	for _, kd := range k.list {
		out.Kinds = append(out.Kinds, *kd)
	}
	return out
}

// readResourceLists reads every APIResourceList (api__v1.json, apis__<group>__<version>.json) of dir.
func readResourceLists(dir string) ([]metav1.APIResourceList, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "api*__*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []metav1.APIResourceList
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var l metav1.APIResourceList
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if l.GroupVersion == "" {
			continue // a group document (apis__<group>.json), not a resource list
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no discovery documents", dir)
	}
	return out, nil
}

func buildKinds(discoveryDir string, smd *smdSchema) (*kinds, error) {
	scheme, err := genio.Scheme()
	if err != nil {
		return nil, err
	}
	lists, err := readResourceLists(filepath.Join(discoveryDir, upstreamDir))
	if err != nil {
		return nil, err
	}
	result := &kinds{servedSource: "ga-rule"}
	served := func(gv runtimeschema.GroupVersion) bool { return gaVersion.MatchString(gv.Version) }
	if _, err := os.Stat(filepath.Join(discoveryDir, clusterDir)); err == nil {
		clusterLists, err := readResourceLists(filepath.Join(discoveryDir, clusterDir))
		if err != nil {
			return nil, err
		}
		servedGVs := map[runtimeschema.GroupVersion]bool{}
		for _, l := range clusterLists {
			gv, err := runtimeschema.ParseGroupVersion(l.GroupVersion)
			if err != nil {
				return nil, err
			}
			servedGVs[gv] = true
			if err := sameResources(l, lists); err != nil {
				return nil, err
			}
		}
		served = func(gv runtimeschema.GroupVersion) bool { return servedGVs[gv] }
		result.servedSource = "cluster"
	}

	byGVK := map[runtimeschema.GroupVersionKind]*kindDTO{}
	add := func(gvk runtimeschema.GroupVersionKind) (*kindDTO, error) {
		if k, ok := byGVK[gvk]; ok {
			return k, nil
		}
		t, ok := scheme.AllKnownTypes()[gvk]
		if !ok {
			return nil, fmt.Errorf("%s: no Go type registered", gvk)
		}
		k := &kindDTO{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, goType: t, GoType: t.PkgPath() + "." + t.Name()}
		if name := openAPIName(t); smd.has(name) {
			k.SMDType = name
		}
		byGVK[gvk] = k
		result.list = append(result.list, k)
		return k, nil
	}
	// Top-level resources first, so that a kind both served on its own and as a subresource body
	// (Binding) takes its resource facts from the former.
	type sub struct {
		parent *kindDTO
		r      metav1.APIResource
		gv     runtimeschema.GroupVersion
	}
	var subs []sub
	for _, l := range lists {
		gv, err := runtimeschema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			k, err := add(gv.WithKind(r.Kind))
			if err != nil {
				return nil, err
			}
			if k.Resource != "" {
				return nil, fmt.Errorf("%s: served as both %s and %s", gv.WithKind(r.Kind), k.Resource, r.Name)
			}
			k.Resource, k.Singular, k.Namespaced = r.Name, r.SingularName, r.Namespaced
			k.ServedByDefault = served(gv)
			k.Verbs = sortedCopy(r.Verbs)
			k.ShortNames = append([]string(nil), r.ShortNames...)
			k.Categories = append([]string(nil), r.Categories...)
		}
	}
	for _, l := range lists {
		gv, _ := runtimeschema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			parentName, subName, ok := strings.Cut(r.Name, "/")
			if !ok {
				continue
			}
			parent := findResource(result.list, gv, parentName)
			if parent == nil {
				return nil, fmt.Errorf("%s: subresource %s of an unknown resource", gv, r.Name)
			}
			sd := subresourceDTO{Name: subName, Group: r.Group, Version: r.Version, Kind: r.Kind, Verbs: sortedCopy(r.Verbs)}
			if subName == "scale" {
				sc, ok := scaleReplicas[gv.Group+"/"+parentName]
				if !ok {
					return nil, fmt.Errorf("%s: scale subresource of %s has no replicas paths in scaleReplicas", gv, parentName)
				}
				sd.Scale = &sc
			}
			parent.Subresources = append(parent.Subresources, sd)
			subs = append(subs, sub{parent: parent, r: r, gv: gv})
		}
	}
	// Subresource bodies of their own kind (autoscaling/v1 Scale, policy/v1 Eviction, ...), but not
	// the connect options (PodExecOptions, ...) which are query parameters, not objects.
	for _, s := range subs {
		gvk := s.gv.WithKind(s.r.Kind)
		if s.r.Group != "" || s.r.Version != "" {
			gvk = runtimeschema.GroupVersionKind{Group: s.r.Group, Version: s.r.Version, Kind: s.r.Kind}
		}
		if strings.HasSuffix(gvk.Kind, "Options") || gvk == s.parent.gvk() {
			continue
		}
		k, err := add(gvk)
		if err != nil {
			return nil, err
		}
		k.SubresourceOf = append(k.SubresourceOf, s.parent.Resource+"/"+strings.SplitN(s.r.Name, "/", 2)[1])
		if k.Resource == "" {
			k.Namespaced = k.Namespaced || s.parent.Namespaced
			k.ServedByDefault = k.ServedByDefault || s.parent.ServedByDefault
		}
	}
	for _, k := range result.list {
		sort.Strings(k.SubresourceOf)
		sort.Slice(k.Subresources, func(i, j int) bool { return k.Subresources[i].Name < k.Subresources[j].Name })
	}
	sort.Slice(result.list, func(i, j int) bool {
		a, b := result.list[i], result.list[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	return result, nil
}

// sameResources checks that the cluster serves a group version exactly as the upstream fixture
// describes it (names, kinds, scope, subresource kinds, verbs), so that the upstream documents,
// which also cover versions off by default, can be trusted for the facts.
func sameResources(cluster metav1.APIResourceList, upstream []metav1.APIResourceList) error {
	type fact struct {
		name, kind, group, version, verbs string
		namespaced                        bool
	}
	facts := func(l metav1.APIResourceList) map[string]fact {
		m := map[string]fact{}
		for _, r := range l.APIResources {
			m[r.Name] = fact{r.Name, r.Kind, r.Group, r.Version, strings.Join(sortedCopy(r.Verbs), ","), r.Namespaced}
		}
		return m
	}
	for _, u := range upstream {
		if u.GroupVersion != cluster.GroupVersion {
			continue
		}
		want, got := facts(u), facts(cluster)
		for name, f := range got {
			if want[name] != f {
				return fmt.Errorf("%s: the cluster serves %+v, the upstream fixture says %+v", cluster.GroupVersion, f, want[name])
			}
		}
		for name := range want {
			if _, ok := got[name]; !ok {
				return fmt.Errorf("%s: the upstream fixture has %s, the cluster does not serve it", cluster.GroupVersion, name)
			}
		}
		return nil
	}
	return fmt.Errorf("%s: served by the cluster, absent from the upstream fixtures", cluster.GroupVersion)
}

func (k *kindDTO) gvk() runtimeschema.GroupVersionKind {
	return runtimeschema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

func findResource(list []*kindDTO, gv runtimeschema.GroupVersion, resource string) *kindDTO {
	for _, k := range list {
		if k.Group == gv.Group && k.Version == gv.Version && k.Resource == resource {
			return k
		}
	}
	return nil
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
