package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
)

// runPatch is `writepath patch`: kubectl patch against a live object in a file.
func runPatch(e *env, args []string) int {
	var files fileList
	var o output
	var typ patchType = "strategic"
	f := e.flags("patch --type json|merge|strategic (-p PATCH | --patch-file FILE) -f LIVE [--field-validation Strict|Warn|Ignore] [-o yaml|json]",
		`Apply a patch to a live object as kube-apiserver 1.37 does for kubectl patch, and print the
patched object (errors as kubectl shows them, exit 1).

The patch is first converted as kubectl converts it (a body not starting with '{' goes through
YAML: YAML accepted, strings re-encoded, duplicate keys refused).

--type json is RFC 6902 JSON Patch with the apiserver's behaviour (negative and zero-padded
indices, replace of a missing member adds it, the 10,000-operation and 3 MiB copy limits);
merge is RFC 7386 JSON merge patch; strategic (the default, as in kubectl) is strategic merge
patch with the Kubernetes 1.37 patch metadata of built-in kinds; a custom resource refuses it
with the apiserver's 415. The result is the patch's output: defaulting, validation and
admission are not applied.`,
		`  # Scale a Deployment with a JSON Patch
  writepath patch --type json -p '[{"op":"replace","path":"/spec/replicas","value":5}]' -f testdata/examples/deployment.yaml

  # Replace a container image with a strategic merge patch
  writepath patch -p '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}' -f testdata/examples/deployment.yaml`)
	f.Var(&typ, "type", "patch `TYPE`: json, merge or strategic")
	p := f.String("p", "", "the `PATCH` (JSON)")
	patchFile := f.String("patch-file", "", "`FILE` holding the patch")
	f.Var(&files, "f", "`FILE` with the live object (- for stdin)")
	fv := f.String("field-validation", "Warn", "fieldValidation: `Strict|Warn|Ignore`")
	f.Var(&o, "o", "output format: `yaml|json`")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if (*p == "") == (*patchFile == "") {
		return e.fail(usagef("give the patch with exactly one of -p or --patch-file"))
	}
	switch *fv {
	case "Strict", "Warn", "Ignore":
	default:
		return e.fail(usagef("--field-validation must be one of Strict, Warn, Ignore, not %q", *fv))
	}
	if len(files) != 1 {
		return e.fail(usagef("give the live object with exactly one -f FILE"))
	}
	body := []byte(*p)
	if *patchFile != "" {
		data, err := os.ReadFile(*patchFile)
		if err != nil {
			return e.fail(&inputError{err: err})
		}
		body = data
	}
	body, err := kubectlToJSON(body)
	if err != nil {
		return e.fail(fmt.Errorf("unable to parse %q: %v", *p, err))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	if len(objs) != 1 {
		return e.fail(usagef("-f must hold exactly one object, found %d", len(objs)))
	}
	live := objs[0]
	var result map[string]any
	var warnings []string
	switch typ {
	case "json":
		res, err := patch.ApplyJSONPatch(live, body, patch.Options{FieldValidation: *fv})
		if err != nil {
			return e.failPatch(err)
		}
		result, warnings = res.Object, res.Warnings
	case "merge":
		res, err := merge.ApplyMergePatch(live, body, merge.Options{FieldValidation: *fv})
		if err != nil {
			return e.failPatch(err)
		}
		result, warnings = res.Object, res.Warnings
	default:
		gvk, kind, err := kindOf(live)
		if err != nil {
			return e.fail(err)
		}
		meta, err := strategicMeta(kind)
		if err != nil {
			return e.fail(err)
		}
		res, err := merge.ApplyStrategic(live, body, meta, merge.Options{FieldValidation: *fv})
		if err != nil {
			var me *merge.Error
			if meta == nil && errors.As(err, &me) && me.StatusCode() == 415 {
				// kubectl refuses before sending, naming the kind.
				fmt.Fprintf(e.stderr, "error: application/strategic-merge-patch+json is not supported by %s: %s\n", gvk, me.Error())
				return exitNegative
			}
			return e.failPatch(err)
		}
		result, warnings = res.Object, res.Warnings
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if err := e.printValue(o, result); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// kubectlToJSON is apimachinery's yaml.ToJSON, which kubectl patch runs on the
// patch: a body starting with '{' is sent as is; anything else (a JSON Patch
// list, YAML) goes through YAML and back to JSON, so keys come out sorted,
// strings re-encoded ("\u0078" arrives as "x", "<" as "\u003c") and
// duplicate keys are refused.
func kubectlToJSON(data []byte) ([]byte, error) {
	if bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{")) {
		return data, nil
	}
	return yaml.YAMLToJSON(data)
}
