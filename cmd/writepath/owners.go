package main

import (
	"github.com/writepath/writepath/managedfields"
)

// runOwners is `writepath owners`: the object's managedFields as a table.
func runOwners(e *env, args []string) int {
	var files fileList
	f := e.flags("owners -f LIVE [--field PATH]",
		`Show who owns which fields of an object: one row per metadata.managedFields entry with
MANAGER OPERATION APIVERSION TIME SUBRESOURCE FIELDS (the leaf fields it owns, in
structured-merge-diff notation: .spec.replicas, .spec.template.spec.containers[name="app"].image).

With --field only the managers owning that field, or something below it, are shown. The
managedFields are checked as the apiserver decodes them; an entry it would reject is an error.`,
		`  # Who owns spec.replicas of a Deployment
  writepath owners -f testdata/apply/cli/web-live.yaml --field .spec.replicas`)
	f.Var(&files, "f", "`FILE` with the object (- for stdin)")
	path := f.String("field", "", "only the owners of this `PATH` (e.g. .spec.replicas)")
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
	if len(objs) != 1 {
		return e.fail(usagef("expected one object, %s has %d", files[0], len(objs)))
	}
	entries, _, err := managedfields.FromObject(objs[0])
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	if _, err := managedfields.Decode(entries); err != nil {
		return e.fail(&inputError{err: err})
	}
	if err := managedfields.WriteTable(e.stdout, objs[0], *path); err != nil {
		return e.fail(err)
	}
	return exitOK
}
