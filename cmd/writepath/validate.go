package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

func runValidate(e *env, args []string) int {
	var o output
	f := e.flags("validate --crd CRD [--old-crd STORED_CRD] -f OBJECT [--old OLD [--subresource status]] [--field-validation Strict|Warn|Ignore] [-o yaml|json]",
		`Validate a custom object against its CustomResourceDefinition as kube-apiserver 1.37 does on a
create (or, with --old, an update): unknown fields are pruned (and reported as the
field-validation level asks), metadata is normalised, defaults are applied, then the object is
validated (OpenAPI schema, list sets and maps, metadata, embedded resources; on update with
validation ratcheting: unchanged invalid values pass), then the x-kubernetes-validations (CEL) rules.

Prints the object as the server would store it, then the warnings ("Warning: ..."), then the
errors as the server's 422 answer. Exit status 1 if the write would be refused.`,
		`  # Create: prune, default and validate
  writepath validate --crd testdata/examples/crontab-crd.yaml -f testdata/examples/crontab.yaml

  # Update with ratcheting, unknown fields as warnings
  writepath validate --crd crd.yaml -f new.yaml --old stored.yaml --field-validation Warn`)
	crdFile := f.String("crd", "", "the CustomResourceDefinition `FILE` (apiextensions.k8s.io/v1)")
	oldCRDFile := f.String("old-crd", "", "the stored CustomResourceDefinition `FILE`: check the CRD's rules as an update of it")
	objFile := f.String("f", "", "`FILE` with the object to write (- for stdin)")
	oldFile := f.String("old", "", "`FILE` with the stored object: validate an update")
	sub := f.String("subresource", "", "`SUBRESOURCE` written: status (needs --old); default the main resource")
	fv := f.String("field-validation", "Strict", "`LEVEL` for unknown and duplicate fields: Strict, Warn or Ignore")
	f.Var(&o, "o", "output format: `yaml|json` (default yaml)")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if *crdFile == "" || *objFile == "" {
		return e.fail(usagef("both --crd FILE and -f FILE are required"))
	}
	if *sub != "" && (*sub != "status" || *oldFile == "") {
		return e.fail(usagef("--subresource: only status is supported, and it needs --old"))
	}
	level, err := schema.ParseFieldValidation(*fv)
	if err != nil || level == "" {
		return e.fail(usagef("invalid --field-validation %q: must be Strict, Warn or Ignore", *fv))
	}
	readCRD := func(flag, file string) (*schema.CRD, error) {
		crdDocs, err := e.readObjects([]string{file})
		if err != nil {
			return nil, err
		}
		if len(crdDocs) != 1 {
			return nil, usagef("--%s %s: want one CustomResourceDefinition, got %d documents", flag, file, len(crdDocs))
		}
		return schema.FromCRD(crdDocs[0])
	}
	crd, err := readCRD("crd", *crdFile)
	if err != nil {
		return e.fail(err)
	}
	var oldCRD *schema.CRD
	if *oldCRDFile != "" {
		if oldCRD, err = readCRD("old-crd", *oldCRDFile); err != nil {
			return e.fail(err)
		}
	}
	// The apiserver refuses a CRD whose x-kubernetes-validations do not compile or cost too
	// much, with the same 422 as for its schema errors (on a CRD update, with the relaxations
	// for the stored CRD's expressions and unchanged schemas).
	if errs := cel.ValidateCRDUpdate(crd, oldCRD, cel.Options{}); len(errs) > 0 {
		return e.fail(status.Invalid(status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, crd.Name, errs))
	}
	// Duplicates are decoded as the apiserver does under Warn and Ignore (last one wins) and
	// reported according to the level.
	data, err := e.readFile(*objFile)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	docs, err := codec.Options{AllowDuplicates: true}.DecodeStream(data)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	if len(docs) != 1 {
		return e.fail(usagef("-f %s: want one object, got %d documents", *objFile, len(docs)))
	}
	obj, ok := docs[0].Value.(map[string]any)
	if !ok {
		return e.fail(&inputError{err: fmt.Errorf("-f %s: not an object", *objFile)})
	}
	var old map[string]any
	if *oldFile != "" {
		oldDocs, err := e.readObjects([]string{*oldFile})
		if err != nil {
			return e.fail(err)
		}
		if len(oldDocs) != 1 {
			return e.fail(usagef("--old %s: want one object, got %d documents", *oldFile, len(oldDocs)))
		}
		old = oldDocs[0]
	}
	av, _ := obj["apiVersion"].(string)
	gv, err := schema.ParseAPIVersion(av)
	if err != nil || gv.Group != crd.Group || crd.Version(gv.Version) == nil {
		return e.fail(usagef("the object's apiVersion %q is not a version of %s", av, crd.Name))
	}
	v := crd.Version(gv.Version)
	res, err := v.Process(schema.Request{Object: obj, Old: old, FieldValidation: level, DecodeWarnings: docs[0].Warnings, Subresource: *sub})
	if err != nil {
		return e.fail(err)
	}
	// x-kubernetes-validations rules, after schema validation, as the custom resource strategy runs them.
	celRes := cel.ValidateCustomResource(context.Background(), v, res.Object, old, res.Errors)
	res.Errors, res.Warnings = append(res.Errors, celRes.Errors...), append(res.Warnings, celRes.Warnings...)
	if err := e.printValue(o, res.Object); err != nil {
		return e.fail(err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if len(res.Errors) > 0 {
		return e.fail(v.Invalid(res.Object, res.Errors))
	}
	return exitOK
}

// readFile reads a file, or stdin for "-".
func (e *env) readFile(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(e.stdin)
	}
	return os.ReadFile(path)
}
