package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// dryRunFlag is kubectl's --dry-run: bare, or none|client|server.
type dryRunFlag string

func (d *dryRunFlag) String() string   { return string(*d) }
func (d *dryRunFlag) IsBoolFlag() bool { return true }
func (d *dryRunFlag) Type() string     { return "string" }
func (d *dryRunFlag) Set(s string) error {
	if s == "true" {
		s = "server"
	}
	*d = dryRunFlag(s) // checked after parsing (check), so the error is kubectl's own line
	return nil
}

// server reports whether the flag asks for a server dry run (dryRun=All), for the verbs that
// answer as the server does and so have no client dry run.
func (d dryRunFlag) server() (bool, error) {
	if err := d.check(); err != nil {
		return false, err
	}
	if d == "client" {
		return false, usagef("--dry-run=client is not supported: writepath answers as the server does (--dry-run=server sends dryRun=All)")
	}
	return d == "server", nil
}

// check returns kubectl's error for a --dry-run value it does not know.
func (d dryRunFlag) check() error {
	switch d {
	case "", "false", "none", "client", "server":
		return nil
	}
	return usagef(`Invalid dry-run value (%s). Must be "none", "server", or "client".`, string(d))
}

// conflictAdvice is what kubectl appends to a 409 of server-side apply.
const conflictAdvice = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`

// runApplyServerSide is `writepath apply --server-side`.
func runApplyServerSide(e *env, args []string) int {
	var files fileList
	var o output
	var dry dryRunFlag
	f := e.flags("apply --server-side -f CONFIG [--live LIVE] [-n NAMESPACE] [--field-manager NAME] [--force-conflicts] [--subresource status|scale|resize|ephemeralcontainers] [--dry-run [--uid UID]] [--now TIME] [-o yaml|json]",
		`Predict a server-side apply (kubectl apply --server-side) as kube-apiserver 1.37 answers it:
the stored object with its managedFields, or the 409 conflict with, after kubectl's message, a
table of each conflicting field's owners (operation, apiVersion, time, subresource), the live
and the requested value, and what --force-conflicts would take from whom (exit 1).

CONFIG is the apply configuration; LIVE the stored object as the server returns it (with
metadata.managedFields and uid); without --live the apply creates the object. The output is
what the server stores and answers: the apply PATCH goes through the whole request path (the
merge and its managedFields, defaults, the name and namespace checks, validation, generation,
and on create uid, creationTimestamp and resourceVersion; a LIVE without resourceVersion is
taken as stored at "1"); through --subresource scale the answer is the Scale. Built-in
kinds use their Kubernetes 1.37 schemas; custom resources use --crd (their schema, subresources
and defaults), or without it are merged with no schema (maps key by key, lists replaced
whole). The fields the endpoint resets (status on the main resource, spec and most metadata on
/status) are never recorded as owned and keep their stored values.

With --dry-run (=server) the output is what kubectl apply --server-side --dry-run=server
prints: the apiserver answers dryRun=All with the same merged object, managedFields and
conflicts as the write, and only storage differs: a create gets creationTimestamp and, for
kinds that track it, generation 1, and a uid (--uid, or a random UUID as the apiserver
generates one), but no resourceVersion; an update keeps the stored resourceVersion and uid and
gets the generation the strategy computes. Pod /resize and /ephemeralcontainers writes are
validated as the apiserver validates them (422).`,
		`  # Who would own what after applying a Deployment over the live one
  writepath apply --server-side -f testdata/apply/cli/web-config.yaml --live testdata/apply/cli/web-live.yaml --field-manager hpa-bot --now 2026-01-02T00:00:00Z`)
	f.Bool("server-side", true, "server-side apply (this verb's mode)")
	f.Bool("client-side", false, "--client-side=false is --server-side")
	f.Var(&files, "f", "`FILE` with the apply configuration (one object; - for stdin)")
	liveFile := f.String("live", "", "`FILE` with the stored object (omit to create)")
	ns := f.namespace("the request `NAMESPACE` (default: the object's, else default); an object in another namespace is refused (kubectl's -n)")
	manager := f.String("field-manager", "kubectl", "`NAME` of the field manager")
	force := f.Bool("force-conflicts", false, "take the conflicting fields from their owners")
	sub := f.String("subresource", "", "apply through this `SUBRESOURCE`: status, scale (CONFIG is then an autoscaling/v1 Scale), or a Pod's resize or ephemeralcontainers")
	now := f.String("now", "", "`TIME` (RFC 3339) recorded in managedFields (default: the current time)")
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "custom resources: the CustomResourceDefinition `FILE` (types, list and map semantics, subresources, defaults)"+crdUsage)
	crStatus := f.Bool("crd-status-subresource", false, "custom resources: the CRD version enables the status subresource (status is then reset on the main resource, metadata and spec on /status)")
	f.Var(&dry, "dry-run", "server (or bare): print what the dryRun=All request returns (resourceVersion, creationTimestamp, generation as the apiserver sets them); client is refused as kubectl refuses it")
	fv := f.fieldValidation("", "fieldValidation `LEVEL` sent: Strict, Warn or Ignore (default: none sent, the apiserver's Warn; kubectl apply sends Strict)", true)
	uid := f.String("uid", "", "the `UID` a create gets (default: a random UUID, as the apiserver generates one)")
	f.Var(&o, "o", "output format: `yaml|json`")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if err := dry.check(); err != nil {
		return e.fail(err)
	}
	if dry == "client" {
		// kubectl's own check (cmd/apply: --server-side with --dry-run=client).
		return e.fail(&inputError{err: errors.New("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)")})
	}
	if len(files) != 1 {
		return e.fail(usagef("give the apply configuration with exactly one -f FILE"))
	}
	configs, err := e.readObjects(files)
	if err != nil {
		return e.fail(err)
	}
	crdDocs, err := e.readCRDs(crdFiles)
	if err != nil {
		return e.fail(err)
	}
	configs, crdDocs = takeCRDs(configs, crdDocs)
	if len(configs) != 1 {
		return e.fail(usagef("the apply configuration must be one object, %s has %d", files[0], len(configs)))
	}
	var live map[string]any
	if *liveFile != "" {
		lives, err := e.readObjects([]string{*liveFile})
		if err != nil {
			return e.fail(err)
		}
		if len(lives) != 1 {
			return e.fail(usagef("the live object must be one object, %s has %d", *liveFile, len(lives)))
		}
		live = lives[0]
		e.warnNoManagedFields(*liveFile, live)
	}
	t := time.Now().UTC()
	if *now != "" {
		if t, err = time.Parse(time.RFC3339, *now); err != nil {
			return e.fail(usagef("invalid --now: %v", err))
		}
	}
	req := apply.Request{Live: live, Config: configs[0], Manager: *manager, Force: *force, Subresource: *sub, Now: t}
	var crd *schema.CRD
	var docsCRD map[string]any
	if docsCRD, err = crdFor(crdDocs, configs[0]); err != nil {
		return e.fail(err)
	}
	if docsCRD != nil {
		if crd, err = schema.FromCRD(docsCRD); err != nil {
			return e.fail(err)
		}
	}
	if f.namespaceGiven() {
		var crds []map[string]any
		if docsCRD != nil {
			crds = append(crds, docsCRD)
		}
		in, err := requireNamespace([]map[string]any{configs[0], live}, *ns, true, namespacedBuiltinOr(crds, true))
		if err != nil {
			return e.fail(err)
		}
		configs[0], live = in[0], in[1]
		req.Config, req.Live = in[0], in[1]
	}
	if err := configureTypes(&req, crd, *crStatus); err != nil {
		return e.fail(err)
	}
	// The answer is the server's: one apply PATCH through the request path over a world holding
	// the live object (and the CRD). A conflict is explained from the field manager's own error.
	target, world, err := applyWorld(configs[0], live, crd, docsCRD, *crStatus, req.Subresource)
	if err != nil {
		return e.fail(err)
	}
	newUID := randomUID
	if *uid != "" {
		newUID = func() string { return *uid }
	}
	w, err := newCLIWorld(world, newUID)
	if err != nil {
		return e.fail(err)
	}
	body, err := codec.EncodeJSON(configs[0])
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	q := url.Values{"fieldManager": {*manager}}
	if *force {
		q.Set("force", "true")
	}
	if dry == "server" {
		q.Set("dryRun", "All")
	}
	if *fv != "" {
		q.Set("fieldValidation", *fv)
	}
	resp, err := e.send(w, "PATCH", target, q, registry.ApplyPatch, body, t)
	if err != nil {
		return e.fail(err)
	}
	if rerr := responseError(resp); rerr != nil {
		var st *status.Error
		if errors.As(rerr, &st) && st.Code == 409 && st.Reason == status.ReasonConflict && len(st.Details.Causes) > 0 {
			var conflict *apply.ConflictError
			if _, aerr := applyForReport(req, crd); errors.As(aerr, &conflict) {
				e.printStatus(st)
				fmt.Fprintf(e.stderr, "error: %s\n%s\n\n", conflict.Error(), conflictAdvice)
				apply.Explain(req, conflict).WriteTo(e.stderr)
				return exitNegative
			}
		}
		return e.fail(rerr)
	}
	if err := e.printValue(o, resp.Object); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// applyForReport runs the field manager alone, for the conflict report.
func applyForReport(req apply.Request, crd *schema.CRD) (apply.Result, error) {
	if req.Subresource == "scale" {
		paths := apply.ScaleReplicasPaths(req.Kind)
		if crd != nil {
			paths = apply.CRDScaleReplicasPaths(crd)
		}
		return apply.Scale(apply.ScaleRequest{Parent: req.Live, Scale: req.Config, Apply: true, Manager: req.Manager,
			Force: req.Force, Now: req.Now, ReplicasPaths: paths})
	}
	return apply.Apply(req)
}

// applyWorld is the target and the world of an apply: the live object (stored, in its
// namespace) and, for a custom resource, its CRD (or a stand-in without a schema).
func applyWorld(config, live map[string]any, crd *schema.CRD, crdDoc map[string]any, crStatus bool, sub string) (registry.Target, []map[string]any, error) {
	endpoint := config
	if live != nil {
		endpoint = live
	}
	md, _ := endpoint["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	cmd, _ := config["metadata"].(map[string]any)
	if ns == "" {
		ns, _ = cmd["namespace"].(string)
	}
	builtin := isBuiltin(endpoint)
	if ns == "" && ((builtin && namespacedKind(endpoint)) || (!builtin && crd != nil && crd.Namespaced())) {
		ns = "default"
	}
	var objs []map[string]any
	if !builtin {
		if crdDoc == nil {
			crdDoc = standInCRD(endpoint, ns != "", crStatus)
		}
		objs = append(objs, crdDoc)
	}
	t, err := endpointOf(endpoint, crdDoc, ns, false, sub)
	if err != nil {
		return t, nil, err
	}
	// The URL names the object the configuration names (the live object's, for /scale).
	t.Name, _ = cmd["name"].(string)
	if sub == "scale" && live != nil {
		lmd, _ := live["metadata"].(map[string]any)
		t.Name, _ = lmd["name"].(string)
	}
	if t.Name == "" {
		return t, nil, usagef("the apply configuration needs metadata.name")
	}
	if live != nil {
		st, err := stored(live, t.Namespace)
		if err != nil {
			return t, nil, err
		}
		objs = append(objs, st)
	}
	return t, objs, nil
}

// namespacedKind reports whether obj's built-in kind is namespace-scoped.
func namespacedKind(obj map[string]any) bool {
	_, k, err := kindOf(obj)
	return err == nil && k != nil && k.Namespaced
}

// randomUID is a random RFC 4122 version 4 UUID, the form of the uids the apiserver generates
// (k8s.io/apimachinery/pkg/util/uuid). Only the CLI reads randomness; the library takes uids
// as inputs.
func randomUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand.Read does not fail on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// configureTypes picks the types and reset fields of the configuration's kind: the built-in
// catalogue, or (for other kinds) structured-merge-diff's deduced type.
func configureTypes(req *apply.Request, crd *schema.CRD, crStatus bool) error {
	// The endpoint is the live object's resource when there is one (a configuration of another
	// kind is then the apiserver's 400), the configuration's otherwise.
	endpoint := req.Config
	what := "the apply configuration"
	if req.Live != nil {
		endpoint, what = req.Live, "the live object"
	}
	av, _ := endpoint["apiVersion"].(string)
	kind, _ := endpoint["kind"].(string)
	gvk, err := schema.FromAPIVersionAndKind(av, kind)
	if err != nil || kind == "" {
		return &inputError{err: fmt.Errorf("%s needs apiVersion and kind", what)}
	}
	req.Kind = gvk
	if crd != nil {
		sub := req.Subresource
		if err := apply.ConfigureCRD(req, crd, sub); err != nil {
			return usagef("%v", err)
		}
		if sub == "scale" && req.Live == nil {
			return usagef("--subresource scale needs the stored object (--live)")
		}
		return nil
	}
	if k, err := schema.Builtin(gvk); err == nil && k.SMDTypeName() != "" {
		req.Types = apply.Builtin
		req.ResetFields = apply.ResetFields(gvk, req.Subresource)
		req.ResetValues = apply.ResetPaths(gvk, req.Subresource)
		req.Reset = apply.StrategyReset(gvk, req.Subresource)
		req.Validate = apply.StrategyValidation(gvk, req.Subresource)
		if req.Subresource != "" && !k.Subresources.Has(req.Subresource) {
			return usagef("%s has no %s subresource", strings.ToLower(k.Resource), req.Subresource)
		}
		if req.Subresource == "scale" && req.Live == nil {
			return usagef("--subresource scale needs the stored object (--live)")
		}
		return nil
	}
	req.Types = apply.Deduced
	if req.Subresource != "" && (req.Subresource != "status" || !crStatus) {
		return usagef("custom resources: only --subresource status is supported, with --crd-status-subresource")
	}
	req.ResetFields = apply.CustomResourceResetFields(gvk.GroupVersion().String(), req.Subresource, crStatus)
	req.ResetValues = apply.CustomResourceResetPaths(req.Subresource, crStatus)
	return nil
}
