package cli

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"time"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// runPatch is `writepath patch`: kubectl patch against a live object in a file, answered by the
// request path (registry.Handle) over a world holding that object.
func runPatch(e *env, args []string) int {
	var files fileList
	var o output
	var typ patchType = "strategic"
	f := e.flags("patch [TYPE/NAME] --type json|merge|strategic (-p PATCH | --patch-file FILE) -f LIVE [--subresource status|scale|...] [--crd CRD] [--field-manager NAME] [-n NAMESPACE] [--field-validation Strict|Warn|Ignore] [--now TIME] [-o yaml|json]",
		`Send a patch of a live object through kube-apiserver 1.37's request path, as kubectl patch
sends it, and print what the server answers: the stored object (managedFields hidden, as
kubectl prints it), or the error as kubectl shows it (exit 1).

The patch is first converted as kubectl converts it (a body not starting with '{' goes through
YAML: YAML accepted, strings re-encoded, duplicate keys refused).

--type json is RFC 6902 JSON Patch with the apiserver's behaviour (negative and zero-padded
indices, replace of a missing member adds it, the 10,000-operation and 3 MiB copy limits);
merge is RFC 7386 JSON merge patch; strategic (the default, as in kubectl) is strategic merge
patch with the Kubernetes 1.37 patch metadata of built-in kinds; kubectl refuses it for a
custom resource. The patched object then goes where the server sends it: the typed round trip
(a value the Go type refuses is a 422), defaults, the name and namespace checks (400), the
resourceVersion check (409), the kind's validation (422), generation. --subresource patches
status, scale (the patch applies to the autoscaling/v1 Scale), resize or ephemeralcontainers.
A custom resource is pruned, defaulted and validated with --crd; without it, its fields are
kept as written. LIVE is the stored object (a missing resourceVersion is taken as "1").`,
		`  # Scale a Deployment with a JSON Patch
  writepath patch --type json -p '[{"op":"replace","path":"/spec/replicas","value":5}]' -f testdata/examples/deployment.yaml

  # Replace a container image with a strategic merge patch
  writepath patch -p '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}' -f testdata/examples/deployment.yaml

  # Scale through the scale subresource, as the autoscaler does
  writepath patch --subresource scale --type merge -p '{"spec":{"replicas":3}}' -f testdata/examples/deployment.yaml`)
	f.Var(&typ, "type", "patch `TYPE`: json, merge or strategic")
	p := f.String("p", "", "the `PATCH` (JSON)")
	patchFile := f.String("patch-file", "", "`FILE` holding the patch")
	f.Var(&files, "f", "`FILE` with the live object (- for stdin)")
	fv := f.fieldValidation(string(schema.FieldValidationWarn), "fieldValidation: `Strict|Warn|Ignore`", false)
	var dry dryRunFlag
	f.Var(&dry, "dry-run", "`none|server`: server (or bare) sends dryRun=All: the answer of the patch, as the server gives it without storing (the output is the same)")
	sub := f.String("subresource", "", "patch this `SUBRESOURCE`: status, scale, resize, ephemeralcontainers")
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "custom resources: the CustomResourceDefinition `FILE` (schema, defaults, subresources)"+crdUsage)
	manager := f.String("field-manager", "kubectl-patch", "`NAME` of the field manager")
	ns := f.String("n", "", "`NAMESPACE` of the request (default: the object's, else default)")
	now := f.String("now", "", "`TIME` (RFC 3339) of the request (default: the current time)")
	f.Var(&o, "o", "output format: `yaml|json`")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if err := typ.check(); err != nil {
		return e.fail(err)
	}
	dryRun, err := dry.server()
	if err != nil {
		return e.fail(err)
	}
	var objectArg string // TYPE/NAME, choosing the live object among the -f objects
	if f.NArg() > 0 {
		t, err := targetArg(f.Args())
		if err != nil {
			return e.fail(err)
		}
		objectArg = t
	}
	if (*p == "") == (*patchFile == "") {
		return e.fail(usagef("must specify --patch or --patch-file containing the contents of the patch"))
	}
	switch schema.FieldValidation(*fv) {
	case schema.FieldValidationStrict, schema.FieldValidationWarn, schema.FieldValidationIgnore:
	default:
		return e.fail(usagef("--field-validation must be one of Strict, Warn, Ignore, not %q", *fv))
	}
	if len(files) != 1 {
		return e.fail(usagef("give the live object with exactly one -f FILE"))
	}
	t, err := requestTime(*now)
	if err != nil {
		return e.fail(err)
	}
	body := []byte(*p)
	if *patchFile != "" {
		data, err := e.readFile(*patchFile)
		if err != nil {
			return e.fail(&inputError{err: err})
		}
		body = data
	}
	body, err = kubectlToJSON(body)
	if err != nil {
		return e.fail(fmt.Errorf("unable to parse %q: %v", *p, err))
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
	if objectArg != "" {
		ref, err := parseTarget(objectArg, *ns)
		if err != nil {
			return e.fail(err)
		}
		idx, err := findObject(objs, ref)
		if err != nil {
			return e.fail(err)
		}
		objs = objs[idx : idx+1]
	}
	if len(objs) != 1 {
		return e.fail(usagef("-f must hold exactly one object, found %d (or name it: patch TYPE/NAME -f FILE)", len(objs)))
	}
	live := objs[0]
	gvk, kind, err := kindOf(live)
	if err != nil {
		return e.fail(err)
	}
	if typ == "strategic" && kind == nil {
		// kubectl refuses before sending, naming the kind.
		_, err := merge.ApplyStrategic(live, body, nil, merge.Options{})
		var me *merge.Error
		if errors.As(err, &me) {
			fmt.Fprintf(e.stderr, "error: application/strategic-merge-patch+json is not supported by %s: %s\n", gvk, me.Error())
			return exitNegative
		}
	}
	crd, err := crdFor(crds, live)
	if err != nil {
		return e.fail(err)
	}
	namespace := *ns
	if namespace == "" {
		md, _ := live["metadata"].(map[string]any)
		namespace, _ = md["namespace"].(string)
	}
	if namespace == "" && (kind == nil || kind.Namespaced) && (kind != nil || crd == nil || crdNamespaced(crd)) {
		namespace = "default"
	}
	target, err := endpointOf(live, crd, namespace, true, *sub)
	if err != nil {
		return e.fail(err)
	}
	var world []map[string]any
	if kind == nil {
		if crd == nil {
			crd = standInCRD(live, target.Namespace != "", *sub == "status")
		}
		world = append(world, crd)
	}
	st, err := stored(live, target.Namespace)
	if err != nil {
		return e.fail(err)
	}
	w, err := newCLIWorld(append(world, st), nil)
	if err != nil {
		return e.fail(err)
	}
	contentType := map[patchType]string{"json": registry.JSONPatch, "merge": registry.MergePatch, "strategic": registry.StrategicPatch}[typ]
	q := url.Values{"fieldManager": {*manager}, "fieldValidation": {*fv}}
	if dryRun {
		q.Set("dryRun", "All")
	}
	resp, err := e.send(w, "PATCH", target, q, contentType, body, t)
	if err != nil {
		return e.fail(err)
	}
	if err := responseError(resp); err != nil {
		return e.failPatch(err)
	}
	if err := e.printValue(o, withoutManagedFields(resp.Object)); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// crdNamespaced reports whether a CustomResourceDefinition object is namespace-scoped.
func crdNamespaced(crd map[string]any) bool {
	spec, _ := crd["spec"].(map[string]any)
	return spec["scope"] != "Cluster"
}

// requestTime is a --now flag: RFC 3339, or the current time when empty.
func requestTime(s string) (time.Time, error) {
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usagef("invalid --now: %v", err)
	}
	return t, nil
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
