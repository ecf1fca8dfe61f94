package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

func topologyWorld(t *testing.T, extra ...map[string]any) *registry.Static {
	objs := objectsOf(t,
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`,
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"demo"}}`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","resourceVersion":"3","labels":{"topology.kubernetes.io/zone":"z1","topology.kubernetes.io/region":"r1","kubernetes.io/hostname":"n1"}}}`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"bare","resourceVersion":"4","labels":{"kubernetes.io/hostname":"bare"}}}`)
	w, err := registry.NewStatic(append(objs, extra...), registry.StaticOptions{})
	require.NoError(t, err)
	return w
}

func labelsOf(o map[string]any) map[string]any {
	md, _ := o["metadata"].(map[string]any)
	l, _ := md["labels"].(map[string]any)
	return l
}

// TestPodTopologyLabelsOnCreate: a Pod created on a Node gets its zone and region labels over
// its own; no Node, a Node without them, or no nodeName, none.
func TestPodTopologyLabelsOnCreate(t *testing.T) {
	for _, tc := range []struct {
		name, node string
		want       map[string]any
	}{
		{"labelled node", `"nodeName":"n1",`, map[string]any{"app": "a", "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1"}},
		{"bare node", `"nodeName":"bare",`, map[string]any{"app": "a", "topology.kubernetes.io/zone": "mine"}},
		{"missing node", `"nodeName":"gone",`, map[string]any{"app": "a", "topology.kubernetes.io/zone": "mine"}},
		{"unscheduled", ``, map[string]any{"app": "a", "topology.kubernetes.io/zone": "mine"}},
	} {
		w := topologyWorld(t)
		resp := certRequest(t, w, certAdmin, "POST", "/api/v1/namespaces/demo/pods?dryRun=All", "application/json",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"a","topology.kubernetes.io/zone":"mine"}},
			"spec":{`+tc.node+`"containers":[{"name":"c","image":"x"}]}}`)
		require.Equal(t, 201, resp.Code, "%s: %s", tc.name, resp.Body)
		assert.Equal(t, tc.want, labelsOf(resp.Object), tc.name)
	}
}

// TestPodTopologyLabelsOnBinding: a Binding to a Node gets its topology labels, and the binding
// REST copies the Binding's labels and annotations onto the Pod (the legacy init container
// annotations dropped); a Binding whose target kind is not "Node" gets no topology labels.
func TestPodTopologyLabelsOnBinding(t *testing.T) {
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "demo", "uid": "u-p", "resourceVersion": "7", "creationTimestamp": "2026-12-04T01:00:00Z",
			"labels":      map[string]any{"app": "a", "topology.kubernetes.io/region": "mine"},
			"annotations": map[string]any{"keep": "1", "pod.beta.kubernetes.io/init-containers": "[]"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x"}}}}
	for _, tc := range []struct {
		name, kind string
		labels     map[string]any
	}{
		{"to a Node", `"kind":"Node",`, map[string]any{"app": "a", "extra": "e", "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1"}},
		{"no kind", ``, map[string]any{"app": "a", "extra": "e", "topology.kubernetes.io/region": "mine"}},
	} {
		w := topologyWorld(t, pod)
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/pods/p/binding",
			ContentType: "application/json", User: certAdmin, Now: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC),
			Body: []byte(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","labels":{"extra":"e"},"annotations":{"scheduler":"s"}},"target":{` + tc.kind + `"name":"n1"}}`)})
		require.NoError(t, err)
		require.Equal(t, 201, resp.Code, "%s: %s", tc.name, resp.Body)
		require.Len(t, writes, 1, tc.name)
		assert.Equal(t, tc.labels, labelsOf(writes[0].Object), tc.name)
		md, _ := writes[0].Object["metadata"].(map[string]any)
		assert.Equal(t, map[string]any{"keep": "1", "scheduler": "s"}, md["annotations"], tc.name)
	}
}
