package gc

import (
	"fmt"
	"sort"
	"strings"
)

// finalizerOwners maps well-known finalizers to the component that removes them.
var finalizerOwners = map[string]string{
	FinalizerOrphan:                               ControllerGC,
	FinalizerForeground:                           ControllerGC,
	FinalizerKubernetes:                           ControllerNamespace,
	"kubernetes.io/pvc-protection":                "pvc-protection",
	"kubernetes.io/pv-protection":                 "pv-protection",
	"batch.kubernetes.io/job-tracking":            "job",
	"service.kubernetes.io/load-balancer-cleanup": "service-lb-controller",
	"customresourcecleanup.apiextensions.k8s.io":  "apiextensions-apiserver",
	"resource.kubernetes.io/delete-protection":    "resourceclaim",
	"kubernetes.io/legacy-token-cleanup":          "legacy-serviceaccount-token-cleaner",
}

// FinalizerOwner returns the component that removes a finalizer, and whether it is a
// well-known one; for others it returns the finalizer's domain (the part before "/").
func FinalizerOwner(finalizer string) (string, bool) {
	if o, ok := finalizerOwners[finalizer]; ok {
		return o, true
	}
	if i := strings.Index(finalizer, "/"); i > 0 {
		return finalizer[:i], false
	}
	return finalizer, false
}

// DiagnoseOptions configures Diagnose.
type DiagnoseOptions struct {
	Options
	// Known lists the other controllers running in the cluster, by the names FinalizerOwner
	// returns (e.g. "pvc-protection", "example.com"). The controllers of Options.Controllers
	// run in the simulation; "apiextensions-apiserver" is always present.
	Known []string
}

// Finalizer is one finalizer of a stuck object and who would remove it.
type Finalizer struct {
	Name string `json:"name"`
	// Owner is the component that removes it (see FinalizerOwner).
	Owner string `json:"owner"`
	// Present is true when that component runs (simulated or listed in Known).
	Present bool `json:"present"`
}

// Blocker is a dependent that holds a foreground deletion, or content that holds a namespace.
type Blocker struct {
	Ref Ref    `json:"ref"`
	Why string `json:"why"`
}

// Diagnosis says what happens to one object when the controllers run, and why it stays.
type Diagnosis struct {
	Target Ref `json:"target"`
	// Removed is true when the controllers delete the object: it is not stuck.
	Removed bool `json:"removed"`
	// Deleting is true when the object has a deletionTimestamp at the fixpoint.
	Deleting bool `json:"deleting"`
	// Finalizers lists the remaining finalizers (spec.finalizers of namespaces included).
	Finalizers []Finalizer `json:"finalizers,omitempty"`
	// Blockers lists the dependents (or namespace content) the object waits for.
	Blockers []Blocker `json:"blockers,omitempty"`
	// Deadlock is true when nothing will ever remove the object: a finalizer whose controller
	// is absent, or a cycle of blocking owner references.
	Deadlock bool `json:"deadlock"`
	// Reasons explains, in words.
	Reasons []string `json:"reasons"`
	// Run is the simulation the diagnosis is based on.
	Run Result `json:"-"`
}

// Diagnose runs the controllers over the snapshot to their fixpoint and explains why the
// object named by target (kind and name, namespace for namespaced kinds, apiVersion optional)
// is still there: the finalizers left and who removes them, the dependents holding a
// foreground deletion, the content holding a namespace, deadlocks. objs is not modified.
func Diagnose(objs []Object, target Ref, opts DiagnoseOptions) (Diagnosis, error) {
	return diagnose(objs, target, opts, nil)
}

func diagnose(objs []Object, target Ref, opts DiagnoseOptions, stats *explainStats) (Diagnosis, error) {
	s, err := newState(objs, opts.Options)
	if err != nil {
		return Diagnosis{}, err
	}
	it, err := s.find(target)
	if err != nil {
		return Diagnosis{}, err
	}
	d := Diagnosis{Target: it.ref()}
	d.Run = s.run()
	present := map[string]bool{"apiextensions-apiserver": true}
	for _, c := range []string{ControllerGC, ControllerNamespace} {
		if opts.runs(c) {
			present[c] = true
		}
	}
	for _, k := range opts.Known {
		present[k] = true
	}
	if it.gone {
		d.Removed = true
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s is removed once the controllers have run (%d rounds)", it.ref(), len(d.Run.Rounds)))
		return d, nil
	}
	d.Deleting = it.m.deleting()
	ex := &explainer{s: s, present: present, visiting: map[*item]bool{}, done: map[*item]explained{}, shown: map[*why]bool{}, stats: stats}
	if !d.Deleting {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s is not being deleted (no deletionTimestamp)", it.ref()))
		if why, ok := s.stuck[it]; ok {
			d.Reasons = append(d.Reasons, "the garbage collector cannot process it: "+why)
		}
		return d, nil
	}
	fs := append([]string{}, it.m.finalizers...)
	if it.k.Group == "" && it.k.Kind == "Namespace" {
		fs = append(fs, specFinalizers(it.obj)...)
	}
	for _, f := range fs {
		owner, _ := FinalizerOwner(f)
		d.Finalizers = append(d.Finalizers, Finalizer{Name: f, Owner: owner, Present: present[owner]})
		if !present[owner] {
			d.Deadlock = true
			d.Reasons = append(d.Reasons, fmt.Sprintf("finalizer %q is removed by %s, which is not running", f, owner))
		}
	}
	if g := it.m.deletionGrace; g != nil && *g > 0 {
		spec, _ := it.obj["spec"].(map[string]any)
		node, _ := spec["nodeName"].(string)
		d.Reasons = append(d.Reasons, fmt.Sprintf("graceful deletion pending (%ds from %s): the kubelet on node %q deletes the pod once its containers stop", *g, it.m.deletionTimestamp, node))
		if !present["kubelet"] {
			d.Deadlock = true
		}
	}
	if it.deletingDependents() && present[ControllerGC] {
		for _, b := range s.blockingDependents(it) {
			why, cycle := ex.explain(b, it)
			d.Blockers = append(d.Blockers, Blocker{Ref: b.ref(), Why: why})
			if cycle {
				d.Deadlock = true
			}
		}
		if len(d.Blockers) > 0 {
			d.Reasons = append(d.Reasons, fmt.Sprintf("foreground deletion waits for %d dependent(s) with blockOwnerDeletion=true", len(d.Blockers)))
		}
	}
	if it.k.Group == "" && it.k.Kind == "Namespace" && present[ControllerNamespace] {
		for _, c := range s.items {
			if c.gone || c.m.namespace != it.m.name || !c.k.Namespaced {
				continue
			}
			why, cycle := ex.explain(c, nil)
			d.Blockers = append(d.Blockers, Blocker{Ref: c.ref(), Why: why})
			if cycle {
				d.Deadlock = true
			}
		}
		status, _ := it.obj["status"].(map[string]any)
		conds, _ := status["conditions"].([]any)
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["status"] == "True" {
				d.Reasons = append(d.Reasons, fmt.Sprintf("%s: %s", m["type"], m["message"]))
			}
		}
	}
	for _, b := range d.Blockers {
		if strings.Contains(b.Why, "which is not running") {
			d.Deadlock = true
		}
	}
	if len(d.Reasons) == 0 {
		d.Reasons = append(d.Reasons, "being deleted; nothing holds it once its finalizers are removed")
	}
	return d, nil
}

type explainer struct {
	s        *state
	present  map[string]bool
	visiting map[*item]bool
	// done holds the explanation of every item explained so far: a dependent reached again
	// (two owners waiting for it: a diamond of owner references) is explained once.
	done map[*item]explained
	// shown holds the explanations already written: a later occurrence refers back to the
	// first instead of repeating it, so the text grows with the graph, not with its paths
	// (exponential in a ladder of diamonds).
	shown map[*why]bool
	stats *explainStats // work counters, set by the scaling tests only
}

type explained struct {
	w     *why
	cycle bool
}

// explain says why an item is still there; cycle is true when the explanation leads back to
// the object being diagnosed through blocking references. An item explained in an earlier
// call (an earlier blocker's explanation) is referred back to.
func (e *explainer) explain(it *item, root *item) (string, bool) {
	w, cycle := e.why(it, root)
	var b strings.Builder
	w.render(&b, e.shown, e.stats)
	return b.String(), cycle
}

// why is the explanation of an item as a tree, rendered once: the explanation below each level
// used to be built as a string at every level (quadratic in the length of a chain).
func (e *explainer) why(it *item, root *item) (*why, bool) {
	if it == root {
		return &why{text: "it is the object being diagnosed: a cycle of blocking owner references"}, true
	}
	if e.visiting[it] {
		return &why{text: alreadyExplained}, false
	}
	if d, ok := e.done[it]; ok {
		return d.w, d.cycle
	}
	e.visiting[it] = true
	defer delete(e.visiting, it)
	w, cycle := e.explainItem(it, root)
	e.done[it] = explained{w, cycle}
	return w, cycle
}

func (e *explainer) explainItem(it *item, root *item) (*why, bool) {
	if reason, ok := e.s.stuck[it]; ok {
		return &why{text: "the garbage collector cannot process it: " + reason}, false
	}
	if !it.m.deleting() {
		if !e.present[ControllerGC] {
			return &why{text: "not being deleted: the garbage collector is not running"}, true
		}
		return &why{text: "not being deleted"}, false
	}
	var parts []string
	cycle := false
	if g := it.m.deletionGrace; g != nil && *g > 0 {
		parts = append(parts, fmt.Sprintf("graceful deletion pending (%ds): waiting for the kubelet", *g))
		if !e.present["kubelet"] {
			parts[len(parts)-1] += ", which is not running"
		}
	}
	var fs []string
	for _, f := range it.m.finalizers {
		owner, _ := FinalizerOwner(f)
		s := fmt.Sprintf("finalizer %q (%s", f, owner)
		if !e.present[owner] {
			s += ", which is not running"
		}
		fs = append(fs, s+")")
	}
	if len(fs) > 0 {
		parts = append(parts, "being deleted, waiting for "+strings.Join(fs, ", "))
	}
	w := &why{}
	if it.deletingDependents() {
		for _, b := range e.s.blockingDependents(it) {
			sub, c := e.why(b, root)
			cycle = cycle || c
			w.waits = append(w.waits, waitingFor{ref: b.ref().String() + ": ", why: sub})
		}
		// Sorted as the strings "ref: why" sort.
		sort.SliceStable(w.waits, func(i, j int) bool { return w.waits[i].less(&w.waits[j], e.stats) })
	}
	if len(parts) == 0 && len(w.waits) == 0 {
		parts = append(parts, "being deleted")
	}
	w.text = strings.Join(parts, "; ")
	return w, cycle
}

const alreadyExplained = "already explained above"

// why is an explanation: text, then (when waits is not empty) "; " if text is not empty and
// "its foreground deletion waits for [ref: why; ...]".
type why struct {
	text     string
	waits    []waitingFor
	rendered *string // the whole explanation, when a comparison needed it
}

// waitingFor is one dependent a foreground deletion waits for: "ref: " and its explanation.
type waitingFor struct {
	ref string
	why *why
}

// render writes w; an explanation with dependents that shown already holds is written as
// "already explained above" (it was written in full before), and w is added to shown.
func (w *why) render(b *strings.Builder, shown map[*why]bool, stats *explainStats) {
	if len(w.waits) > 0 {
		if shown[w] {
			b.WriteString(alreadyExplained)
			if stats != nil {
				stats.bytes += len(alreadyExplained)
			}
			return
		}
		shown[w] = true
	}
	b.WriteString(w.text)
	if stats != nil {
		stats.bytes += len(w.text)
	}
	if len(w.waits) == 0 {
		return
	}
	if w.text != "" {
		b.WriteString("; ")
	}
	b.WriteString("its foreground deletion waits for [")
	for i, sub := range w.waits {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(sub.ref)
		if stats != nil {
			stats.bytes += len(sub.ref)
		}
		sub.why.render(b, shown, stats)
	}
	b.WriteString("]")
}

func (w *why) full(stats *explainStats) string {
	if w.rendered == nil {
		var b strings.Builder
		w.render(&b, map[*why]bool{}, stats)
		s := b.String()
		w.rendered = &s
	}
	return *w.rendered
}

// less orders two dependents as their strings "ref: why" order. The refs decide unless one
// "ref: " is a prefix of the other (equal refs, or names holding ": "): then the whole strings
// are compared.
func (a *waitingFor) less(b *waitingFor, stats *explainStats) bool {
	if stats != nil {
		stats.compares++
	}
	if !strings.HasPrefix(a.ref, b.ref) && !strings.HasPrefix(b.ref, a.ref) {
		return a.ref < b.ref
	}
	return a.ref+a.why.full(stats) < b.ref+b.why.full(stats)
}

// explainStats counts the work of an explanation, for the scaling tests.
type explainStats struct {
	bytes    int // bytes of explanation text written
	compares int // comparisons of dependents
}

// find resolves a target ref in the state.
func (s *state) find(t Ref) (*item, error) {
	var found []*item
	for _, it := range s.items {
		if it.m.kind != t.Kind && !strings.EqualFold(it.k.Resource, t.Kind) && !strings.EqualFold(it.m.kind, t.Kind) {
			continue
		}
		if t.APIVersion != "" && it.m.apiVersion != t.APIVersion {
			continue
		}
		if it.m.name != t.Name || (it.k.Namespaced && t.Namespace != "" && it.m.namespace != t.Namespace) {
			continue
		}
		found = append(found, it)
	}
	switch len(found) {
	case 0:
		k, ok := s.cat.lookup(t.APIVersion, t.Kind)
		if !ok {
			return nil, notFoundError("", strings.ToLower(t.Kind), t.Name)
		}
		return nil, notFoundError(k.Group, k.Resource, t.Name)
	case 1:
		return found[0], nil
	}
	var names []string
	for _, f := range found {
		names = append(names, f.m.apiVersion+" "+f.ref().String())
	}
	return nil, fmt.Errorf("%s/%s is ambiguous: %s; give the namespace or apiVersion", t.Kind, t.Name, strings.Join(names, ", "))
}
