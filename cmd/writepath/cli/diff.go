package cli

import (
	"fmt"

	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
)

// runDiff is `writepath diff`: the patch that turns one object into another.
func runDiff(e *env, args []string) int {
	var files fileList
	var typ patchType = "strategic"
	f := e.flags("diff --type json|merge|strategic -f OLD -f NEW",
		`Print the patch that turns OLD into NEW, as the Kubernetes clients compute it: --type json a
minimal JSON Patch (what a mutating webhook returns), merge a JSON merge patch
(json-patch's CreateMergePatch), strategic (the default) a strategic merge patch with
$setElementOrder and $deleteFromPrimitiveList directives (strategicpatch's two-way patch; built-in
kinds only). The patch is printed as JSON on one line; "{}" or "[]" when the objects are equal.`,
		`  # What changed between two versions of a Deployment, as kubectl would patch it
  writepath diff -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml`)
	f.Var(&typ, "type", "patch `TYPE`: json, merge or strategic")
	f.Var(&files, "f", "`FILE` with the old, then the new object (give -f twice)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(files) != 2 {
		return e.fail(usagef("give the old and the new object with -f OLD -f NEW"))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	if len(objs) != 2 {
		return e.fail(usagef("the two files must hold one object each, found %d objects", len(objs)))
	}
	var out []byte
	switch typ {
	case "json":
		out, err = patch.CreateJSONPatch(objs[0], objs[1])
	case "merge":
		out, err = merge.CreateMergePatch(objs[0], objs[1])
	default:
		gvk, kind, kerr := kindOf(objs[1])
		if kerr != nil {
			return e.fail(kerr)
		}
		if kind == nil {
			return e.fail(fmt.Errorf("%s has no strategic merge patch metadata (not a built-in kind); use --type merge", gvk))
		}
		meta, merr := merge.KindMeta(kind)
		if merr != nil {
			return e.fail(merr)
		}
		out, err = merge.CreateStrategic(objs[0], objs[1], meta)
	}
	if err != nil {
		return e.fail(err)
	}
	fmt.Fprintf(e.stdout, "%s\n", out)
	return exitOK
}
