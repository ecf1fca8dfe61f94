package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/controllers/deployment"
	"github.com/writepath/writepath/controllers/replicaset"
	"github.com/writepath/writepath/internal/value"
)

// rolloutStart is the simulated clock's start when the Deployment has no
// creationTimestamp: fixed, so that output is the same on every run.
var rolloutStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func runRollout(e *env, args []string) int {
	if len(args) > 0 && args[0] == "undo" {
		return runRolloutUndo(e, args[1:])
	}
	var files fileList
	f := e.flags("rollout -f DEPLOYMENT-AND-REPLICASETS [-n NAMESPACE] [--to NEW] [--ready now|never|step] [--max-steps N]",
		`Print a rollout as kube-controller-manager 1.37's Deployment and ReplicaSet controllers drive
it, step by step: which ReplicaSet is scaled to what and why (surge, unavailability,
proportional scaling), the Pods created and deleted, and the Deployment's status and
conditions after each step.

The file holds the stored Deployment and, optionally, its ReplicaSets and Pods (kubectl get
deploy,rs,pods -o yaml). --to gives the Deployment's next spec (a new template, a scale): the
rollout starts from it. A stand-in kubelet runs the Pods: --ready now makes new Pods Running
and Ready at once, never leaves them Pending, step makes them Ready one step after they are
created. Each step the clock moves on by max(1s, minReadySeconds). The run stops when the
controllers make no more writes, or after --max-steps.`,
		`  # Roll a Deployment to a new image
  writepath rollout -f testdata/examples/rollout.yaml --to testdata/examples/rollout-new-image.yaml --ready step

  # The objects where it settles, as kubectl get -o name lists them
  writepath rollout -f testdata/examples/rollout.yaml --to testdata/examples/rollout-new-image.yaml -o name

  # What `+"`kubectl rollout undo`"+` writes
  writepath rollout undo -f testdata/examples/rollout-history.yaml`)
	f.Var(&files, "f", "`FILE` with the Deployment and its ReplicaSets and Pods (repeatable; - for stdin)")
	to := f.String("to", "", "`FILE` with the Deployment's next version (its spec replaces the stored one)")
	ready := f.String("ready", "now", "when new Pods become Ready: `now|never|step`")
	maxSteps := f.Int("max-steps", 50, "stop after `N` steps")
	var o output
	f.Var(&o, "o", "output `FORMAT`: yaml, json, name, jsonpath=TEMPLATE, go-template=TEMPLATE: the objects where the rollout stops (the Deployment with its status, its ReplicaSets and Pods) as a List, instead of the steps")
	ns := f.namespace("the `NAMESPACE` of the Deployment: objects of other namespaces are left out, those without one are in it (default: the Deployment's)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	switch *ready {
	case "now", "never", "step":
	default:
		return e.fail(usagef("--ready must be now, never or step, not %q", *ready))
	}
	if len(files) == 0 {
		return e.fail(usagef("no input: give the Deployment with -f FILE (or -f - for stdin)"))
	}
	objs, err := e.readObjects(files)
	if err == nil && *ns != "" {
		objs, err = selectNamespace(objs, *ns)
	}
	if err != nil {
		return e.fail(err)
	}
	w, err := newRolloutWorld(objs)
	if err != nil {
		return e.fail(err)
	}
	if *to != "" {
		next, err := e.readObjects([]string{*to})
		if err != nil {
			return e.fail(err)
		}
		if len(next) == 0 || rolloutKind(next[0]) != "Deployment" {
			return e.fail(&inputError{err: errors.New("--to: the file must hold a Deployment")})
		}
		w.setSpec(next[0])
	}
	w.ready = *ready
	if o == "" {
		w.run(e, *maxSteps) // an error is a line of the report
		return exitOK
	}
	quiet := *e
	quiet.stdout = io.Discard
	if err := w.run(&quiet, *maxSteps); err != nil {
		return e.fail(err)
	}
	items := []any{w.d}
	for _, rs := range w.rss {
		items = append(items, rs)
	}
	for _, p := range w.pods {
		items = append(items, p)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
	if err := e.printValue(o, list); err != nil {
		return e.fail(err)
	}
	return exitOK
}

func rolloutKind(o map[string]any) string { k, _ := o["kind"].(string); return k }

// rolloutWorld is a tiny store: one Deployment, its ReplicaSets and Pods, a clock.
type rolloutWorld struct {
	d       map[string]any
	rss     []map[string]any
	pods    []map[string]any
	exp     map[string]*replicaset.Expectations
	now     time.Time
	ready   string
	seq     int
	created map[string]int // pod name -> step it was created at
	// noDeadline stops at a fixpoint instead of waiting for the progress deadline.
	noDeadline bool
}

func newRolloutWorld(objs []map[string]any) (*rolloutWorld, error) {
	w := &rolloutWorld{exp: map[string]*replicaset.Expectations{}, created: map[string]int{}}
	for _, o := range objs {
		c, err := value.DeepCopyMap(o)
		if err != nil {
			return nil, &inputError{err: err}
		}
		switch rolloutKind(c) {
		case "Deployment":
			if w.d != nil {
				return nil, &inputError{err: errors.New("more than one Deployment given")}
			}
			w.d = c
		case "ReplicaSet":
			w.rss = append(w.rss, c)
		case "Pod":
			w.pods = append(w.pods, c)
		default:
			return nil, &inputError{err: fmt.Errorf("rollout reads Deployments, ReplicaSets and Pods, not %q", rolloutKind(c))}
		}
	}
	if w.d == nil {
		return nil, &inputError{err: errors.New("no Deployment given")}
	}
	md := meta(w.d)
	for _, k := range []string{"name", "namespace"} {
		if s, _ := md[k].(string); s == "" {
			if k == "namespace" {
				md[k] = "default"
				continue
			}
			return nil, &inputError{err: errors.New("the Deployment has no metadata.name")}
		}
	}
	if s, _ := md["uid"].(string); s == "" {
		md["uid"] = "uid-deployment-" + md["name"].(string)
	}
	if _, ok := md["generation"].(int64); !ok {
		md["generation"] = int64(1)
	}
	w.now = rolloutStart
	if t, err := time.Parse(time.RFC3339, str(md["creationTimestamp"])); err == nil {
		w.now = t
	}
	for _, o := range append(append([]map[string]any(nil), w.rss...), w.pods...) {
		m := meta(o)
		if str(m["namespace"]) == "" {
			m["namespace"] = md["namespace"]
		}
		if str(m["uid"]) == "" {
			m["uid"] = "uid-" + strings.ToLower(rolloutKind(o)) + "-" + str(m["name"])
		}
		if str(m["creationTimestamp"]) == "" {
			m["creationTimestamp"] = w.now.Format(time.RFC3339)
		}
	}
	return w, nil
}

func meta(o map[string]any) map[string]any {
	md, _ := o["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		o["metadata"] = md
	}
	return md
}

func str(v any) string { s, _ := v.(string); return s }

func (w *rolloutWorld) setSpec(next map[string]any) {
	spec, _ := value.DeepCopy(next["spec"])
	if !value.Equal(spec, w.d["spec"]) {
		w.d["spec"] = spec
		md := meta(w.d)
		md["generation"] = md["generation"].(int64) + 1
	}
}

func int64Of(o map[string]any, keys ...string) int64 {
	var cur any = o
	for _, k := range keys {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	n, _ := cur.(int64)
	return n
}

func (w *rolloutWorld) run(e *env, maxSteps int) error {
	out := e.stdout
	fmt.Fprintf(out, "Deployment %s/%s: %d replicas, strategy %s\n", meta(w.d)["namespace"], meta(w.d)["name"],
		int64Of(w.d, "spec", "replicas"), strategyLine(w.d))
	step := 0
	for ; step < maxSteps; step++ {
		var lines []string
		wrote := false
		// The Deployment controller.
		res, err := deployment.Sync(deployment.Input{Deployment: w.d, ReplicaSets: w.rss, Pods: w.pods}, deployment.Options{Now: w.now})
		if err != nil {
			fmt.Fprintf(out, "error: %v\n", err)
			return err
		}
		for _, a := range res.Actions {
			wrote = wrote || a.Type != deployment.ActionEvent
			if l := w.applyDeploymentAction(a); l != "" {
				lines = append(lines, l)
			}
		}
		if res.Err != nil {
			lines = append(lines, "  deployment controller: error: "+res.Err.Error())
		}
		// The ReplicaSet controller, then the kubelet stand-in, then the ReplicaSet
		// controller again for the status the Pods now give.
		rsLines, rsWrote := w.syncReplicaSets(step)
		lines = append(lines, rsLines...)
		if w.kubelet(step) {
			wrote = true
			rsLines, _ = w.syncReplicaSets(step)
			lines = append(lines, rsLines...)
		}
		if !wrote && !rsWrote {
			// The controller requeues a stuck rollout at its progress deadline.
			if at, ok := w.deadline(); ok && at.After(w.now) && !w.noDeadline {
				fmt.Fprintf(out, "\nno progress: the clock moves to the progress deadline (%s)\n", at.Sub(rolloutStartOf(w)))
				w.now = at
				continue
			}
			break
		}
		fmt.Fprintf(out, "\nstep %d (t=%s):\n", step+1, w.now.Sub(rolloutStartOf(w)).String())
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
		fmt.Fprintln(out, "  status: "+statusLine(w.d))
		for _, c := range conditionLines(w.d) {
			fmt.Fprintln(out, "    "+c)
		}
		fmt.Fprintln(out, "  replicasets (Pods/desired): "+w.replicaSetsLine())
		w.now = w.now.Add(w.tick())
	}
	if step == maxSteps {
		fmt.Fprintf(out, "\nstopped after %d steps (--max-steps)\n", maxSteps)
		return nil
	}
	fmt.Fprintf(out, "\nsettled after %d steps: %s\n", step, statusLine(w.d))
	return nil
}

func rolloutStartOf(w *rolloutWorld) time.Time {
	if t, err := time.Parse(time.RFC3339, str(meta(w.d)["creationTimestamp"])); err == nil {
		return t
	}
	return rolloutStart
}

func (w *rolloutWorld) tick() time.Duration {
	m := int64Of(w.d, "spec", "minReadySeconds")
	if m < 1 {
		m = 1
	}
	return time.Duration(m) * time.Second
}

func strategyLine(d map[string]any) string {
	st, _ := d["spec"].(map[string]any)["strategy"].(map[string]any)
	t := str(st["type"])
	if t != "RollingUpdate" {
		return t
	}
	ru, _ := st["rollingUpdate"].(map[string]any)
	surge, unavailable, err := deployment.ResolveFenceposts(ru["maxSurge"], ru["maxUnavailable"], int64Of(d, "spec", "replicas"))
	if err != nil {
		return fmt.Sprintf("RollingUpdate (%v)", err)
	}
	return fmt.Sprintf("RollingUpdate maxSurge=%v (%d Pods) maxUnavailable=%v (%d Pods)", ru["maxSurge"], surge, ru["maxUnavailable"], unavailable)
}

func (w *rolloutWorld) applyDeploymentAction(a deployment.Action) string {
	line := ""
	switch a.Type {
	case deployment.ActionCreateReplicaSet:
		if a.Err == "" {
			rs, _ := value.DeepCopyMap(a.Object)
			md := meta(rs)
			md["uid"] = "uid-replicaset-" + a.Name
			md["creationTimestamp"] = w.now.Format(time.RFC3339)
			md["generation"] = int64(1)
			w.rss = append(w.rss, rs)
		}
		line = fmt.Sprintf("  deployment controller: create ReplicaSet %s with %d replicas (%s)", a.Name, int64Of(a.Object, "spec", "replicas"), a.Why)
	case deployment.ActionUpdateReplicaSet:
		for i, rs := range w.rss {
			if str(meta(rs)["name"]) == a.Name && a.Err == "" {
				n, _ := value.DeepCopyMap(a.Object)
				if !value.Equal(n["spec"], rs["spec"]) {
					meta(n)["generation"] = int64Of(rs, "metadata", "generation") + 1
				}
				n["status"] = rs["status"]
				w.rss[i] = n
			}
		}
		line = fmt.Sprintf("  deployment controller: ReplicaSet %s %s", a.Name, a.Why)
	case deployment.ActionDeleteReplicaSet:
		for i, rs := range w.rss {
			if str(meta(rs)["name"]) == a.Name {
				w.rss = append(w.rss[:i], w.rss[i+1:]...)
				break
			}
		}
		line = fmt.Sprintf("  deployment controller: delete ReplicaSet %s (%s)", a.Name, a.Why)
	case deployment.ActionUpdateStatus, deployment.ActionUpdate:
		n, _ := value.DeepCopyMap(a.Object)
		if a.Type == deployment.ActionUpdate && !value.Equal(n["spec"], w.d["spec"]) {
			meta(n)["generation"] = int64Of(w.d, "metadata", "generation") + 1
		}
		w.d = n
		if a.Type == deployment.ActionUpdate {
			line = "  deployment controller: update the Deployment (" + a.Why + ")"
		}
	case deployment.ActionAdoptReplicaSet, deployment.ActionReleaseReplicaSet:
		for _, rs := range w.rss {
			if str(meta(rs)["name"]) == a.Name {
				if a.Type == deployment.ActionAdoptReplicaSet {
					meta(rs)["ownerReferences"], _ = value.DeepCopy(meta(a.Patch)["ownerReferences"])
				} else {
					delete(meta(rs), "ownerReferences")
				}
			}
		}
		line = fmt.Sprintf("  deployment controller: %s %s (%s)", strings.TrimSuffix(string(a.Type), "ReplicaSet"), a.Name, a.Why)
	}
	if a.Event != nil && a.Type == deployment.ActionEvent {
		line = fmt.Sprintf("  deployment controller: event %s %s: %s", a.Event.Type, a.Event.Reason, a.Event.Message)
	}
	if a.Err != "" && line != "" {
		line += " -> error: " + a.Err
	}
	return line
}

// syncReplicaSets runs the ReplicaSet controller over every ReplicaSet once.
func (w *rolloutWorld) syncReplicaSets(step int) ([]string, bool) {
	var lines []string
	wrote := false
	for i := range w.rss {
		rs := w.rss[i]
		name := str(meta(rs)["name"])
		res, err := replicaset.Sync(replicaset.Input{ReplicaSet: rs, Pods: w.pods, ReplicaSets: w.rss, Expectations: w.exp[name]}, replicaset.Options{Now: w.now})
		if err != nil {
			lines = append(lines, "  replicaset controller: "+err.Error())
			continue
		}
		exp := res.Expectations
		wrote = wrote || len(res.Actions) > 0
		created, deleted := 0, []string{}
		for _, a := range res.Actions {
			switch a.Type {
			case replicaset.ActionCreate:
				w.seq++
				pod, _ := value.DeepCopyMap(a.Object)
				md := meta(pod)
				md["name"] = fmt.Sprintf("%s%05d", md["generateName"], w.seq)
				md["uid"] = fmt.Sprintf("uid-pod-%d", w.seq)
				md["creationTimestamp"] = w.now.Format(time.RFC3339)
				pod["status"] = map[string]any{"phase": "Pending"}
				w.pods = append(w.pods, pod)
				w.created[md["name"].(string)] = step
				exp = exp.CreationObserved()
				created++
			case replicaset.ActionDelete:
				for j, p := range w.pods {
					if str(meta(p)["name"]) == a.Name {
						w.pods = append(w.pods[:j], w.pods[j+1:]...)
						break
					}
				}
				exp = exp.DeletionObserved(str(meta(rs)["namespace"]) + "/" + a.Name)
				deleted = append(deleted, a.Name)
			case replicaset.ActionAdopt, replicaset.ActionRelease:
				for _, p := range w.pods {
					if str(meta(p)["name"]) == a.Name {
						if a.Type == replicaset.ActionAdopt {
							meta(p)["ownerReferences"], _ = value.DeepCopy(meta(a.Patch)["ownerReferences"])
						} else {
							delete(meta(p), "ownerReferences")
						}
					}
				}
			case replicaset.ActionUpdateStatus:
				n, _ := value.DeepCopyMap(a.Object)
				w.rss[i] = n
			}
		}
		w.exp[name] = exp
		if created > 0 {
			lines = append(lines, fmt.Sprintf("  replicaset controller: %s creates %d Pod(s)", name, created))
		}
		if len(deleted) > 0 {
			lines = append(lines, fmt.Sprintf("  replicaset controller: %s deletes %s", name, strings.Join(deleted, ", ")))
		}
	}
	return lines, wrote
}

// kubelet is the stand-in kubelet: it reports whether a Pod changed.
func (w *rolloutWorld) kubelet(step int) bool {
	if w.ready == "never" {
		return false
	}
	changed := false
	for _, p := range w.pods {
		st, _ := p["status"].(map[string]any)
		if str(st["phase"]) == "Running" {
			continue
		}
		if w.ready == "step" && w.created[str(meta(p)["name"])] == step {
			continue
		}
		p["status"] = map[string]any{"phase": "Running", "conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": w.now.Format(time.RFC3339)}}}
		changed = true
	}
	return changed
}

func statusLine(d map[string]any) string {
	st, _ := d["status"].(map[string]any)
	g := func(k string) int64 { n, _ := st[k].(int64); return n }
	return fmt.Sprintf("replicas=%d updated=%d ready=%d available=%d unavailable=%d observedGeneration=%d",
		g("replicas"), g("updatedReplicas"), g("readyReplicas"), g("availableReplicas"), g("unavailableReplicas"), g("observedGeneration"))
}

func conditionLines(d map[string]any) []string {
	st, _ := d["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	var out []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		out = append(out, fmt.Sprintf("%s=%s %s: %s", m["type"], m["status"], m["reason"], m["message"]))
	}
	sort.Strings(out)
	return out
}

func (w *rolloutWorld) replicaSetsLine() string {
	var parts []string
	for _, rs := range w.rss {
		rev := str(meta(rs)["annotations"].(map[string]any)["deployment.kubernetes.io/revision"])
		parts = append(parts, fmt.Sprintf("%s (rev %s) %d/%d ready %d available %d", meta(rs)["name"], rev,
			int64Of(rs, "status", "replicas"), int64Of(rs, "spec", "replicas"), int64Of(rs, "status", "readyReplicas"), int64Of(rs, "status", "availableReplicas")))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func runRolloutUndo(e *env, args []string) int {
	var files fileList
	var o output
	f := e.flags("rollout undo -f DEPLOYMENT-AND-REPLICASETS [-n NAMESPACE] [--to-revision N] [-o yaml|json]",
		`Print the Deployment that `+"`kubectl rollout undo`"+` writes: its template replaced by the one of the
ReplicaSet of the previous revision (or --to-revision), without the pod-template-hash label,
and the annotations of that ReplicaSet (but the deployment.kubernetes.io ones and
last-applied-configuration). The file holds the stored Deployment and its ReplicaSets (kubectl
get deploy,rs -o yaml).`,
		`  writepath rollout undo -f testdata/examples/rollout-history.yaml
  writepath rollout undo -f testdata/examples/rollout-history.yaml --to-revision 1`)
	f.Var(&files, "f", "`FILE` with the Deployment and its ReplicaSets (repeatable; - for stdin)")
	rev := f.String("to-revision", "0", "the `REVISION` to roll back to; 0 is the previous one")
	ns := f.namespace("the `NAMESPACE` of the Deployment: objects of other namespaces are left out, those without one are in it (default: the Deployment's)")
	f.Var(&o, "o", "output format: `yaml|json` (default: yaml)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	n, err := strconv.ParseInt(*rev, 10, 64)
	if err != nil || n < 0 {
		return e.fail(usagef("--to-revision must be a revision number, not %q", *rev))
	}
	if len(files) == 0 {
		return e.fail(usagef("no input: give the Deployment and its ReplicaSets with -f FILE"))
	}
	objs, err := e.readObjects(files)
	if err == nil && *ns != "" {
		objs, err = selectNamespace(objs, *ns)
	}
	if err != nil {
		return e.fail(err)
	}
	var d map[string]any
	var rss []map[string]any
	for _, obj := range objs {
		switch rolloutKind(obj) {
		case "Deployment":
			d = obj
		case "ReplicaSet":
			rss = append(rss, obj)
		}
	}
	if d == nil {
		return e.fail(&inputError{err: errors.New("no Deployment given")})
	}
	out, err := deployment.Rollback(d, rss, n)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitNegative
	}
	if err := e.printValue(o, out); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// deadline is when a stuck rollout's Progressing condition times out: its lastUpdateTime
// plus progressDeadlineSeconds and a second; false when there is none to wait for.
func (w *rolloutWorld) deadline() (time.Time, bool) {
	secs := int64Of(w.d, "spec", "progressDeadlineSeconds")
	if secs <= 0 || secs == 2147483647 {
		return time.Time{}, false
	}
	st, _ := w.d["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Progressing" {
			continue
		}
		switch m["reason"] {
		case "NewReplicaSetAvailable", "ProgressDeadlineExceeded":
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339, str(m["lastUpdateTime"]))
		if err != nil {
			return time.Time{}, false
		}
		return t.Add(time.Duration(secs)*time.Second + time.Second), true
	}
	return time.Time{}, false
}
