package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/controllers/deployment"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
)

// TestRecordedRolloutsThroughCluster replays the rollouts recorded on the real control plane
// (testdata/controllers/rollout-*.json, recorded by testdata/controllers/record.sh) through a
// cluster: the same requests the script sent (the Deployment created, its image set, a scale or
// kubectl rollout undo, each Pending Pod's status patched Running and Ready), with the
// controllers running after each write and the kubelet stand-in leaving Pods Pending. After each
// step the cluster's Deployment, ReplicaSets and Pods must summarise as the recorded ones do:
// every ReplicaSet's replicas, revision and desired/max annotations (named by image, since the
// pod-template-hash differs), the Pods per ReplicaSet and phase, the Deployment's status counters
// and its conditions' types, statuses and reasons.
func TestRecordedRolloutsThroughCluster(t *testing.T) {
	files, err := filepath.Glob("../testdata/controllers/rollout-*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var rec struct {
				Steps []struct {
					What    string            `json:"what"`
					Objects []json.RawMessage `json:"objects"`
				} `json:"steps"`
			}
			require.NoError(t, json.Unmarshal(data, &rec))
			clock := cluster.NewFakeClock(time.Date(2026, 12, 2, 0, 52, 0, 0, time.UTC))
			c, err := cluster.New(cluster.Options{Kubelet: cluster.PodsPending, Clock: clock})
			require.NoError(t, err)
			const ns = "controllers-rollout"
			replayDo(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"}}`, 201)
			dpath := "/apis/apps/v1/namespaces/" + ns + "/deployments/web"
			for i, step := range rec.Steps {
				var recorded []map[string]any
				for _, raw := range step.Objects {
					o, err := codec.DecodeObject(raw)
					require.NoError(t, err)
					recorded = append(recorded, o)
				}
				clock.Step(time.Second)
				switch {
				case step.What == "create the Deployment":
					d := recorded[0]
					require.Equal(t, "Deployment", d["kind"])
					body, err := json.Marshal(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
						"metadata": map[string]any{"name": "web"}, "spec": d["spec"]})
					require.NoError(t, err)
					replayDo(t, c, "POST", "/apis/apps/v1/namespaces/"+ns+"/deployments", "", string(body), 201)
				case step.What == "mark the Pods ready":
					now := clock.Now().Format(time.RFC3339)
					for _, p := range replayList(t, c, "/api/v1/namespaces/"+ns+"/pods") {
						if p["status"].(map[string]any)["phase"] != "Pending" {
							continue
						}
						name := p["metadata"].(map[string]any)["name"].(string)
						replayDo(t, c, "PATCH", "/api/v1/namespaces/"+ns+"/pods/"+name+"/status", "application/merge-patch+json",
							`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"`+now+`"}]}}`, 200)
					}
				case strings.HasPrefix(step.What, "set image "):
					replayDo(t, c, "PATCH", dpath, "application/strategic-merge-patch+json",
						`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"`+strings.TrimPrefix(step.What, "set image ")+`"}]}}}}`, 200)
				case step.What == "scale to 5":
					replayDo(t, c, "PATCH", dpath+"/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`, 200)
				case step.What == "rollout undo":
					// kubectl rollout undo replaces the template (and the annotations) with the
					// previous revision's, as deployment.Rollback computes them.
					d := replayGet(t, c, dpath)
					undone, err := deployment.Rollback(d, replayList(t, c, "/apis/apps/v1/namespaces/"+ns+"/replicasets"), 0)
					require.NoError(t, err)
					patch, err := json.Marshal([]any{
						map[string]any{"op": "replace", "path": "/spec/template", "value": undone["spec"].(map[string]any)["template"]},
						map[string]any{"op": "replace", "path": "/metadata/annotations", "value": undone["metadata"].(map[string]any)["annotations"]}})
					require.NoError(t, err)
					replayDo(t, c, "PATCH", dpath, "application/json-patch+json", string(patch), 200)
				default:
					t.Fatalf("step %d: no replay for %q", i, step.What)
				}
				var ours []map[string]any
				ours = append(ours, replayGet(t, c, dpath))
				ours = append(ours, replayList(t, c, "/apis/apps/v1/namespaces/"+ns+"/replicasets")...)
				ours = append(ours, replayList(t, c, "/api/v1/namespaces/"+ns+"/pods")...)
				assert.Equal(t, replaySummary(recorded), replaySummary(ours), "step %d (%s)", i, step.What)
			}
		})
	}
}

func replayDo(t *testing.T, c *cluster.Cluster, method, path, contentType, body string, want int) registry.Response {
	t.Helper()
	resp, err := c.Do(context.Background(), registry.Request{Method: method, Path: path, ContentType: contentType, Body: []byte(body),
		User: cluster.Admin, UserAgent: "kubectl/v1.37.2 (linux/amd64) kubernetes/writepath"})
	require.NoError(t, err)
	require.Equal(t, want, resp.Code, "%s %s: %s", method, path, resp.Body)
	return resp
}

func replayGet(t *testing.T, c *cluster.Cluster, path string) map[string]any {
	t.Helper()
	return replayDo(t, c, "GET", path, "", "", 200).Object
}

func replayList(t *testing.T, c *cluster.Cluster, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, x := range replayGet(t, c, path)["items"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// replaySummary is what the replay compares, ReplicaSets named by their image.
func replaySummary(objs []map[string]any) []string {
	str := func(v any) string { s, _ := v.(string); return s }
	meta := func(o map[string]any) map[string]any { m, _ := o["metadata"].(map[string]any); return m }
	num := func(o map[string]any, keys ...string) int64 {
		var v any = o
		for _, k := range keys {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		n, _ := v.(int64)
		return n
	}
	image := func(rs map[string]any) string {
		tmpl, _ := rs["spec"].(map[string]any)["template"].(map[string]any)
		spec, _ := tmpl["spec"].(map[string]any)
		cs, _ := spec["containers"].([]any)
		if len(cs) == 0 {
			return "?"
		}
		return str(cs[0].(map[string]any)["image"])
	}
	byUID := map[string]string{}
	for _, o := range objs {
		if spec, _ := o["spec"].(map[string]any); spec["template"] != nil && spec["strategy"] == nil {
			byUID[str(meta(o)["uid"])] = image(o)
		}
	}
	var out []string
	pods := map[string]int{}
	for _, o := range objs {
		ann, _ := meta(o)["annotations"].(map[string]any)
		spec, _ := o["spec"].(map[string]any)
		switch {
		case spec["strategy"] != nil: // a Deployment
			out = append(out, fmt.Sprintf("deployment replicas=%d updated=%d ready=%d available=%d unavailable=%d observedGeneration=%d revision=%s",
				num(o, "status", "replicas"), num(o, "status", "updatedReplicas"), num(o, "status", "readyReplicas"), num(o, "status", "availableReplicas"),
				num(o, "status", "unavailableReplicas"), num(o, "status", "observedGeneration"), str(ann["deployment.kubernetes.io/revision"])))
			conds, _ := o["status"].(map[string]any)["conditions"].([]any)
			for _, x := range conds {
				m := x.(map[string]any)
				out = append(out, fmt.Sprintf("condition %s=%s %s", m["type"], m["status"], m["reason"]))
			}
		case spec["template"] != nil: // a ReplicaSet
			out = append(out, fmt.Sprintf("replicaset %s spec=%d status=%d ready=%d available=%d revision=%s desired=%s max=%s", image(o),
				num(o, "spec", "replicas"), num(o, "status", "replicas"), num(o, "status", "readyReplicas"), num(o, "status", "availableReplicas"),
				str(ann["deployment.kubernetes.io/revision"]), str(ann["deployment.kubernetes.io/desired-replicas"]), str(ann["deployment.kubernetes.io/max-replicas"])))
		default: // a Pod
			refs, _ := meta(o)["ownerReferences"].([]any)
			for _, r := range refs {
				pods[byUID[str(r.(map[string]any)["uid"])]+" "+str(o["status"].(map[string]any)["phase"])]++
			}
		}
	}
	for k, n := range pods {
		out = append(out, fmt.Sprintf("pods of %s: %d", k, n))
	}
	sort.Strings(out)
	return out
}
