package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/versions"
)

// dryRunFlag is kubectl's --dry-run: bare, or none|client|server.
type dryRunFlag string

func (d *dryRunFlag) String() string   { return string(*d) }
func (d *dryRunFlag) IsBoolFlag() bool { return true }
func (d *dryRunFlag) Set(s string) error {
	switch s {
	case "true":
		*d = "server"
	case "false", "none", "client", "server":
		*d = dryRunFlag(s)
	default:
		return fmt.Errorf(`invalid dry-run value (%s); must be "none", "server", or "client"`, s)
	}
	return nil
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
	f := e.flags("apply --server-side -f CONFIG [--live LIVE] [--field-manager NAME] [--force-conflicts] [--subresource status|scale|resize|ephemeralcontainers] [--dry-run [--uid UID]] [--now TIME] [-o yaml|json]",
		`Predict a server-side apply (kubectl apply --server-side) as kube-apiserver 1.37 answers it:
the stored object with its managedFields, or the 409 conflict with, after kubectl's message, a
table of each conflicting field's owners (operation, apiVersion, time, subresource), the live
and the requested value, and what --force-conflicts would take from whom (exit 1).

CONFIG is the apply configuration; LIVE the stored object as the server returns it (with
metadata.managedFields and uid); without --live the apply creates the object. The output is
the merged object and its managedFields; what other layers of the write path add (uid,
resourceVersion, generation, creationTimestamp, built-in defaults) is not part of it. Built-in
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
	f.Var(&files, "f", "`FILE` with the apply configuration (one object; - for stdin)")
	liveFile := f.String("live", "", "`FILE` with the stored object (omit to create)")
	manager := f.String("field-manager", "kubectl", "`NAME` of the field manager")
	force := f.Bool("force-conflicts", false, "take the conflicting fields from their owners")
	sub := f.String("subresource", "", "apply through this `SUBRESOURCE`: status, scale (CONFIG is then an autoscaling/v1 Scale), or a Pod's resize or ephemeralcontainers")
	now := f.String("now", "", "`TIME` (RFC 3339) recorded in managedFields (default: the current time)")
	crdFile := f.String("crd", "", "custom resources: the CustomResourceDefinition `FILE` (types, list and map semantics, subresources, defaults)")
	crStatus := f.Bool("crd-status-subresource", false, "custom resources: the CRD version enables the status subresource (status is then reset on the main resource, metadata and spec on /status)")
	f.Var(&dry, "dry-run", "server (or bare): print what the dryRun=All request returns (resourceVersion, creationTimestamp, generation as the apiserver sets them); client is refused as kubectl refuses it")
	uid := f.String("uid", "", "with --dry-run, the `UID` a create gets (default: a random UUID, as the apiserver generates one)")
	f.Var(&o, "o", "output format: `yaml|json`")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if *uid != "" && dry != "server" {
		return e.fail(usagef("--uid needs --dry-run: only a dry-run create prints a uid"))
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
	}
	t := time.Now().UTC()
	if *now != "" {
		if t, err = time.Parse(time.RFC3339, *now); err != nil {
			return e.fail(usagef("invalid --now: %v", err))
		}
	}
	req := apply.Request{Live: live, Config: configs[0], Manager: *manager, Force: *force, Subresource: *sub, Now: t}
	var crd *schema.CRD
	if *crdFile != "" {
		docs, err := e.readObjects([]string{*crdFile})
		if err != nil {
			return e.fail(err)
		}
		if len(docs) != 1 {
			return e.fail(usagef("%s must hold one CustomResourceDefinition", *crdFile))
		}
		if crd, err = schema.FromCRD(docs[0]); err != nil {
			return e.fail(err)
		}
	}
	if err := configureTypes(&req, crd, *crStatus); err != nil {
		return e.fail(err)
	}
	var res apply.Result
	if req.Subresource == "scale" {
		// The configuration is an autoscaling/v1 Scale applied to the live object's /scale.
		paths := apply.ScaleReplicasPaths(req.Kind)
		if crd != nil {
			paths = apply.CRDScaleReplicasPaths(crd)
		}
		res, err = apply.Scale(apply.ScaleRequest{Parent: req.Live, Scale: req.Config, Apply: true, Manager: req.Manager,
			Force: req.Force, Now: req.Now, ReplicasPaths: paths})
	} else {
		res, err = apply.Apply(req)
	}
	var conflict *apply.ConflictError
	if errors.As(err, &conflict) {
		fmt.Fprintf(e.stderr, "error: %s\n%s\n\n", conflict.Error(), conflictAdvice)
		apply.Explain(req, conflict).WriteTo(e.stderr)
		return exitNegative
	}
	if err != nil {
		return e.fail(err)
	}
	if dry == "server" {
		newUID := func() string { return *uid }
		if *uid == "" {
			newUID = randomUID
		}
		if res.Object, err = dryRunAnswer(req, crd, *crStatus, res.Object, newUID); err != nil {
			return e.fail(err)
		}
	}
	if err := e.printValue(o, res.Object); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// dryRunAnswer completes the predicted object with what the storage layer of a dryRun=All
// request sets (recorded: testdata/apply/recorded/dryrun): on create, creationTimestamp (the
// request time, as in managedFields), a uid from newUID (rest.FillObjectMetaSystemFields: the
// apiserver's is random; the caller injects it, as admission's system-fields step takes
// Env.UID) and generation 1 for kinds whose strategy sets it, no resourceVersion; on update, the
// stored resourceVersion, uid and creationTimestamp, and the generation the strategy computes.
func dryRunAnswer(req apply.Request, crd *schema.CRD, crStatus bool, obj map[string]any, newUID func() string) (map[string]any, error) {
	opts := versions.CustomResourceOptions{StatusSubresource: crStatus}
	if crd != nil {
		if v := crd.Version(req.Kind.Version); v != nil {
			opts.StatusSubresource = v.Subresources.Status
			if v.Subresources.Scale != nil {
				opts.SpecReplicasPath = v.Subresources.Scale.SpecReplicasPath
			}
		}
	}
	s, err := versions.StrategyFor(obj, opts)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md := map[string]any{}
	if m, ok := obj["metadata"].(map[string]any); ok {
		for k, v := range m {
			md[k] = v
		}
	}
	out["metadata"] = md
	if req.Live == nil {
		g, err := versions.GenerationOnCreate(s, obj)
		if err != nil {
			return nil, err
		}
		setGeneration(md, g.New)
		md["creationTimestamp"] = req.Now.UTC().Truncate(time.Second).Format(time.RFC3339)
		md["uid"] = newUID()
		delete(md, "resourceVersion")
		return out, nil
	}
	sub := req.Subresource
	g, err := versions.NextGeneration(s, req.Live, obj, sub)
	if err != nil {
		return nil, err
	}
	setGeneration(md, g.New)
	lmd, _ := req.Live["metadata"].(map[string]any)
	for _, k := range []string{"resourceVersion", "uid", "creationTimestamp"} {
		if v, ok := lmd[k]; ok {
			md[k] = v
		} else {
			delete(md, k)
		}
	}
	return out, nil
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

func setGeneration(md map[string]any, g int64) {
	if g == 0 {
		delete(md, "generation")
		return
	}
	md["generation"] = g
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
		if req.Subresource != "" && !hasSubresource(k, req.Subresource) {
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

func hasSubresource(k *schema.Kind, sub string) bool {
	switch sub {
	case "status":
		return k.Subresources.Status
	case "scale":
		return k.Subresources.Scale != nil
	}
	for _, o := range k.Subresources.Other {
		if o == sub {
			return true
		}
	}
	return false
}
