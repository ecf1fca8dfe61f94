package cli

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/internal/bounded"
)

// runWhyStuck is `writepath why-stuck`: why an object (or a namespace) stays Terminating.
func runWhyStuck(e *env, args []string) int {
	var files fileList
	var out output
	f := e.flags("why-stuck -f FILE KIND/NAME [-n NAMESPACE] [--known LIST] [-o yaml|json]",
		`Explain why an object stays Terminating, or a namespace never goes: the controllers of
kube-controller-manager (garbage collector, namespace controller) are run over the objects
to their fixpoint, then the object's remaining finalizers are listed with the component that
removes each, with the dependents holding a foreground deletion (and, recursively, what holds
them), the content holding a namespace, and deadlocks: finalizers whose controller is not
running, cycles of blocking owner references, pods waiting for a kubelet.

--known lists the other controllers that run in the cluster, by the names why-stuck prints
(e.g. example.com, pvc-protection, kubelet). Exit status 0 when the object goes, 1 when it is stuck.`,
		`  # Why does the namespace stay Terminating?
  writepath why-stuck -f testdata/gc/cli/stuck-namespace.yaml namespace/team-a`)
	f.Var(&files, "f", "`FILE` with the objects (- for stdin; repeatable)")
	ns := f.String("n", "", "`NAMESPACE` of the object")
	known := f.String("known", "", "other controllers running in the cluster (`LIST`, comma-separated)")
	controllers := f.String("controllers", "garbagecollector,namespace", "controllers that run (`LIST` of garbagecollector, namespace)")
	nowFlag := f.String("now", "", "the clock, RFC 3339 (`TIME`; default: now)")
	f.Var(&out, "o", "output `FORMAT`: yaml, json, jsonpath=TEMPLATE, go-template=TEMPLATE (the report as data), or name (the objects holding it, kind.group/name) (default: a report)")
	maxState := f.Int64("max-state-bytes", bounded.StateBytes, "bound of each -f file in `BYTES` (they hold many objects; -1: no bound)")
	positional, code, ok := parseInterspersed(f, args)
	if !ok {
		return code
	}
	target, err := targetArg(positional)
	if err != nil {
		return e.fail(err)
	}
	if len(files) == 0 {
		return e.fail(usagef("give the objects with -f FILE"))
	}
	now, ctrls, objs, idx, err := e.gcInputs(*nowFlag, *controllers, files, *maxState, target, *ns)
	if err != nil {
		return e.fail(err)
	}
	var knownList []string
	for _, k := range strings.Split(*known, ",") {
		if k = strings.TrimSpace(k); k != "" {
			knownList = append(knownList, k)
		}
	}
	ref := refOf(objs[idx])
	d, err := gc.Diagnose(objs, gc.Ref{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name},
		gc.DiagnoseOptions{Options: gc.Options{Now: now, Controllers: ctrls}, Known: knownList})
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	code = exitOK
	if !d.Removed {
		code = exitNegative
	}
	if out == "name" {
		// The objects holding the target, kind.group/name each, for scripts (xargs kubectl ...).
		for _, b := range d.Blockers {
			if err := e.printNames(map[string]any{"apiVersion": b.Ref.APIVersion, "kind": b.Ref.Kind,
				"metadata": map[string]any{"name": b.Ref.Name}}); err != nil {
				return e.fail(err)
			}
		}
		return code
	}
	if out != "" {
		fs := []any{}
		for _, fi := range d.Finalizers {
			fs = append(fs, map[string]any{"name": fi.Name, "owner": fi.Owner, "present": fi.Present})
		}
		bs := []any{}
		for _, b := range d.Blockers {
			bs = append(bs, map[string]any{"ref": refMap(b.Ref), "why": b.Why})
		}
		reasons := []any{}
		for _, r := range d.Reasons {
			reasons = append(reasons, r)
		}
		report := map[string]any{"target": refMap(d.Target), "removed": d.Removed, "deleting": d.Deleting,
			"deadlock": d.Deadlock, "finalizers": fs, "blockers": bs, "reasons": reasons, "rounds": roundsData(d.Run.Rounds)}
		if err := e.printValue(out, report); err != nil {
			return e.fail(err)
		}
		return code
	}
	w := e.stdout
	switch {
	case d.Removed:
		fmt.Fprintf(w, "%s is not stuck: it is removed once the controllers have run.\n", d.Target)
	case !d.Deleting:
		fmt.Fprintf(w, "%s is not being deleted.\n", d.Target)
	case d.Deadlock:
		fmt.Fprintf(w, "%s is stuck: nothing will remove it.\n", d.Target)
	default:
		fmt.Fprintf(w, "%s is waiting.\n", d.Target)
	}
	for _, r := range d.Reasons {
		fmt.Fprintf(w, "  %s\n", r)
	}
	if len(d.Finalizers) > 0 {
		fmt.Fprintln(w, "finalizers:")
		for _, fi := range d.Finalizers {
			state := "running"
			if !fi.Present {
				state = "NOT running"
			}
			fmt.Fprintf(w, "  %s: removed by %s (%s)\n", fi.Name, fi.Owner, state)
		}
	}
	if len(d.Blockers) > 0 {
		fmt.Fprintln(w, "held by:")
		for _, b := range d.Blockers {
			fmt.Fprintf(w, "  %s: %s\n", b.Ref, b.Why)
		}
	}
	if len(d.Run.Rounds) > 0 {
		fmt.Fprintln(w, "what the controllers do first:")
		for i, round := range d.Run.Rounds {
			for _, a := range round {
				fmt.Fprintf(w, "  %d. %s\n", i+1, a)
			}
		}
	}
	return code
}
