package gc_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/status"
)

// The recorded scenarios: testdata/gc/recorded/*.json, written by conformance/gc/record against
// a real kube-apiserver and kube-controller-manager (see testdata/gc/README.md). Each step is
// replayed from the recorded "before" state: the request through Delete or Update, then Run to
// the fixpoint, compared with the recorded response, final state, events, and every object's
// sequence of states.

type recordedStep struct {
	Request struct {
		Op     string         `json:"op"`
		Target gc.Ref         `json:"target"`
		Body   map[string]any `json:"body"`
	} `json:"request"`
	Time      string
	Before    []map[string]any
	Code      int
	Response  map[string]any
	After     []map[string]any
	Histories map[string][]map[string]any
}

func loadRecorded(t *testing.T, path string) (name string, steps []recordedStep) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	obj, err := codec.Options{MaxBytes: -1}.DecodeObject(data)
	require.NoError(t, err, path)
	raw, err := json.Marshal(obj["steps"])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &steps))
	// json.Unmarshal turned numbers into float64; take objects from the int-preserving decode.
	list, _ := obj["steps"].([]any)
	for i := range steps {
		st := list[i].(map[string]any)
		steps[i].Before = objects(st["before"])
		steps[i].After = objects(st["after"])
		steps[i].Response, _ = st["response"].(map[string]any)
		steps[i].Request.Body = nil
		if r, ok := st["request"].(map[string]any); ok {
			steps[i].Request.Body, _ = r["body"].(map[string]any)
		}
		steps[i].Histories = map[string][]map[string]any{}
		hs, _ := st["histories"].(map[string]any)
		for k, v := range hs {
			for _, x := range v.([]any) {
				m, _ := x.(map[string]any)
				steps[i].Histories[k] = append(steps[i].Histories[k], m)
			}
		}
	}
	return obj["name"].(string), steps
}

func objects(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, x := range l {
		out = append(out, x.(map[string]any))
	}
	return out
}

func key(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	if ns != "" {
		ns += "/"
	}
	return fmt.Sprintf("%s %s %s%s", o["apiVersion"], o["kind"], ns, md["name"])
}

func isEvent(o map[string]any) bool { return o["kind"] == "Event" }

// project keeps what deletion decides: existence, deletion, finalizers, owner references and,
// for namespaces, phase, spec.finalizers and conditions.
func project(o map[string]any) string {
	if o == nil {
		return "<absent>"
	}
	md, _ := o["metadata"].(map[string]any)
	p := map[string]any{"deleting": md["deletionTimestamp"] != nil, "finalizers": md["finalizers"]}
	if g, ok := md["deletionGracePeriodSeconds"]; ok {
		p["grace"] = g
	}
	var owners []string
	refs, _ := md["ownerReferences"].([]any)
	for _, r := range refs {
		m := r.(map[string]any)
		owners = append(owners, fmt.Sprintf("%s/%s/%s block=%v controller=%v", m["kind"], m["name"], m["uid"], m["blockOwnerDeletion"], m["controller"]))
	}
	p["owners"] = owners
	if o["kind"] == "Namespace" {
		st, _ := o["status"].(map[string]any)
		spec, _ := o["spec"].(map[string]any)
		p["phase"], p["spec.finalizers"] = st["phase"], spec["finalizers"]
		var conds []string
		cl, _ := st["conditions"].([]any)
		for _, c := range cl {
			m := c.(map[string]any)
			conds = append(conds, fmt.Sprintf("%s=%s %s: %s", m["type"], m["status"], m["reason"], m["message"]))
		}
		p["conditions"] = conds
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func dedupe(states []string) []string {
	var out []string
	for _, s := range states {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// mergePatch is RFC 7386 for the metadata patches the scenarios send.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, _ := target.(map[string]any)
	out := map[string]any{}
	for k, v := range tm {
		out[k] = v
	}
	for k, v := range pm {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

func deleteOptions(body map[string]any) gc.DeleteOptions {
	var o gc.DeleteOptions
	if body == nil {
		return o
	}
	if p, ok := body["propagationPolicy"].(string); ok {
		pp := gc.Propagation(p)
		o.PropagationPolicy = &pp
	}
	if b, ok := body["orphanDependents"].(bool); ok {
		o.OrphanDependents = &b
	}
	if g, ok := body["gracePeriodSeconds"].(int64); ok {
		o.GracePeriodSeconds = &g
	}
	if d, ok := body["dryRun"].([]any); ok {
		for _, x := range d {
			o.DryRun = append(o.DryRun, x.(string))
		}
	}
	if pc, ok := body["preconditions"].(map[string]any); ok {
		o.Preconditions = &gc.Preconditions{}
		if u, ok := pc["uid"].(string); ok {
			o.Preconditions.UID = &u
		}
		if r, ok := pc["resourceVersion"].(string); ok {
			o.Preconditions.ResourceVersion = &r
		}
	}
	return o
}

func findObject(objs []map[string]any, t gc.Ref) int {
	for i, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		if o["kind"] == t.Kind && o["apiVersion"] == t.APIVersion && md["name"] == t.Name && (t.Namespace == "" || md["namespace"] == t.Namespace) {
			return i
		}
	}
	return -1
}

func TestRecordedScenarios(t *testing.T) {
	files, err := filepath.Glob("../testdata/gc/recorded/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	steps, agree := 0, 0
	for _, f := range files {
		name, recorded := loadRecorded(t, f)
		for i, st := range recorded {
			steps++
			ok := t.Run(fmt.Sprintf("%s/%d-%s", name, i, st.Request.Op), func(t *testing.T) { replay(t, st) })
			if ok {
				agree++
			}
		}
	}
	t.Logf("recorded steps: %d, agreeing: %d", steps, agree)
}

func replay(t *testing.T, st recordedStep) {
	now, err := time.Parse(time.RFC3339, st.Time)
	require.NoError(t, err)
	var snapshot []gc.Object
	for _, o := range st.Before {
		if !isEvent(o) {
			snapshot = append(snapshot, o)
		}
	}
	history := map[string][]string{}
	for _, o := range snapshot {
		history[key(o)] = []string{project(o)}
	}
	req := st.Request
	var next, written gc.Object
	removed := false
	idx := findObject(snapshot, req.Target)
	var reqErr error
	switch req.Op {
	case "create":
		body := req.Body
		existing := gc.Object(nil)
		if md, ok := body["metadata"].(map[string]any); ok {
			if i := findObject(snapshot, gc.Ref{APIVersion: fmt.Sprint(body["apiVersion"]), Kind: fmt.Sprint(body["kind"]), Namespace: fmt.Sprint(md["namespace"]), Name: fmt.Sprint(md["name"])}); i >= 0 {
				existing = snapshot[i]
			}
			if i := findObject(snapshot, gc.Ref{APIVersion: "v1", Kind: "Namespace", Name: fmt.Sprint(md["namespace"])}); i >= 0 {
				err := gc.CheckCreate(body, existing, snapshot[i], nil)
				if st.Code != 201 {
					var se *status.Error
					require.True(t, errors.As(err, &se), "create answered %d, CheckCreate %v", st.Code, err)
					assert.Equal(t, st.Code, se.StatusCode())
					assert.Equal(t, st.Response["message"], se.Message)
					return
				}
				require.NoError(t, err, "the create succeeded")
			}
		}
		next = st.Response
		idx = len(snapshot)
		snapshot = append(snapshot, next)
		history[key(next)] = nil
	case "delete":
		target := gc.Object(nil)
		if idx >= 0 {
			target = snapshot[idx]
		} else if st.Code != 404 {
			// An object outside the scenario (the "default" namespace): only its identity matters.
			target = gc.Object{"apiVersion": req.Target.APIVersion, "kind": req.Target.Kind,
				"metadata": map[string]any{"name": req.Target.Name, "uid": "outside-the-scenario"}}
		} else {
			return
		}
		opts := deleteOptions(req.Body)
		o := opts
		o.Now = now
		res, err := gc.Delete(target, o)
		if len(opts.DryRun) > 0 && err == nil {
			// Nothing is stored: compare the answer only.
			assert.Equal(t, st.Code, res.Code, "status code")
			if st.Response["kind"] == "Status" {
				assert.Equal(t, st.Response, res.Response, "response Status")
			} else {
				assert.Equal(t, project(st.Response), project(res.Response), "response object")
			}
			assert.False(t, res.Changed)
			idx = -1
		}
		reqErr = err
		if err == nil && idx >= 0 {
			assert.Equal(t, st.Code, res.Code, "status code")
			if st.Response["kind"] == "Status" {
				assert.Equal(t, st.Response, res.Response, "response Status")
			} else {
				assert.Equal(t, project(st.Response), project(res.Response), "response object")
			}
			next, removed, written = res.Object, res.Removed, res.Written
		}
	case "patch":
		require.GreaterOrEqual(t, idx, 0)
		patched := mergePatch(snapshot[idx], req.Body).(map[string]any)
		res, err := gc.Update(snapshot[idx], patched, nil)
		reqErr = err
		if err == nil {
			assert.Equal(t, 200, st.Code, "status code")
			next, removed = res.Object, res.Removed
		}
	}
	if reqErr != nil {
		var se *status.Error
		require.True(t, errors.As(reqErr, &se), "error %v is a status error", reqErr)
		assert.Equal(t, st.Code, se.StatusCode(), "status code of %v", reqErr)
		assert.Equal(t, st.Response["message"], se.Message, "error message")
		return
	}
	if idx >= 0 && idx < len(snapshot) && req.Op != "create" {
		k := key(snapshot[idx])
		if removed {
			if written != nil {
				history[k] = append(history[k], project(written))
			}
			snapshot = append(snapshot[:idx:idx], snapshot[idx+1:]...)
			history[k] = append(history[k], project(nil))
		} else if next != nil {
			snapshot = append(append(snapshot[:idx:idx], next), snapshot[idx+1:]...)
			history[k] = append(history[k], project(next))
		}
	} else if req.Op == "create" {
		history[key(next)] = append(history[key(next)], project(next))
	}
	res, err := gc.Run(snapshot, gc.Options{Now: now})
	require.NoError(t, err)
	require.True(t, res.Converged)
	var events []string
	existed := map[string]bool{}
	for _, o := range st.Before {
		md, _ := o["metadata"].(map[string]any)
		if u, ok := md["uid"].(string); ok {
			existed[u] = true
		}
	}
	for _, round := range res.Rounds {
		for _, a := range round {
			if a.Type == gc.ActionEvent {
				if existed[a.Event.InvolvedObject.UID] {
					// The collector recorded it when the object was added, before this step.
					continue
				}
				events = append(events, fmt.Sprintf("%s %s %s: %s", a.Event.InvolvedObject.Name, a.Event.Type, a.Event.Reason, a.Event.Message))
				continue
			}
			k := fmt.Sprintf("%s %s %s", a.Target.APIVersion, a.Target.Kind, a.Target.Name)
			if a.Target.Namespace != "" {
				k = fmt.Sprintf("%s %s %s/%s", a.Target.APIVersion, a.Target.Kind, a.Target.Namespace, a.Target.Name)
			}
			if w := a.Written(); w != nil {
				history[k] = append(history[k], project(w))
			}
			history[k] = append(history[k], project(a.Object))
		}
	}
	// Final state.
	want, got := map[string]string{}, map[string]string{}
	for _, o := range st.After {
		if !isEvent(o) {
			want[key(o)] = project(o)
		}
	}
	for _, o := range res.Objects {
		got[key(o)] = project(o)
	}
	assert.Equal(t, want, got, "final state")
	// Events the garbage collector recorded during the step.
	var wantEvents []string
	seen := map[string]bool{}
	for _, o := range st.Before {
		if isEvent(o) {
			seen[key(o)] = true
		}
	}
	for _, o := range st.After {
		src, _ := o["source"].(map[string]any)
		if !isEvent(o) || seen[key(o)] || src["component"] != "garbage-collector-controller" {
			continue
		}
		io, _ := o["involvedObject"].(map[string]any)
		wantEvents = append(wantEvents, fmt.Sprintf("%s %s %s: %s", io["name"], o["type"], o["reason"], o["message"]))
	}
	sort.Strings(wantEvents)
	sort.Strings(events)
	assert.Equal(t, wantEvents, events, "garbage collector events")
	// Every object's successive states.
	for k, recorded := range st.Histories {
		if strings.Contains(k, " Event ") {
			continue
		}
		var w []string
		if len(history[k]) > 0 {
			w = append(w, history[k][0])
		}
		for _, o := range recorded {
			w = append(w, project(o))
		}
		assert.Equal(t, dedupe(w), dedupe(history[k]), "states of %s", k)
	}
	_ = reflect.DeepEqual
}
