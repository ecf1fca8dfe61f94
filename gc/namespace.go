package gc

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/writepath/writepath/schema"
)

// The namespace deletion conditions, in the order the namespace controller writes them, with
// the reason and message each carries when all is well.
var namespaceConditions = []struct{ typ, okReason, okMessage string }{
	{"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
	{"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
	{"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

type nsCondition struct{ typ, status, reason, message string }

// servedVersions lists the versions under which the namespace controller sees a kind: it walks
// every discovered group/version/resource, so a kind served at two versions is listed (and
// counted) twice.
func (s *state) servedVersions(k Kind) []string {
	if s.cat.user != nil {
		return []string{k.Version}
	}
	var vs []string
	for _, c := range s.cat.crds {
		if c.Group == k.Group && c.Kind == k.Kind {
			vs = append(vs, c.Version)
		}
	}
	if len(vs) > 0 {
		sort.Strings(vs)
		return vs
	}
	if vs, ok := builtinIndex().versions[k.Group+"/"+k.Kind]; ok {
		return slices.Clone(vs)
	}
	return []string{k.Version}
}

// syncNamespace is the namespace controller's namespacedResourcesDeleter.Delete for one
// namespace being deleted.
func (s *state) syncNamespace(ns *item) []Action {
	var out []Action
	status, _ := ns.obj["status"].(map[string]any)
	if phase, _ := status["phase"].(string); phase != "Terminating" {
		out = append(out, s.writeNamespaceStatus(ns, func(st map[string]any) { st["phase"] = "Terminating" }, "the namespace is being deleted"))
	}
	if len(specFinalizers(ns.obj)) == 0 {
		return out
	}
	name := ns.m.name
	var contentErrs []string
	estimate := int64(0)
	deletedAt, ok := parseTime(ns.m.deletionTimestamp)
	if !ok {
		deletedAt = s.now
	}
	inNS := func(pods bool) []*item {
		var l []*item
		for _, it := range s.inNamespace[name] {
			s.contentVisits++
			if !it.gone && (it.k.Group == "" && it.k.Resource == "pods") == pods {
				l = append(l, it)
			}
		}
		return l
	}
	deleteAll := func(l []*item) {
		for _, it := range l {
			if it.gone {
				continue
			}
			a := Action{Type: ActionDelete, Controller: ControllerNamespace, Target: it.ref(), PropagationPolicy: Background,
				Why: fmt.Sprintf("namespace %s is terminating", name)}
			p := Background
			a.Outcome, a.written = s.applyDeleteOpts(it, DeleteOptions{PropagationPolicy: &p})
			a.Object = current(it)
			if a.Outcome != "unchanged" {
				out = append(out, a)
			}
		}
	}
	remaining := map[string]int{}  // "resource.group" per served version
	finalizers := map[string]int{} // finalizer → instances
	var order []string
	// count mirrors deleteAllContentForGroupVersionResource's re-list after deleting.
	count := func(l []*item, gvrEstimate int64) {
		byRes := map[string][]*item{}
		var keys []string
		for _, it := range l {
			if it.gone {
				continue
			}
			for _, v := range s.servedVersions(*it.k) {
				key := it.k.Group + "/" + v + "/" + it.k.Resource
				if _, seen := byRes[key]; !seen {
					keys = append(keys, key)
				}
				byRes[key] = append(byRes[key], it)
			}
		}
		for _, key := range keys {
			items := byRes[key]
			parts := strings.SplitN(key, "/", 3)
			fs := map[string]int{}
			for _, it := range items {
				for _, f := range it.m.finalizers {
					fs[f]++
				}
			}
			est := gvrEstimate
			if parts[2] != "pods" || parts[0] != "" {
				est = 0
			}
			if est == 0 && len(fs) == 0 {
				gvr := parts[0] + "/" + parts[1] + ", Resource=" + parts[2]
				contentErrs = append(contentErrs, fmt.Sprintf("unexpected items still remain in namespace: %s for gvr: %s", name, gvr))
				continue
			}
			if est == 0 {
				est = 15
			}
			if est > estimate {
				estimate = est
			}
			rk := parts[2] + "." + parts[0]
			if _, seen := remaining[rk]; !seen {
				order = append(order, rk)
			}
			remaining[rk] += len(items)
			for f, n := range fs {
				finalizers[f] += n
			}
		}
	}
	// Pods first: the controller waits for them before touching anything else.
	pods := inNS(true)
	podEstimate := s.podEstimate(pods, deletedAt)
	deleteAll(pods)
	count(pods, podEstimate)
	var conds []nsCondition
	if len(remaining) == 0 {
		others := inNS(false)
		deleteAll(others)
		count(others, 0)
		conds = contentConditions(remaining, finalizers)
	}
	if len(contentErrs) > 0 {
		sort.Strings(contentErrs)
		conds = append(conds, nsCondition{"NamespaceDeletionContentFailure", "True", "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(contentErrs), strings.Join(contentErrs, ", "))})
	}
	if a, changed := s.updateConditions(ns, conds); changed {
		out = append(out, a)
	}
	if estimate > 0 || len(contentErrs) > 0 || ns.gone {
		return out
	}
	// finalizeNamespace: drop "kubernetes", keep the rest sorted.
	set := map[string]bool{}
	for _, f := range specFinalizers(ns.obj) {
		if f != FinalizerKubernetes {
			set[f] = true
		}
	}
	rest := sortedKeys(set)
	a := Action{Type: ActionFinalizeNamespace, Controller: ControllerNamespace, Target: ns.ref(), Finalizer: FinalizerKubernetes,
		Why: "the namespace has no content left"}
	if len(rest) == len(specFinalizers(ns.obj)) {
		return out
	}
	next := withSpecFinalizers(ns.obj, rest)
	if shouldDeleteDuringUpdate(ns, next, ns.m.finalizers) {
		s.drop(ns)
		a.Outcome = "removed"
	} else {
		s.replace(ns, next)
		a.Outcome = "updated"
		a.Object = ns.obj
	}
	return append(out, a)
}

func withSpecFinalizers(obj Object, fs []string) Object {
	out := make(Object, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	spec := map[string]any{}
	if old, ok := obj["spec"].(map[string]any); ok {
		for k, v := range old {
			spec[k] = v
		}
	}
	if len(fs) == 0 {
		delete(spec, "finalizers")
	} else {
		spec["finalizers"] = stringList(fs)
	}
	out["spec"] = spec
	return out
}

// podEstimate mirrors estimateGracefulTerminationForPods: the longest terminationGracePeriodSeconds
// of non-terminal pods, or zero once that much time has passed since the namespace's deletion.
func (s *state) podEstimate(pods []*item, deletedAt time.Time) int64 {
	est := int64(0)
	for _, p := range pods {
		st, _ := p.obj["status"].(map[string]any)
		if phase, _ := st["phase"].(string); phase == "Succeeded" || phase == "Failed" {
			continue
		}
		spec, _ := p.obj["spec"].(map[string]any)
		if g, ok := asInt(spec["terminationGracePeriodSeconds"]); ok && g > est {
			est = g
		}
	}
	if s.now.Sub(deletedAt) >= time.Duration(est)*time.Second {
		return 0
	}
	return est
}

func contentConditions(remaining, finalizers map[string]int) []nsCondition {
	var conds []nsCondition
	if len(remaining) > 0 {
		var parts []string
		for r, n := range remaining {
			parts = append(parts, fmt.Sprintf("%s has %d resource instances", r, n))
		}
		sort.Strings(parts)
		conds = append(conds, nsCondition{"NamespaceContentRemaining", "True", "SomeResourcesRemain",
			"Some resources are remaining: " + strings.Join(parts, ", ")})
	}
	if len(finalizers) > 0 {
		var parts []string
		for f, n := range finalizers {
			parts = append(parts, fmt.Sprintf("%s in %d resource instances", f, n))
		}
		sort.Strings(parts)
		conds = append(conds, nsCondition{"NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: " + strings.Join(parts, ", ")})
	}
	return conds
}

// updateConditions mirrors updateConditions of the namespace controller: every condition type is
// written, the failing ones from conds and the others as successful.
func (s *state) updateConditions(ns *item, conds []nsCondition) (Action, bool) {
	status, _ := ns.obj["status"].(map[string]any)
	old, _ := status["conditions"].([]any)
	list := make([]any, len(old))
	copy(list, old)
	changed := false
	now := formatTime(s.now)
	for _, ct := range namespaceConditions {
		want := nsCondition{ct.typ, "False", ct.okReason, ct.okMessage}
		for _, c := range conds {
			if c.typ == ct.typ {
				want = c
				break
			}
		}
		found := -1
		for i, x := range list {
			if m, ok := x.(map[string]any); ok && m["type"] == ct.typ {
				found = i
				break
			}
		}
		if found < 0 {
			list = append(list, map[string]any{"type": want.typ, "status": want.status, "lastTransitionTime": now,
				"reason": want.reason, "message": want.message})
			changed = true
			continue
		}
		m := list[found].(map[string]any)
		if m["status"] != want.status || m["reason"] != want.reason || m["message"] != want.message {
			nm := map[string]any{}
			for k, v := range m {
				nm[k] = v
			}
			if m["status"] != want.status {
				nm["lastTransitionTime"] = now
			}
			nm["type"], nm["status"], nm["reason"], nm["message"] = want.typ, want.status, want.reason, want.message
			list[found] = nm
			changed = true
		}
	}
	if !changed {
		return Action{}, false
	}
	a := s.writeNamespaceStatus(ns, func(st map[string]any) { st["conditions"] = list }, "namespace deletion progress")
	return a, true
}

func (s *state) writeNamespaceStatus(ns *item, edit func(map[string]any), why string) Action {
	out := make(Object, len(ns.obj))
	for k, v := range ns.obj {
		out[k] = v
	}
	st := map[string]any{}
	if old, ok := ns.obj["status"].(map[string]any); ok {
		for k, v := range old {
			st[k] = v
		}
	}
	edit(st)
	out["status"] = st
	s.replace(ns, out)
	return Action{Type: ActionUpdateNamespaceStatus, Controller: ControllerNamespace, Target: ns.ref(), Status: st, Why: why, Outcome: "updated", Object: ns.obj}
}

// applyDeleteOpts runs the apiserver's DELETE on an item with the given options.
func (s *state) applyDeleteOpts(it *item, opts DeleteOptions) (string, *writtenState) {
	if outcome, w, ok := s.fastDelete(it, opts); ok {
		if outcome == "removed" {
			s.drop(it)
		}
		return outcome, w
	}
	var res DeleteResult
	var err error
	if it.k.Group == "" && it.k.Kind == "Namespace" {
		res, err = deleteNamespace(it.obj, &it.m, *it.k, opts, s.now)
	} else {
		res, err = deleteObject(it.obj, &it.m, *it.k, opts, s.now, false)
	}
	switch {
	case err != nil:
		return "error: " + err.Error(), nil
	case res.Removed:
		s.drop(it)
		var w *writtenState
		if res.Written != nil {
			wm, _ := readMeta(res.Written)
			w = &writtenState{prev: it.obj, timestamp: wm.deletionTimestamp}
			if it.m.generation > 0 {
				w.generation = wm.generation
			}
		}
		return "removed", w
	case res.Changed:
		s.replace(it, res.Object)
		return "terminating", nil
	}
	return "unchanged", nil
}

// fastDelete answers the common DELETEs of a run without building objects: an object without
// finalizers deleted in the background (or orphaning, for a resource whose policy does not
// support it), and such a pod that is deleted at once. ok is false for everything else.
func (s *state) fastDelete(it *item, opts DeleteOptions) (outcome string, w *writtenState, ok bool) {
	if len(it.m.finalizers) != 0 || it.m.deleting() || len(opts.DryRun) != 0 || opts.OrphanDependents != nil ||
		opts.GracePeriodSeconds != nil || (it.k.Group == "" && it.k.Kind == "Namespace") {
		return "", nil, false
	}
	if p := opts.Preconditions; p != nil && ((p.UID != nil && *p.UID != it.m.uid) || p.ResourceVersion != nil) {
		return "", nil, false
	}
	if opts.PropagationPolicy == nil || (*opts.PropagationPolicy != Background && it.k.Policy != schema.GCUnsupported) {
		return "", nil, false
	}
	if !it.k.Graceful {
		return "removed", nil, true
	}
	if !it.unbound && podPeriod(it.obj, nil) != 0 {
		return "", nil, false
	}
	w = s.newWritten()
	*w = writtenState{prev: it.obj, timestamp: s.nowString()}
	if it.m.generation > 0 {
		w.generation = it.m.generation + 1
	}
	return "removed", w, true
}

// newWritten allocates a writtenState from a block: a removal of every pod of a large snapshot
// costs far fewer allocations.
func (s *state) newWritten() *writtenState {
	if len(s.writtenSlab) == 0 {
		s.writtenSlab = make([]writtenState, min(max(len(s.items)/4, 16), 4096))
	}
	w := &s.writtenSlab[0]
	s.writtenSlab = s.writtenSlab[1:]
	return w
}

func (s *state) nowString() string {
	if s.nowStr == "" {
		s.nowStr = formatTime(s.now)
	}
	return s.nowStr
}
