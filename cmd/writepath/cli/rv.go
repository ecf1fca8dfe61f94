package cli

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/versions"
)

func runRV(e *env, args []string) int {
	f := e.flags("rv compare A B | rv check -f STORED -f NEW",
		`Work with resourceVersions.

  compare A B   order two resourceVersions as KEP-5504 lets clients do it
  check         would kube-apiserver accept an update of STORED into NEW on
                optimistic concurrency (preconditions, resourceVersion)?`,
		`  writepath rv compare 99 100
  writepath rv check -f testdata/examples/deployment.yaml -f testdata/examples/deployment-stale.yaml`)
	f.SetInterspersed(false) // the subcommand parses the rest
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() == 0 {
		return e.fail(usagef("missing subcommand: compare or check"))
	}
	switch f.Arg(0) {
	case "compare":
		e.verb = "rv compare"
		return runRVCompare(e, f.Args()[1:])
	case "check":
		e.verb = "rv check"
		return runRVCheck(e, f.Args()[1:])
	}
	return e.fail(usagef("unknown subcommand %q: want compare or check", f.Arg(0)))
}

func comparatorFor(name string) (versions.Comparator, error) {
	switch name {
	case "decimal":
		return versions.Decimal{}, nil
	case "equality":
		return versions.EqualityOnly{}, nil
	case "decimal-or-equality":
		return versions.DecimalOrEquality{}, nil
	}
	return nil, usagef("unknown comparator %q: want decimal, equality or decimal-or-equality", name)
}

func runRVCompare(e *env, args []string) int {
	var o output
	f := e.flags("rv compare A B [--comparator decimal|equality|decimal-or-equality] [-o yaml|json]",
		`Compare two resourceVersions. kube-apiserver's versions are decimal (KEP-5504): digits only,
no leading zero, any length; the shorter is older, equal lengths compare lexically. Prints
"A < B", "A = B" or "A > B"; a version that is not well formed is bad input (exit 2).
Servers with opaque versions only support equality (--comparator equality).`,
		`  writepath rv compare 99 100
  writepath rv compare --comparator equality etag-1 etag-2`)
	name := f.String("comparator", "decimal", "`NAME`: decimal (kube-apiserver), equality (opaque versions) or decimal-or-equality")
	f.Var(&o, "o", "output format: `yaml|json` (default: text)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() != 2 {
		return e.fail(usagef("want two resourceVersions, got %d arguments", f.NArg()))
	}
	cmp, err := comparatorFor(*name)
	if err != nil {
		return e.fail(err)
	}
	a, b := f.Arg(0), f.Arg(1)
	n, err := cmp.Compare(a, b)
	ordered := true
	if errors.Is(err, versions.ErrNotOrdered) {
		ordered, err = false, nil
	}
	if err != nil {
		return e.fail(&inputError{err: err}) // a malformed version is bad input, not a negative answer
	}
	if o != "" {
		res := map[string]any{"a": a, "b": b, "comparator": *name, "ordered": ordered}
		if ordered {
			res["result"] = int64(n)
		}
		if err := e.printValue(o, res); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	sign := map[int]string{-1: "<", 0: "=", 1: ">"}[n]
	if !ordered {
		fmt.Fprintf(e.stdout, "%s != %s (not ordered: only equality is defined)\n", a, b)
		return exitOK
	}
	fmt.Fprintf(e.stdout, "%s %s %s\n", a, sign, b)
	return exitOK
}

func runRVCheck(e *env, args []string) int {
	var files fileList
	var o output
	f := e.flags("rv check -f STORED -f NEW [--crd FILE] [-o yaml|json|jsonpath=...]",
		`Check an update of the stored object STORED into NEW the way kube-apiserver does before
anything else: the UID of NEW is a precondition; a resourceVersion must match the stored one
(a stale one is 409 Conflict); none ("" or "0") is accepted only where the resource allows
unconditional updates (most built-ins; not custom resources, Leases, PodDisruptionBudgets, ...).
With -o the answer is data: {object, accepted, unconditional, resourceVersion}; a refusal is the
server's metav1.Status (on stdout with -o json or yaml, as every refused write).`,
		`  writepath rv check -f testdata/examples/deployment.yaml -f testdata/examples/deployment-stale.yaml`)
	f.Var(&files, "f", "`FILE` with the objects (repeatable; - for stdin); the first object is the stored one, the second the update")
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "custom resources: the CustomResourceDefinition `FILE`, for the plural name in messages"+crdUsage)
	f.Var(&o, "o", "output `FORMAT`: yaml, json, jsonpath=TEMPLATE, go-template=TEMPLATE (default: text)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
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
	if len(objs) != 2 {
		return e.fail(usagef("want two objects (stored, new), got %d", len(objs)))
	}
	s, err := versions.StrategyFor(objs[0], versions.CustomResourceOptions{})
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	if err := requireStored(objs[0]); err != nil {
		return e.fail(err)
	}
	if s.Custom && len(crds) > 0 {
		if s, err = strategyFromCRD(crds, objs[0]); err != nil {
			return e.fail(err)
		}
	}
	d, err := versions.CheckUpdate(s, objs[0], objs[1])
	if err != nil {
		return e.fail(err)
	}
	name := objectName(s, objs[0])
	if o != "" {
		v := map[string]any{"object": name, "accepted": true, "unconditional": d.Unconditional, "resourceVersion": d.ResourceVersion}
		if err := e.printValue(o, v); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	if d.Unconditional {
		fmt.Fprintf(e.stdout, "%s: update accepted unconditionally (no resourceVersion sent; applies to %s)\n", name, d.ResourceVersion)
	} else {
		fmt.Fprintf(e.stdout, "%s: update accepted (resourceVersion %s is current)\n", name, d.ResourceVersion)
	}
	return exitOK
}
