package cli

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/internal/bounded"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// runDelete is `writepath delete`: a DELETE through the apiserver's rules, then the garbage
// collector and the namespace controller to their fixpoint.
func runDelete(e *env, args []string) int {
	var files fileList
	var out output
	f := e.flags("delete -f FILE KIND/NAME [-n NAMESPACE] [--cascade=background|foreground|orphan] [-o yaml|json]",
		`Simulate deleting an object among others, as kube-apiserver 1.37 and kube-controller-manager's
garbage collector and namespace controller would: the DELETE (sent through the request path as
user admin: admission on DELETE, finalizers, grace period, deletionTimestamp; a refused DELETE is
the server's error), then every step of the controllers until nothing changes: what was
deleted, orphaned or unblocked, what waits and why, and the objects left at the end.

Objects are read from the -f files (multi-document YAML or JSON, Lists accepted); every object
needs metadata.uid, as the garbage collector follows ownerReferences by uid. Custom resources are
placed through the CustomResourceDefinitions found among them. KIND is a kind or a resource name
(ConfigMap, configmaps, deployment). Without -o, a report is printed; -o yaml|json prints it as
data.`,
		`  # Delete a Deployment in the foreground and watch its ReplicaSets and Pods go
  writepath delete -f testdata/gc/cli/deployment.yaml deployment/web -n demo --cascade=foreground`)
	f.Var(&files, "f", "`FILE` with the objects (- for stdin; repeatable)")
	ns := f.String("n", "", "`NAMESPACE` of the object (needed when the name is ambiguous)")
	cascade := f.String("cascade", "background", "propagation policy: `background`, foreground or orphan")
	grace := f.Int64("grace-period", -1, "gracePeriodSeconds of the DELETE (`SECONDS`; -1: not set)")
	var dry dryRunFlag
	f.Var(&dry, "dry-run", "`none|server`: server (or bare) sends dryRun=All: show the answer, change nothing")
	dryRun := new(bool)
	controllers := f.String("controllers", "garbagecollector,namespace", "controllers that run (`LIST` of garbagecollector, namespace; empty for none)")
	nowFlag := f.String("now", "", "the clock, RFC 3339 (`TIME`; default: now)")
	f.Var(&out, "o", "output `FORMAT`: yaml, json, jsonpath=TEMPLATE, go-template=TEMPLATE (the report as data), or name (the deleted object, as kubectl delete -o name) (default: a report)")
	maxState := f.Int64("max-state-bytes", bounded.StateBytes, "bound of each -f file in `BYTES` (they hold many objects; -1: no bound)")
	positional, code, ok := parseInterspersed(f, args)
	if !ok {
		return code
	}
	var err error
	if *dryRun, err = dry.server(); err != nil {
		return e.fail(err)
	}
	target, err := targetArg(positional)
	if err != nil {
		return e.fail(err)
	}
	if len(files) == 0 {
		return e.fail(usagef("give the objects with -f FILE"))
	}
	var policy gc.Propagation
	switch strings.ToLower(*cascade) {
	case "background", "true":
		policy = gc.Background
	case "foreground":
		policy = gc.Foreground
	case "orphan", "false":
		policy = gc.Orphan
	default:
		return e.fail(usagef(`invalid cascade value (%s). Must be "background", "foreground", or "orphan"`, *cascade))
	}
	now, ctrls, objs, idx, err := e.gcInputs(*nowFlag, *controllers, files, *maxState, target, *ns)
	if err != nil {
		return e.fail(err)
	}
	res, err := deleteThroughRegistry(objs, idx, policy, *grace, *dryRun, now)
	if err != nil {
		return e.fail(err)
	}
	next := make([]gc.Object, 0, len(objs))
	for i, o := range objs {
		switch {
		case i != idx:
			next = append(next, o)
		case res.Object != nil && !*dryRun:
			next = append(next, res.Object)
		case *dryRun:
			next = append(next, o)
		}
	}
	var run gc.Result
	if !*dryRun {
		run, err = gc.Run(next, gc.Options{Now: now, Controllers: ctrls})
		if err != nil {
			return e.fail(&inputError{err: err})
		}
	} else {
		run = gc.Result{Objects: next, Converged: true}
	}
	ref := refOf(objs[idx])
	if out == "name" {
		// kubectl delete -o name: the object the DELETE named, kind.group/name.
		if err := e.printNames(objs[idx]); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	if out != "" {
		report := map[string]any{
			"request":  map[string]any{"target": refMap(ref), "propagationPolicy": string(policy), "dryRun": *dryRun},
			"response": map[string]any{"code": int64(res.Code), "removed": res.Removed, "body": res.Response},
			"rounds":   roundsData(run.Rounds),
			"removed":  refList(run.Removed, res.Removed && !*dryRun, ref),
			"objects":  objectList(run.Objects),
		}
		if err := e.printValue(out, report); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	w := e.stdout
	fmt.Fprintf(w, "DELETE %s propagationPolicy=%s", ref, policy)
	if *dryRun {
		fmt.Fprint(w, " dryRun=All")
	}
	fmt.Fprintf(w, "\n  %d: %s\n", res.Code, deleteOutcome(res))
	for i, round := range run.Rounds {
		fmt.Fprintf(w, "step %d:\n", i+1)
		for _, a := range round {
			fmt.Fprintf(w, "  %s\n", a)
		}
	}
	if !run.Converged {
		fmt.Fprintln(w, "the controllers did not settle (round limit reached)")
	}
	fmt.Fprintln(w, "final state:")
	printStates(e, run.Objects)
	return exitOK
}

func deleteOutcome(res gc.DeleteResult) string {
	switch {
	case res.Removed:
		return "removed"
	case !res.Changed:
		return "unchanged (already being deleted)"
	}
	md, _ := res.Object["metadata"].(map[string]any)
	fs, _ := md["finalizers"].([]any)
	s := fmt.Sprintf("terminating (deletionTimestamp %v", md["deletionTimestamp"])
	if g, ok := md["deletionGracePeriodSeconds"]; ok && fmt.Sprint(g) != "0" {
		s += fmt.Sprintf(", grace period %vs", g)
	}
	if len(fs) > 0 {
		s += fmt.Sprintf(", finalizers %v", fs)
	}
	return s + ")"
}

// printStates lists the objects left: KIND NAMESPACE/NAME STATE OWNERS.
func printStates(e *env, objs []gc.Object) {
	for _, o := range objs {
		ref := refOf(o)
		md, _ := o["metadata"].(map[string]any)
		state := "Active"
		if md["deletionTimestamp"] != nil {
			state = "Terminating"
			var fs []string
			for _, f := range anyStrings(md["finalizers"]) {
				fs = append(fs, f)
			}
			if spec, ok := o["spec"].(map[string]any); ok && o["kind"] == "Namespace" {
				for _, f := range anyStrings(spec["finalizers"]) {
					fs = append(fs, "spec:"+f)
				}
			}
			if len(fs) > 0 {
				state += " (finalizers: " + strings.Join(fs, ", ") + ")"
			}
		}
		var owners []string
		refs, _ := md["ownerReferences"].([]any)
		for _, r := range refs {
			m, _ := r.(map[string]any)
			owner := fmt.Sprintf("%v/%v", m["kind"], m["name"])
			if m["blockOwnerDeletion"] == true {
				owner += " (blocking)"
			}
			owners = append(owners, owner)
		}
		line := fmt.Sprintf("  %s %s", ref, state)
		if len(owners) > 0 {
			line += " owners: " + strings.Join(owners, ", ")
		}
		fmt.Fprintln(e.stdout, line)
	}
	if len(objs) == 0 {
		fmt.Fprintln(e.stdout, "  (nothing left)")
	}
}

func objectList(objs []gc.Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

func anyStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func roundsData(rounds [][]gc.Action) []any {
	out := make([]any, 0, len(rounds))
	for _, r := range rounds {
		l := make([]any, 0, len(r))
		for _, a := range r {
			m := map[string]any{"type": string(a.Type), "controller": a.Controller, "target": refMap(a.Target), "why": a.Why}
			if a.Outcome != "" {
				m["outcome"] = a.Outcome
			}
			if a.PropagationPolicy != "" {
				m["propagationPolicy"] = string(a.PropagationPolicy)
			}
			if a.Finalizer != "" {
				m["finalizer"] = a.Finalizer
			}
			if len(a.OwnerUIDs) > 0 {
				uids := make([]any, len(a.OwnerUIDs))
				for i, u := range a.OwnerUIDs {
					uids[i] = u
				}
				m["ownerUIDs"] = uids
			}
			if a.Event != nil {
				m["event"] = map[string]any{"type": a.Event.Type, "reason": a.Event.Reason, "message": a.Event.Message}
			}
			l = append(l, m)
		}
		out = append(out, l)
	}
	return out
}

func refList(refs []gc.Ref, first bool, target gc.Ref) []any {
	out := []any{}
	if first {
		out = append(out, refMap(target))
	}
	for _, r := range refs {
		out = append(out, refMap(r))
	}
	return out
}

func refMap(r gc.Ref) map[string]any {
	m := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name}
	if r.Namespace != "" {
		m["namespace"] = r.Namespace
	}
	if r.UID != "" {
		m["uid"] = r.UID
	}
	return m
}

func refOf(o gc.Object) gc.Ref {
	md, _ := o["metadata"].(map[string]any)
	r := gc.Ref{}
	r.APIVersion, _ = o["apiVersion"].(string)
	r.Kind, _ = o["kind"].(string)
	r.Namespace, _ = md["namespace"].(string)
	r.Name, _ = md["name"].(string)
	r.UID, _ = md["uid"].(string)
	return r
}

// parseInterspersed parses flags given before and after positional arguments, as kubectl
// accepts them.
func parseInterspersed(f *flags, args []string) (positional []string, code int, ok bool) {
	for {
		if code, ok := f.parse(args); !ok {
			return nil, code, false
		}
		if f.NArg() == 0 {
			return positional, 0, true
		}
		rest := f.Args()
		if rest[0] == "--" {
			return append(positional, rest[1:]...), 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// targetArg reads the object argument as kubectl takes it: TYPE/NAME, or TYPE NAME.
func targetArg(positional []string) (string, error) {
	switch {
	case len(positional) == 1:
		return positional[0], nil
	case len(positional) == 2 && !strings.Contains(positional[0], "/") && !strings.Contains(positional[1], "/"):
		return positional[0] + "/" + positional[1], nil
	}
	return "", usagef("give one object, as TYPE/NAME or TYPE NAME (deploy/web, deployments.apps web)")
}

// parseTarget reads KIND/NAME.
func parseTarget(arg, ns string) (gc.Ref, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok || kind == "" || name == "" || strings.Contains(name, "/") {
		return gc.Ref{}, usagef("the object must be given as KIND/NAME, not %q", arg)
	}
	return gc.Ref{Kind: kind, Namespace: ns, Name: name}, nil
}

// resourceNames are the names a command line may give a kind by, as kubectl resolves them
// (lower case): the kind, the resource (plural), the singular and the short names, from the
// resource table for built-in kinds and from the CustomResourceDefinitions among the objects
// for custom resources; group is the kind's API group.
type resourceNames struct {
	group string
	names []string
}

// namesOf returns the names of apiVersion/kind; crds are the CRDs' spec.names by group and kind.
func namesOf(apiVersion, kind string, crds map[[2]string][]string) resourceNames {
	gv, _ := schema.ParseAPIVersion(apiVersion)
	rn := resourceNames{group: gv.Group, names: []string{strings.ToLower(kind)}}
	if k, err := schema.Builtin(gv.WithKind(kind)); err == nil {
		rn.names = append(rn.names, k.Resource, k.Singular)
		rn.names = append(rn.names, k.ShortNames...)
	} else if info, ok := gc.Builtin(gv.WithKind(kind)); ok {
		rn.names = append(rn.names, info.Resource)
	}
	if n, ok := crds[[2]string{gv.Group, kind}]; ok {
		rn.names = append(rn.names, n...)
	}
	plural, _ := schema.GuessResource(kind)
	return resourceNames{group: rn.group, names: append(rn.names, plural)}
}

// crdNames collects the spec.names (plural, singular, short names) of the CRDs among objs.
func crdNames(objs []gc.Object) map[[2]string][]string {
	out := map[[2]string][]string{}
	for _, o := range objs {
		if stringField(o, "kind") != "CustomResourceDefinition" {
			continue
		}
		spec, _ := o["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		group, _ := spec["group"].(string)
		kind, _ := names["kind"].(string)
		var list []string
		for _, k := range []string{"plural", "singular"} {
			if s, _ := names[k].(string); s != "" {
				list = append(list, strings.ToLower(s))
			}
		}
		short, _ := names["shortNames"].([]any)
		for _, sn := range short {
			if s, _ := sn.(string); s != "" {
				list = append(list, strings.ToLower(s))
			}
		}
		key := [2]string{group, kind}
		out[key] = append(out[key], list...)
	}
	return out
}

// matchesKind reports whether a type given on the command line (deploy, deployments,
// deployments.apps, Deployment, deployment.v1.apps) names apiVersion/kind.
func matchesKind(arg, apiVersion, kind string, crds map[[2]string][]string) bool {
	a := strings.ToLower(arg)
	group := ""
	if name, rest, found := strings.Cut(a, "."); found {
		a, group = name, rest
		// resource.version.group: the version is not part of the match
		if v, g, ok := strings.Cut(rest, "."); ok && isVersion(v) {
			group = g
		}
	}
	rn := namesOf(apiVersion, kind, crds)
	if group != "" && group != rn.group && !(rn.group == "" && group == "core") {
		return false
	}
	for _, n := range rn.names {
		if n != "" && a == n {
			return true
		}
	}
	return false
}

// findObject finds KIND/NAME (in the namespace, when given) among the objects.
func findObject(objs []gc.Object, t gc.Ref) (int, error) {
	var found []int
	crds := crdNames(objs)
	for i, o := range objs {
		r := refOf(o)
		if r.Name != t.Name || !matchesKind(t.Kind, r.APIVersion, r.Kind, crds) {
			continue
		}
		if t.Namespace != "" && r.Namespace != "" && r.Namespace != t.Namespace {
			continue
		}
		found = append(found, i)
	}
	switch len(found) {
	case 0:
		if t.Namespace != "" {
			return 0, fmt.Errorf("%s %q not found in namespace %q among the objects", t.Kind, t.Name, t.Namespace)
		}
		return 0, fmt.Errorf("%s %q not found among the objects", t.Kind, t.Name)
	case 1:
		return found[0], nil
	}
	var names []string
	for _, i := range found {
		names = append(names, refOf(objs[i]).String())
	}
	return 0, usagef("%s/%s is ambiguous (%s): give the namespace with -n", t.Kind, t.Name, strings.Join(names, ", "))
}

// gcInputs reads what delete and why-stuck share: the clock and the running
// controllers from their flags, the objects from the files, and the index of
// the object named KIND/NAME (in namespace ns) among them.
func (e *env) gcInputs(nowFlag, controllers string, files []string, maxState int64, arg, ns string) (time.Time, []string, []gc.Object, int, error) {
	now, ctrls, err := clockAndControllers(nowFlag, controllers)
	if err != nil {
		return now, nil, nil, 0, err
	}
	objs, err := e.readState(files, maxState)
	if err != nil {
		return now, nil, nil, 0, err
	}
	target, err := parseTarget(arg, ns)
	if err != nil {
		return now, nil, nil, 0, err
	}
	idx, err := findObject(objs, target)
	return now, ctrls, objs, idx, err
}

func clockAndControllers(nowFlag, controllers string) (time.Time, []string, error) {
	now := time.Now().UTC().Truncate(time.Second)
	if nowFlag != "" {
		t, err := time.Parse(time.RFC3339, nowFlag)
		if err != nil {
			return now, nil, usagef("invalid --now %q: %v", nowFlag, err)
		}
		now = t
	}
	ctrls := []string{}
	for _, c := range strings.Split(controllers, ",") {
		c = strings.TrimSpace(c)
		switch strings.ToLower(c) {
		case "":
		case "gc", "garbagecollector", "garbage-collector":
			ctrls = append(ctrls, gc.ControllerGC)
		case "ns", "namespace", "namespaces":
			ctrls = append(ctrls, gc.ControllerNamespace)
		default:
			return now, nil, usagef("unknown controller %q in --controllers: known are garbagecollector and namespace", c)
		}
	}
	return now, ctrls, nil
}

// deleteThroughRegistry sends the DELETE of objs[idx] through the request path (registry.Handle)
// over a world of objs, as user admin, and reads its answer: the status and body, and what the
// store does (the object removed, or written terminating, or left as it was). A dry run's
// answer is the dry run's; what it would store is the same request's without dryRun (Handle
// is a pure function of the world). A non-2xx answer is the error.
func deleteThroughRegistry(objs []gc.Object, idx int, policy gc.Propagation, grace int64, dryRun bool, now time.Time) (gc.DeleteResult, error) {
	world := make([]map[string]any, 0, len(objs)+1)
	var crds []map[string]any
	for _, o := range objs {
		if isCRD(o) {
			crds = append(crds, o)
		}
	}
	standIns := map[string]bool{}
	for _, o := range objs {
		if !isCRD(o) && !isBuiltin(o) {
			if c, _ := crdFor(crds, o); c == nil {
				// A custom resource whose CRD is not among the objects: served by a stand-in.
				key := stringField(o, "apiVersion") + "/" + stringField(o, "kind")
				if !standIns[key] {
					standIns[key] = true
					world = append(world, standInCRD(o, metaStr(o, "namespace") != "", false))
				}
			}
		}
		st, err := stored(o, "")
		if err != nil {
			return gc.DeleteResult{}, err
		}
		world = append(world, st)
	}
	target := objs[idx]
	crd, _ := crdFor(crds, target)
	if crd == nil && !isBuiltin(target) {
		crd = standInCRD(target, metaStr(target, "namespace") != "", false)
	}
	t, err := endpointOf(target, crd, metaStr(target, "namespace"), true, "")
	if err != nil {
		return gc.DeleteResult{}, err
	}
	query := url.Values{"propagationPolicy": {string(policy)}}
	if grace >= 0 {
		query.Set("gracePeriodSeconds", strconv.FormatInt(grace, 10))
	}
	send := func(dry bool) (registry.Response, []registry.Write, error) {
		w, err := newCLIWorld(world, randomUID)
		if err != nil {
			return registry.Response{}, nil, err
		}
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		if dry {
			q.Set("dryRun", "All")
		}
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "DELETE", Path: t.Path(), Query: q,
			Now: now, User: registry.User{Name: "admin", Groups: []string{"system:masters", "system:authenticated"}}})
		if err == nil {
			err = responseError(resp)
		}
		return resp, writes, err
	}
	resp, writes, err := send(false)
	if err != nil {
		return gc.DeleteResult{}, err
	}
	if dryRun {
		if resp, _, err = send(true); err != nil {
			return gc.DeleteResult{}, err
		}
	}
	res := gc.DeleteResult{Code: resp.Code, Response: resp.Object, Object: target}
	for _, wr := range writes {
		if wr.Resource.Resource != t.Resource.Resource || wr.Name != t.Name || wr.Namespace != t.Namespace {
			continue
		}
		res.Changed = true
		if wr.Delete {
			res.Removed, res.Object = true, nil
		} else {
			res.Object = wr.Object
		}
	}
	if dryRun {
		res.Object = target
	}
	return res, nil
}
