package cli

import (
	"fmt"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
)

// runDiff is `writepath diff`: the patch that turns one object into another.
func runDiff(e *env, args []string) int {
	var files fileList
	var typ patchType
	var o output
	f := e.flags("diff [--type json|merge|strategic] -f OLD -f NEW [-o json|yaml]",
		`Print the patch that turns OLD into NEW, as the Kubernetes clients compute it: --type json a
minimal JSON Patch (what a mutating webhook returns), merge a JSON merge patch
(json-patch's CreateMergePatch), strategic a strategic merge patch with $setElementOrder and
$deleteFromPrimitiveList directives (strategicpatch's two-way patch; built-in kinds only).
Without --type, as kubectl chooses: strategic for built-in kinds, merge for custom resources.
The patch is printed as JSON on one line ("{}" or "[]" when the objects are equal), or
indented JSON or YAML with -o.

Exit status, as kubectl diff's: 0 the objects are equal, 1 they differ, 2 bad usage or
unreadable input.`,
		`  # What changed between two versions of a Deployment, as kubectl would patch it
  writepath diff -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml`)
	f.Var(&typ, "type", "patch `TYPE`: json, merge or strategic (default: strategic for built-in kinds, merge for custom resources)")
	f.Var(&files, "f", "`FILE` with the old, then the new object (give -f twice)")
	f.Var(&o, "o", "output format: `json|yaml` (default: JSON on one line)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if err := typ.check(); err != nil {
		return diffFail(e, err)
	}
	if f.NArg() > 0 {
		return diffFail(e, usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(files) != 2 {
		return diffFail(e, usagef("give the old and the new object with -f OLD -f NEW"))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return diffFail(e, err)
	}
	if len(objs) != 2 {
		return diffFail(e, usagef("the two files must hold one object each, found %d objects", len(objs)))
	}
	if typ == "" {
		typ = "strategic"
		if _, kind, err := kindOf(objs[1]); err == nil && kind == nil {
			typ = "merge" // kubectl's choice for a kind without Go types
		}
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
			return diffFail(e, kerr)
		}
		if kind == nil {
			return diffFail(e, fmt.Errorf("%s has no strategic merge patch metadata (not a built-in kind); use --type merge", gvk))
		}
		meta, merr := merge.KindMeta(kind)
		if merr != nil {
			return diffFail(e, merr)
		}
		out, err = merge.CreateStrategic(objs[0], objs[1], meta)
	}
	if err != nil {
		return diffFail(e, err)
	}
	if o != "" {
		v, err := codec.DecodeValue(out)
		if err != nil {
			return diffFail(e, err)
		}
		if err := e.printValue(o, v); err != nil {
			return diffFail(e, err)
		}
	} else {
		fmt.Fprintf(e.stdout, "%s\n", out)
	}
	if s := string(out); s == "{}" || s == "[]" {
		return exitOK
	}
	return exitNegative // kubectl diff: 1 when the objects differ
}

// diffFail reports err as every verb does, with kubectl diff's exit status: an error is always
// above 1, which means "the objects differ".
func diffFail(e *env, err error) int {
	if code := e.fail(err); code != exitNegative {
		return code
	}
	return exitUsage
}
