package cli

import (
	"time"

	"github.com/writepath/writepath/managedfields"
)

// runOwners is `writepath owners`: the object's managedFields as a table.
func runOwners(e *env, args []string) int {
	var files fileList
	var o output
	f := e.flags("owners -f LIVE [--field PATH] [-o wide|yaml|json|name|jsonpath=...|go-template=...] [--rename OLD=NEW [--config CONFIG] [--subresource SUB] [--crd CRD] [--now TIME]]",
		`Show who owns which fields of an object: one row per metadata.managedFields entry with
MANAGER OPERATION APIVERSION TIME SUBRESOURCE FIELDS (the leaf fields it owns, in
structured-merge-diff notation: .spec.replicas, .spec.template.spec.containers[name="app"].image).

With --field only the managers owning that field, or something below it, are shown. The
managedFields are checked as the apiserver decodes them; an entry it would reject is an error.
-o wide adds SHARED WITH, the other managers owning some of the same fields (shared ownership:
an apply that drops such a field leaves it to them). -o yaml, json, jsonpath and go-template
print the owners as data: {object: {apiVersion, kind, namespace, name}, fields: [{path, owners:
[{manager, operation, apiVersion, time, subresource}]}]}, every field (non-leaf list elements
too) in field-set order; -o name prints the object's name.

With --rename OLD=NEW: the plan of renaming the server-side apply field manager OLD (its Apply
entry, of --subresource) to NEW. NEW applies CONFIG (--config), or by default what OLD applied
(the live values of the fields OLD owns). It prints the fields OLD owns (what moving its
managedFields entry to NEW, before NEW's first apply, transfers), the conflicts NEW's apply
would still get after the move (fields of other managers), the conflicts NEW's first apply
would get without the move (with owners, values and what forcing takes), and the
fields NEW would then only share with OLD after forcing: OLD keeps owning them, so removing
them from NEW's configuration later would not delete them. Exit 0 whatever the plan.`,
		`  # Who owns spec.replicas of a Deployment
  writepath owners -f testdata/apply/cli/web-live.yaml --field .spec.replicas

  # Every field's owners, one line each
  writepath owners -f testdata/apply/cli/web-live.yaml -o jsonpath='{range .fields[*]}{.path}{"\t"}{.owners[*].manager}{"\n"}{end}'

  # What renaming the applier alice to bob changes, when bob applies web-config.yaml
  writepath owners -f testdata/apply/cli/web-live.yaml --rename alice=bob --config testdata/apply/cli/web-config.yaml`)
	f.Var(&files, "f", "`FILE` with the object (- for stdin)")
	path := f.String("field", "", "only the owners of this `PATH` (e.g. .spec.replicas)")
	f.Var(&o, "o", "output `FORMAT`: wide, yaml, json, name, jsonpath=TEMPLATE, go-template=TEMPLATE (default: the table)")
	f.tables()
	rename := f.String("rename", "", "plan renaming the Apply field manager `OLD=NEW`")
	var rf renameFlags
	f.StringVar(&rf.config, "config", "", "with --rename: the configuration `FILE` NEW applies (default: OLD's applied fields and their live values)")
	f.StringVar(&rf.subresource, "subresource", "", "with --rename: the `SUBRESOURCE` of OLD's Apply entry")
	f.Var(&rf.crd, "crd", "with --rename, custom resources: the CustomResourceDefinition `FILE`"+crdUsage)
	f.StringVar(&rf.now, "now", "", "with --rename: the `TIME` (RFC 3339) of NEW's apply (default: the current time)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(files) != 1 {
		return e.fail(usagef("give the object with exactly one -f FILE"))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	if rf.crds, err = e.readCRDs(rf.crd); err != nil {
		return e.fail(err)
	}
	objs, rf.crds = takeCRDs(objs, rf.crds)
	if len(objs) != 1 {
		return e.fail(usagef("expected one object, %s has %d", files[0], len(objs)))
	}
	e.warnNoManagedFields(files[0], objs[0])
	entries, _, err := managedfields.FromObject(objs[0])
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	if _, err := managedfields.Decode(entries); err != nil {
		return e.fail(&inputError{err: err})
	}
	if *rename != "" {
		if *path != "" {
			return e.fail(usagef("--field and --rename cannot be used together"))
		}
		return e.runRename(objs[0], *rename, rf)
	}
	if rf.given() {
		return e.fail(usagef("--config, --subresource, --crd and --now go with --rename"))
	}
	switch o {
	case "":
		err = managedfields.WriteTable(e.stdout, objs[0], *path)
	case "wide":
		err = managedfields.WriteWideTable(e.stdout, objs[0], *path)
	case "name":
		err = e.printNames(objs[0])
	default:
		var v map[string]any
		if v, err = ownersValue(objs[0], *path); err == nil {
			err = e.printValue(o, v)
		}
	}
	if err != nil {
		return e.fail(err)
	}
	return exitOK
}

// ownersValue is owners' answer as data, for -o yaml, json and the templates.
func ownersValue(obj map[string]any, path string) (map[string]any, error) {
	var fields []managedfields.FieldOwners
	var err error
	if path == "" {
		fields, err = managedfields.Owners(obj)
	} else {
		fields, err = managedfields.OwnersOf(obj, path)
	}
	if err != nil {
		return nil, err
	}
	md, _ := obj["metadata"].(map[string]any)
	ref := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": md["name"]}
	if ns, ok := md["namespace"].(string); ok && ns != "" {
		ref["namespace"] = ns
	}
	out := make([]any, 0, len(fields))
	for _, fo := range fields {
		owners := make([]any, 0, len(fo.Owners))
		for _, ow := range fo.Owners {
			m := map[string]any{"manager": ow.Manager, "operation": string(ow.Operation), "apiVersion": ow.APIVersion}
			if ow.Time != nil {
				m["time"] = ow.Time.UTC().Format(time.RFC3339)
			}
			if ow.Subresource != "" {
				m["subresource"] = ow.Subresource
			}
			owners = append(owners, m)
		}
		out = append(out, map[string]any{"path": fo.Path, "owners": owners})
	}
	return map[string]any{"object": ref, "fields": out}, nil
}
