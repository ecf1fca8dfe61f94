package cli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/versions"
)

// objectName renders an object as kubectl does: "deployment.apps/web",
// "configmap/cm1".
func objectName(s versions.Strategy, obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if name == "" {
		name = "<unnamed>"
	}
	kind := strings.ToLower(s.Kind)
	if s.Group != "" {
		kind += "." + s.Group
	}
	return kind + "/" + name
}

func runGeneration(e *env, args []string) int {
	var files fileList
	var o output
	f := e.flags("generation -f OLD -f NEW [-f NEW2 ...] [--subresource status|scale|resize|ephemeralcontainers|binding] [--crd-status-subresource] [--crd-scale-path PATH] [-o yaml|json]",
		`Predict metadata.generation after a write, with the reason, as kube-apiserver 1.37 sets it.

The first object is the stored one; each following object is a write of the next state (an
update of the main resource, or of --subresource), checked for optimistic concurrency first.
A single object is a create, or with --delete a deletion that leaves the object in place
(pending finalizers or a graceful period). Objects are read as the server sees them: after defaulting, in
the same API version (kubectl get -o yaml output, edited, is right). For /scale, NEW may be
the full object or an autoscaling/v1 Scale.

Built-in kinds use their REST strategy's rule (Deployment: spec or annotations; most: spec;
ConfigMap and others: never). Other kinds are custom resources: any change outside metadata
bumps, and outside status too with --crd-status-subresource.`,
		`  # Scale a Deployment by editing spec.replicas: generation 1 -> 2
  writepath generation -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml

  # The same change through /scale
  writepath generation --subresource scale -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml`)
	f.Var(&files, "f", "`FILE` with the objects (repeatable; - for stdin; multi-document YAML or JSON)")
	sub := f.String("subresource", "", "write through this `SUBRESOURCE`: status, scale, resize, ephemeralcontainers, binding")
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "custom resources: the CustomResourceDefinition `FILE`, for the plural name and the subresources of the object's version"+crdUsage)
	crdStatus := f.Bool("crd-status-subresource", false, "custom resources: the CRD version enables the status subresource")
	crdScale := f.String("crd-scale-path", "", "custom resources: the CRD's scale specReplicasPath (enables /scale), e.g. .spec.replicas")
	del := f.Bool("delete", false, "the write is a DELETE of the (single) object that leaves it in place (finalizers, or a grace period)")
	list := f.Bool("rules", false, "print the rules of every built-in resource (generation, unconditional update, subresources) and exit")
	f.Var(&o, "o", "output format: `yaml|json|jsonpath=...|go-template=...` (default: text); with --rules also wide (adds KIND and RULE)")
	f.tables()
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if *list {
		return e.printRules(o)
	}
	if o == "wide" {
		return e.fail(usagef("-o wide goes with --rules (the only table generation prints)"))
	}
	if *del && *sub != "" {
		return e.fail(usagef("--delete and --subresource cannot be combined"))
	}
	if len(files) == 0 {
		return e.fail(usagef("no input: give the objects with -f FILE (or -f - for stdin)"))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	crds, err := e.readCRDs(crdFiles)
	if err != nil {
		return e.fail(err)
	}
	objs, crds = takeCRDs(objs, crds)
	if len(objs) == 0 {
		return e.fail(&inputError{err: errors.New("no objects passed to generation")})
	}
	opts := versions.CustomResourceOptions{StatusSubresource: *crdStatus, SpecReplicasPath: *crdScale}
	s, err := versions.StrategyFor(objs[0], opts)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	if s.Custom {
		switch {
		case len(crds) > 0:
			s, err = strategyFromCRD(crds, objs[0])
			if err != nil {
				return e.fail(err)
			}
		case !*crdStatus && *crdScale == "":
			fmt.Fprintf(e.stderr, "Warning: %s is not a built-in kind: assuming a custom resource without status or scale subresources (pass --crd FILE, or --crd-status-subresource)\n", s.GroupKind())
		}
	}
	if !s.HasSubresource(*sub) {
		hint := ""
		if s.Custom && (*sub == "status" || *sub == "scale") {
			hint = " (use --crd-status-subresource or --crd-scale-path for a custom resource that has it)"
		}
		return e.fail(usagef("%s has no %q subresource%s", s.GroupResource(), *sub, hint))
	}

	var steps []map[string]any
	var lines []string
	name := objectName(s, objs[0])
	if *del {
		if len(objs) != 1 {
			return e.fail(usagef("--delete takes one object (the stored one), got %d", len(objs)))
		}
		g, err := versions.GenerationOnDelete(s, objs[0])
		if err != nil {
			return e.fail(&inputError{err: err})
		}
		steps = append(steps, stepResult(name, "delete", "", g))
		change := fmt.Sprintf("generation %d -> %d", g.Old, g.New)
		if !g.Bumped() {
			change = fmt.Sprintf("generation stays %d", g.New)
		}
		lines = append(lines, fmt.Sprintf("%s: marked for deletion, %s\n  %s", name, change, g.Reason))
	} else if len(objs) == 1 {
		g, err := versions.GenerationOnCreate(s, objs[0])
		if err != nil {
			return e.fail(&inputError{err: err})
		}
		steps = append(steps, stepResult(name, "create", "", g))
		lines = append(lines, fmt.Sprintf("%s: created with generation %d\n  %s", name, g.New, g.Reason))
	}
	stored := objs[0]
	if len(objs) > 1 && !*del {
		if err := requireStored(stored); err != nil {
			return e.fail(err)
		}
	}
	for i, next := range objs[1:] {
		if err := sameObject(objs[0], next, *sub == "scale"); err != nil {
			return e.fail(usagef("object %d %v", i+2, err))
		}
		written, err := writeFor(s, stored, next, *sub)
		if err != nil {
			return e.fail(&inputError{err: fmt.Errorf("object %d: %w", i+2, err)})
		}
		if _, err := versions.CheckUpdate(s, stored, written); err != nil {
			e.flushText(lines, o)
			return e.fail(err)
		}
		g, err := versions.NextGeneration(s, stored, written, *sub)
		if err != nil {
			return e.fail(&inputError{err: fmt.Errorf("object %d: %w", i+2, err)})
		}
		target := name
		if *sub != "" {
			target += " (" + *sub + ")"
		}
		steps = append(steps, stepResult(name, "update", *sub, g))
		change := fmt.Sprintf("generation %d -> %d", g.Old, g.New)
		if !g.Bumped() {
			change = fmt.Sprintf("generation stays %d", g.New)
		}
		lines = append(lines, fmt.Sprintf("%s: %s\n  %s", target, change, g.Reason))
		// The next write applies to what the server stored.
		stored, err = storedAfter(stored, written, *sub, g.New)
		if err != nil {
			return e.fail(&inputError{err: err})
		}
	}
	if o != "" {
		items := make([]any, len(steps))
		for i, st := range steps {
			items[i] = st
		}
		if err := e.printValue(o, map[string]any{"kind": "GenerationList", "items": items}); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	e.flushText(lines, o)
	return exitOK
}

// flushText prints the text lines computed so far (before a failure, too).
func (e *env) flushText(lines []string, o output) {
	if o != "" {
		return
	}
	for _, l := range lines {
		fmt.Fprintln(e.stdout, l)
	}
}

// printRules prints the built-in strategy table.
func (e *env) printRules(o output) int {
	var items []any
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0) // kubectl's table layout
	header := "RESOURCE\tON CREATE\tUNCONDITIONAL UPDATE\tSUBRESOURCES\tGENERATION BUMPED BY"
	if o == "wide" {
		header += "\tKIND\tRULE"
	}
	fmt.Fprintln(tw, header)
	for _, s := range versions.Builtins() {
		p := s.Generation
		onCreate := "kept"
		if p.SetOnCreate {
			onCreate = "1"
		}
		var bumps []string
		if p.AllExcept != nil {
			bumps = append(bumps, "all but "+strings.Join(p.AllExcept, ","))
		}
		bumps = append(bumps, p.Compare...)
		if len(p.Ignore) > 0 {
			bumps = append(bumps, "(not "+strings.Join(p.Ignore, ",")+")")
		}
		if len(bumps) == 0 {
			bumps = []string{"-"}
		}
		var subs []string
		for _, sub := range []string{"status", "scale"} {
			if s.HasSubresource(sub) {
				subs = append(subs, sub)
			}
		}
		subs = append(subs, s.ExtraSubresources...)
		subs = append(subs, s.BypassSubresources...)
		uncond := fmt.Sprint(s.AllowUnconditionalUpdate)
		if len(s.UnconditionalUpdateVersions) > 0 {
			uncond += " (" + strings.Join(s.UnconditionalUpdateVersions, ",") + ")"
		}
		subText := strings.Join(subs, ",")
		if subText == "" {
			subText = "-"
		}
		if o == "wide" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.GroupResource(), onCreate, uncond, subText, strings.Join(bumps, ", "), s.Kind, p.Why)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.GroupResource(), onCreate, uncond, subText, strings.Join(bumps, ", "))
		}
		item := map[string]any{"resource": s.GroupResource(), "kind": s.Kind, "setOnCreate": p.SetOnCreate,
			"allowUnconditionalUpdate": s.AllowUnconditionalUpdate, "rule": p.Why}
		if len(subs) > 0 {
			item["subresources"] = toAny(subs)
		}
		items = append(items, item)
	}
	if o != "" && o != "wide" {
		if err := e.printValue(o, map[string]any{"kind": "GenerationRuleList", "items": items}); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	if err := tw.Flush(); err != nil {
		return e.fail(err)
	}
	fmt.Fprint(e.stdout, b.String())
	return exitOK
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// sameObject checks that next is a write of the stored object: same apiVersion,
// kind, namespace and name (a Scale only needs the name).
func sameObject(stored, next map[string]any, scale bool) error {
	str := func(obj map[string]any, keys ...string) string {
		var cur any = obj
		for _, k := range keys {
			m, _ := cur.(map[string]any)
			cur = m[k]
		}
		s, _ := cur.(string)
		return s
	}
	checks := [][]string{{"metadata", "name"}}
	if !(scale && next["kind"] == "Scale") {
		checks = append(checks, []string{"apiVersion"}, []string{"kind"}, []string{"metadata", "namespace"})
	}
	for _, c := range checks {
		if a, b := str(stored, c...), str(next, c...); a != b {
			return fmt.Errorf("is not a write of the first object: %s is %q, not %q", strings.Join(c, "."), b, a)
		}
	}
	return nil
}

// strategyFromCRD picks obj's CustomResourceDefinition among crds (crdFor) and returns the strategy of
// obj's version: its plural and subresources.
func strategyFromCRD(crds []map[string]any, obj map[string]any) (versions.Strategy, error) {
	crd, err := crdFor(crds, obj)
	if err != nil {
		return versions.Strategy{}, err
	}
	bad := func(format string, args ...any) (versions.Strategy, error) {
		return versions.Strategy{}, &inputError{err: fmt.Errorf("--crd %s: "+format, append([]any{crdList(crds)}, args...)...)}
	}
	docs := []map[string]any{crd}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	group, version, _ := strings.Cut(apiVersion, "/")
	spec, _ := docs[0]["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	plural, _ := names["plural"].(string)
	if spec["group"] != group || names["kind"] != kind || plural == "" {
		return bad("it defines %v/%v, not %s %s", spec["group"], names["kind"], group, kind)
	}
	vs, _ := spec["versions"].([]any)
	for _, v := range vs {
		vm, _ := v.(map[string]any)
		if vm["name"] != version {
			continue
		}
		subs, _ := vm["subresources"].(map[string]any)
		opts := versions.CustomResourceOptions{}
		if st, ok := subs["status"]; ok && st != nil {
			opts.StatusSubresource = true
		}
		if sc, ok := subs["scale"].(map[string]any); ok {
			opts.SpecReplicasPath, _ = sc["specReplicasPath"].(string)
		}
		return versions.CustomResource(group, plural, kind, opts), nil
	}
	return bad("no version %q", version)
}

// writeFor returns the object the write sends. For /scale only the replica
// count is taken — from an autoscaling/v1 Scale's spec.replicas, or from the
// given object at the scale path — and set on the stored object, as the scale
// handler does; its resourceVersion is the Scale's (or the given object's) when
// set, else the stored one.
func writeFor(s versions.Strategy, stored, next map[string]any, sub string) (map[string]any, error) {
	if sub != "scale" {
		return next, nil
	}
	path := strings.Split(s.SpecReplicasPath, ".")
	var replicas any = int64(0) // an absent replica count is 0 in a Scale
	if next["kind"] == "Scale" {
		path := value.NewPath("spec", "replicas")
		if r, found, err := value.Get(next, path); err == nil && found {
			replicas = r
		}
	} else if r, found, err := value.Get(next, value.NewPath(path...)); err == nil && found {
		replicas = r
	}
	out, err := value.SetMap(stored, value.NewPath(path...), replicas)
	if err != nil {
		return nil, err
	}
	if md, _ := next["metadata"].(map[string]any); md != nil {
		if rv, ok := md["resourceVersion"].(string); ok && rv != "" {
			return value.SetMap(out, value.NewPath("metadata", "resourceVersion"), rv)
		}
	}
	return out, nil
}

// storedAfter is the object the server keeps after the write: what was
// written with the new generation, except that a /status write only changes
// status.
func storedAfter(stored, written map[string]any, sub string, gen int64) (map[string]any, error) {
	base := written
	if sub == "status" {
		var err error
		if st, ok := written["status"]; ok {
			base, err = value.SetMap(stored, value.NewPath("status"), st)
		} else {
			base = make(map[string]any, len(stored))
			for k, v := range stored {
				if k != "status" {
					base[k] = v
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return value.SetMap(base, value.NewPath("metadata", "generation"), gen)
}

func stepResult(name, op, sub string, g versions.GenerationChange) map[string]any {
	changed := make([]any, len(g.Changed))
	for i, c := range g.Changed {
		changed[i] = c
	}
	m := map[string]any{
		"object":        name,
		"operation":     op,
		"oldGeneration": g.Old,
		"newGeneration": g.New,
		"bumped":        g.Bumped(),
		"reason":        g.Reason,
	}
	if sub != "" {
		m["subresource"] = sub
	}
	if len(changed) > 0 {
		m["changed"] = changed
	}
	return m
}
