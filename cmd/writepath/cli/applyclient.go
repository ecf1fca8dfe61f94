package cli

import (
	"fmt"
	"net/url"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/merge"
)

// runApplyClientSide is `writepath apply` without --server-side: kubectl's
// three-way client-side apply from the last-applied-configuration annotation.
func runApplyClientSide(e *env, args []string) int {
	var files fileList
	var o output
	f := e.flags("apply [--client-side] -f CONFIG [--live LIVE] [-n NAMESPACE] [--overwrite=false] [-o yaml|json]",
		`Predict kubectl apply without --server-side (client-side apply), as kubectl 1.37 computes it and
kube-apiserver 1.37 applies it: without --live the object is created with the
kubectl.kubernetes.io/last-applied-configuration annotation; with --live (the object as the
server returns it) the patch is the three-way merge of the live object's last-applied
annotation, CONFIG and the live object — a strategic merge patch for built-in kinds, a JSON merge
patch for custom resources — and the result is the live object with the patch applied.

The output starts with comment lines giving the patch kubectl would send (or "created", or
"{}" when there is nothing to send), then the object the server answers: the create or the
patch is sent through the request path (registry.Handle, as user admin with field manager
kubectl-client-side-apply) over a world holding the live object, so it is defaulted, admitted
and validated, and a refused write is the server's error. --dry-run=client prints what kubectl
computes before sending instead (no server steps); --dry-run=server sends dryRun=All.`,
		`  # Re-apply a manifest after an HPA scaled the Deployment: replicas go back to the manifest's
  writepath apply --client-side -f testdata/merge/clientapply/deployment.yaml --live testdata/merge/cli/web-live-scaled.yaml`)
	f.Bool("client-side", true, "client-side apply (this mode; the default; --client-side=false is --server-side)")
	f.Bool("server-side", false, "server-side apply (see writepath apply --server-side --help)")
	force := f.Bool("force-conflicts", false, "with --server-side only")
	f.Var(&files, "f", "`FILE` with the configuration (one object; - for stdin)")
	liveFile := f.String("live", "", "`FILE` with the live object (omit to create)")
	ns := f.namespace("`NAMESPACE` set on a namespaced object that has none (kubectl's -n; an object in another namespace keeps it, as in earlier versions)")
	var dry dryRunFlag
	f.Var(&dry, "dry-run", "`none|client|server`: client prints the object kubectl computes before sending; server sends dryRun=All (the answer is the same: this verb stores nothing)")
	now := f.String("now", "", "`TIME` (RFC 3339) of the request: creationTimestamp of a created object (default: the current time)")
	uid := f.String("uid", "", "the `UID` a create gets (default: a random UUID)")
	fv := f.fieldValidation("", "fieldValidation `LEVEL` sent: Strict, Warn or Ignore (default: none sent, the apiserver's Warn; kubectl apply sends Strict)", true)
	overwrite := f.Bool("overwrite", true, "apply changes even where the live object changed the field since the last apply")
	f.Var(&o, "o", "output format: `yaml|json`")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if *force {
		return e.fail(usagef("--force-conflicts only works with --server-side"))
	}
	if err := dry.check(); err != nil {
		return e.fail(err)
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(files) != 1 {
		return e.fail(usagef("give the configuration with exactly one -f FILE"))
	}
	objs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	if len(objs) != 1 {
		return e.fail(usagef("-f must hold exactly one object, found %d", len(objs)))
	}
	config := objs[0]
	_, kind, err := kindOf(config)
	if err != nil {
		return e.fail(err)
	}
	if *ns != "" {
		// kubectl's -n, but an object in another namespace keeps it instead of being refused: the
		// meaning this flag had before the other verbs took kubectl's -n.
		in, err := requireNamespace([]map[string]any{config}, *ns, false, namespacedBuiltinOr(nil, true))
		if err != nil {
			return e.fail(err)
		}
		config = in[0]
	}
	var live map[string]any
	if *liveFile != "" {
		lives, err := e.readObjects([]string{*liveFile})
		if err != nil {
			return e.fail(err)
		}
		if len(lives) != 1 {
			return e.fail(usagef("--live must hold exactly one object, found %d", len(lives)))
		}
		live = lives[0]
	}
	meta, err := strategicMeta(kind)
	if err != nil {
		return e.fail(err)
	}
	res, err := merge.ClientSideApply(config, live, merge.ClientApplyOptions{Meta: meta, NoOverwrite: !*overwrite})
	if err != nil {
		return e.failPatch(err)
	}
	if dry != "client" {
		answer, err := e.sendClientSideApply(config, live, res, dry == "server", *fv, *now, *uid)
		if err != nil {
			return e.fail(err)
		}
		res.Object = answer
	}
	if o == "json" {
		out := map[string]any{"created": res.Created, "object": res.Object}
		if !res.Created {
			out["patchType"] = res.PatchType
			out["patch"] = string(res.Patch)
		}
		if err := e.printValue(o, out); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	switch {
	case res.Created:
		fmt.Fprintln(e.stdout, "# created: no live object; the configuration is created with its last-applied annotation")
	case string(res.Patch) == "{}":
		fmt.Fprintln(e.stdout, "# patch: {} (nothing to send; the object is unchanged)")
	default:
		fmt.Fprintf(e.stdout, "# patch (%s):\n# %s\n", res.PatchType, res.Patch)
	}
	if err := e.printValue(o, res.Object); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// sendClientSideApply sends what kubectl sends for res through the request path over a world
// holding live: the POST of the configuration with its last-applied annotation, or the PATCH
// (nothing when the patch is {}: the live object is the answer), with field manager
// kubectl-client-side-apply. It returns the object answered, managedFields hidden; a non-2xx
// answer is the error.
func (e *env) sendClientSideApply(config, live map[string]any, res merge.ClientApplyResult, dryRun bool, fieldValidation, now, uid string) (map[string]any, error) {
	if !res.Created && string(res.Patch) == "{}" {
		return res.Object, nil
	}
	ref := config
	if live != nil {
		ref = live
	}
	ns := metaStr(ref, "namespace")
	builtin := isBuiltin(ref)
	if ns == "" && builtin && namespacedKind(ref) {
		ns = defaultNamespace
	}
	var world []map[string]any
	var crd map[string]any
	if !builtin {
		crd = standInCRD(ref, ns != "", false)
		world = append(world, crd)
	}
	if live != nil {
		st, err := stored(live, "")
		if err != nil {
			return nil, err
		}
		world = append(world, st)
	}
	t, err := endpointOf(ref, crd, ns, !res.Created, "")
	if err != nil {
		return nil, err
	}
	reqTime, err := requestTime(now)
	if err != nil {
		return nil, err
	}
	newUID := randomUID
	if uid != "" {
		newUID = func() string { return uid }
	}
	w, err := newCLIWorld(world, newUID)
	if err != nil {
		return nil, err
	}
	q := url.Values{"fieldManager": {"kubectl-client-side-apply"}}
	if dryRun {
		q.Set("dryRun", "All")
	}
	if fieldValidation != "" {
		q.Set("fieldValidation", fieldValidation)
	}
	method, contentType, body := "PATCH", res.PatchType, res.Patch
	if res.Created {
		method, contentType = "POST", "application/json"
		if body, err = codec.EncodeJSON(res.Object); err != nil {
			return nil, &inputError{err: err}
		}
	}
	resp, err := e.send(w, method, t, q, contentType, body, reqTime)
	if err != nil {
		return nil, err
	}
	if err := responseError(resp); err != nil {
		return nil, err
	}
	return withoutManagedFields(resp.Object), nil
}
