package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/controllers/deployment"
	"github.com/writepath/writepath/internal/codec"
)

// rolloutRecording is testdata/controllers/rollout-*.json: the states the real control plane settled
// in after each change a user (or the stand-in kubelet) made.
type rolloutRecording struct {
	Source string `json:"source"`
	Steps  []struct {
		What    string           `json:"what"`
		Objects []map[string]any `json:"objects"`
	} `json:"steps"`
}

// TestRecordedRollouts replays each recorded change through writepath's controllers, from
// the state before it, and compares the state they settle in with the real one: every
// ReplicaSet's desired and current replicas (ReplicaSets matched by template, since our
// pod-template-hash differs), the Pods per ReplicaSet, the Deployment's status counters and
// its conditions' types, statuses and reasons.
func TestRecordedRollouts(t *testing.T) {
	files, err := filepath.Glob(repoRoot + "/testdata/controllers/rollout-*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var rec rolloutRecording
		require.NoError(t, json.Unmarshal(data, &rec))
		for i := 1; i < len(rec.Steps); i++ {
			before, after := decodeAll(t, rec.Steps[i-1].Objects), decodeAll(t, rec.Steps[i].Objects)
			what := rec.Steps[i].What
			w, err := newRolloutWorld(before)
			require.NoError(t, err)
			w.now = latest(before).Add(time.Second)
			switch {
			case strings.HasPrefix(what, "mark the Pods ready"):
				for _, p := range w.pods {
					st, _ := p["status"].(map[string]any)
					if str(st["phase"]) == "Pending" {
						p["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": w.now.Format(time.RFC3339)}}}
					}
				}
			case what == "rollout undo":
				// What kubectl rollout undo wrote is what deployment.Rollback says.
				var d, real map[string]any
				var rss []map[string]any
				for _, o := range before {
					switch rolloutKind(o) {
					case "Deployment":
						d = o
					case "ReplicaSet":
						rss = append(rss, o)
					}
				}
				for _, o := range after {
					if rolloutKind(o) == "Deployment" {
						real = o
					}
				}
				undone, err := deployment.Rollback(d, rss, 0)
				require.NoError(t, err)
				assert.Equal(t, real["spec"].(map[string]any)["template"], undone["spec"].(map[string]any)["template"], "%s: rollout undo's template", filepath.Base(f))
				w.setSpec(undone)
			default: // a spec change: the Deployment as the user wrote it
				for _, o := range after {
					if rolloutKind(o) == "Deployment" {
						w.setSpec(o)
					}
				}
			}
			w.ready, w.noDeadline = "never", true
			w.run(&env{stdout: io.Discard, stderr: io.Discard}, 50)
			assert.Equal(t, summary(after), summary(w.objects()), "%s step %d (%s)", filepath.Base(f), i, what)
		}
	}
}

func decodeAll(t *testing.T, objs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, o := range objs {
		b, err := json.Marshal(o)
		require.NoError(t, err)
		m, err := codec.DecodeObject(b)
		require.NoError(t, err)
		out = append(out, m)
	}
	return out
}

func (w *rolloutWorld) objects() []map[string]any {
	out := []map[string]any{w.d}
	out = append(out, w.rss...)
	return append(out, w.pods...)
}

// latest is the latest time any of the objects records.
func latest(objs []map[string]any) time.Time {
	var max time.Time
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		case string:
			if tm, err := time.Parse(time.RFC3339, t); err == nil && tm.After(max) {
				max = tm
			}
		}
	}
	for _, o := range objs {
		walk(o)
	}
	return max
}

// summary is what the replay compares, with ReplicaSets named by their image.
func summary(objs []map[string]any) []string {
	image := map[string]string{}
	var out []string
	for _, o := range objs {
		if rolloutKind(o) == "ReplicaSet" {
			image[str(meta(o)["uid"])] = rsImage(o)
			image[str(meta(o)["name"])] = rsImage(o)
		}
	}
	pods := map[string]int{}
	for _, o := range objs {
		switch rolloutKind(o) {
		case "Deployment":
			st, _ := o["status"].(map[string]any)
			g := func(k string) int64 { n, _ := st[k].(int64); return n }
			out = append(out, fmt.Sprintf("deployment replicas=%d updated=%d ready=%d available=%d unavailable=%d observedGeneration=%d revision=%s",
				g("replicas"), g("updatedReplicas"), g("readyReplicas"), g("availableReplicas"), g("unavailableReplicas"), g("observedGeneration"),
				str(annotationsOf(o)["deployment.kubernetes.io/revision"])))
			conds, _ := st["conditions"].([]any)
			for _, c := range conds {
				m, _ := c.(map[string]any)
				out = append(out, fmt.Sprintf("condition %s=%s %s", m["type"], m["status"], m["reason"]))
			}
		case "ReplicaSet":
			a := annotationsOf(o)
			out = append(out, fmt.Sprintf("replicaset %s spec=%d status=%d ready=%d available=%d revision=%s desired=%s max=%s", rsImage(o),
				int64Of(o, "spec", "replicas"), int64Of(o, "status", "replicas"), int64Of(o, "status", "readyReplicas"), int64Of(o, "status", "availableReplicas"),
				str(a["deployment.kubernetes.io/revision"]), str(a["deployment.kubernetes.io/desired-replicas"]), str(a["deployment.kubernetes.io/max-replicas"])))
		case "Pod":
			refs, _ := meta(o)["ownerReferences"].([]any)
			for _, r := range refs {
				m, _ := r.(map[string]any)
				pods[image[str(m["uid"])]+" "+str(o["status"].(map[string]any)["phase"])]++
			}
		}
	}
	for k, n := range pods {
		out = append(out, fmt.Sprintf("pods of %s: %d", k, n))
	}
	sort.Strings(out)
	return out
}

func annotationsOf(o map[string]any) map[string]any {
	a, _ := meta(o)["annotations"].(map[string]any)
	return a
}

func rsImage(rs map[string]any) string {
	spec, _ := rs["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	ps, _ := tmpl["spec"].(map[string]any)
	cs, _ := ps["containers"].([]any)
	if len(cs) == 0 {
		return "?"
	}
	c, _ := cs[0].(map[string]any)
	return str(c["image"])
}
