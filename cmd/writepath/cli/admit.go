package cli

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Type() string   { return "strings" }
func (m *multiFlag) Set(s string) error {
	*m = append(*m, s)
	return nil
}

func runAdmit(e *env, args []string) int {
	var o output
	var policies, params, namespaces, crdFiles multiFlag
	f := e.flags("admit -f OBJECT [--old OLD] [--operation CREATE|UPDATE|DELETE] --policy FILE [--params FILE] [--namespace-object FILE] [-n NAMESPACE] [--crd FILE] [--webhook-url URL] [-o yaml|json]\n       writepath admit --type-check --policy FILE [--crd FILE] [-o yaml|json]",
		`Run a write through kube-apiserver 1.37's admission chain: NamespaceLifecycle (when
namespaces are given), MutatingAdmissionPolicies and mutating webhooks (with reinvocation),
ObjectMeta validation, then ValidatingAdmissionPolicies and validating webhooks, with the
apiserver's matching (rules, namespace and object selectors, match conditions), params,
failure policies and messages.

--policy files hold admissionregistration.k8s.io/v1 objects: ValidatingAdmissionPolicy,
MutatingAdmissionPolicy, their bindings, and webhook configurations (called over HTTPS with
their caBundle; --webhook-url sends every webhook call to URL instead). Objects are sorted by
kind whatever the flag: Namespaces are the namespaces that exist, other kinds are params.

--crd files hold the CustomResourceDefinitions served: a webhook or policy registered for one
version of a CRD sees requests made through another (matchPolicy Equivalent, the default), with
the object converted by the CRD's strategy (None, or its conversion webhook), and
ApplyConfiguration mutations of custom resources merge by the CRD's schema.

-n/--namespace is the request namespace, as kubectl's: an object of a namespaced kind without
metadata.namespace is in it, one in another namespace is refused. --namespace-object files hold
the Namespace objects that exist (their labels for namespaceSelectors; NamespaceLifecycle
refuses a write into a namespace missing from them). The spelling of earlier versions,
--namespace FILE, still reads FILE as --namespace-object when FILE exists and is not a
namespace name (a file named like a namespace, such as "demo", is refused as ambiguous).

Prints the admitted object, then on stderr the patches each mutator applied, the warnings
("Warning: ...") and the audit annotations. Exit status 1 if admission rejects the write.

--type-check prints, for each ValidatingAdmissionPolicy of the --policy files, the
status.typeChecking kube-controller-manager would write: its expressions compiled against the
schemas of the built-in kinds (and --crd custom resources) its resourceRules match, at most 10
per rule, wildcards skipped. Exit status 1 if any expression has a warning.`,
		`  # A create checked by a policy that reads a param (the policy, binding and param in one file)
  writepath admit -f testdata/admission/realcluster/param-used/object.yaml --policy testdata/admission/realcluster/param-used/config.yaml

  # An update, denied by a ValidatingAdmissionPolicy
  writepath admit -f testdata/admission/realcluster/denied/object.yaml --old testdata/admission/realcluster/denied/object.yaml --policy testdata/admission/realcluster/denied/config.yaml

  # The type-checking warnings of policies
  writepath admit --type-check --policy testdata/admission/typecheck/policies.yaml`)
	var objFiles fileList
	f.Var(&objFiles, "f", "`FILE` with the object to write (- for stdin; a directory, several -f or a List must still hold one object)")
	oldFile := f.String("old", "", "`FILE` with the stored object (an UPDATE unless --operation says otherwise)")
	op := f.String("operation", "", "`OPERATION`: CREATE, UPDATE or DELETE (default CREATE, UPDATE with --old)")
	f.Var(&policies, "policy", "`FILE` with policies, bindings and webhook configurations (repeatable)")
	f.Var(&params, "params", "`FILE` with param objects (repeatable)")
	f.Var(&namespaces, "namespace-object", "`FILE` with Namespace objects for selectors and NamespaceLifecycle (repeatable)")
	var ns string
	f.StringVar(&ns, "n", "", "the request `NAMESPACE` (default: the object's, else default); --namespace FILE of earlier versions is --namespace-object FILE")
	f.Var(&crdFiles, "crd", "`FILE` with CustomResourceDefinitions served (repeatable)")
	webhookURL := f.String("webhook-url", "", "send every webhook call to `URL`")
	user := f.String("user", "", "the requesting user's `NAME`")
	var dry dryRunFlag
	f.Var(&dry, "dry-run", "`none|server`: server (or bare) is dryRun=All: webhooks with side effects refuse the request")
	dryRun := new(bool)
	f.Var(&o, "o", "output format: `yaml|json` (default yaml)")
	typeCheck := f.Bool("type-check", false, "print the type-checking warnings of the ValidatingAdmissionPolicies instead")
	args, err := admitLegacyNamespace(args)
	if err != nil {
		return e.fail(err)
	}
	if code, ok := f.parse(args); !ok {
		return code
	}
	if *dryRun, err = dry.server(); err != nil {
		return e.fail(err)
	}
	if *typeCheck {
		return runTypeCheck(e, o, f.Args(), policies, crdFiles)
	}
	if f.NArg() > 0 {
		return e.fail(usagef("unexpected argument %q", f.Arg(0)))
	}
	if len(objFiles) == 0 && *oldFile == "" {
		return e.fail(usagef("-f FILE is required (or --old FILE with --operation DELETE)"))
	}
	operation := admission.Operation(strings.ToUpper(*op))
	if operation == "" {
		operation = admission.Create
		if *oldFile != "" {
			operation = admission.Update
		}
	}
	switch operation {
	case admission.Create, admission.Update, admission.Delete:
	default:
		return e.fail(usagef("invalid --operation %q: must be CREATE, UPDATE or DELETE", *op))
	}
	if (operation == admission.Update || operation == admission.Delete) && *oldFile == "" {
		return e.fail(usagef("--operation %s needs --old FILE", operation))
	}
	one := func(flag string, files ...string) (map[string]any, error) {
		docs, err := e.readObjects(files)
		if err != nil {
			return nil, err
		}
		if len(docs) != 1 {
			return nil, usagef("%s %s: want one object, got %d documents", flag, strings.Join(files, ","), len(docs))
		}
		return docs[0], nil
	}
	var obj, old map[string]any
	if len(objFiles) > 0 && operation != admission.Delete {
		if obj, err = one("-f", objFiles...); err != nil {
			return e.fail(err)
		}
	}
	if *oldFile != "" {
		if old, err = one("--old", *oldFile); err != nil {
			return e.fail(err)
		}
	}
	var crdDocs []map[string]any
	if len(crdFiles) > 0 {
		if crdDocs, err = e.readObjects(crdFiles); err != nil {
			return e.fail(err)
		}
	}
	enforce := ns != ""
	if !enforce {
		ns = defaultNamespace
	}
	objs, err := requireNamespace([]map[string]any{obj, old}, ns, enforce, namespacedBuiltinOr(crdDocs, enforce))
	if err != nil {
		return e.fail(err)
	}
	obj, old = objs[0], objs[1]
	// ObjectMeta is validated as the registry validates it, between the phases.
	cfg := admission.Config{Validate: registry.ValidateObjectMeta}
	// Objects are sorted by kind whichever flag named their file: admission
	// configuration, namespaces, and params (anything else).
	for _, files := range [][]string{policies, params, namespaces} {
		for _, file := range files {
			docs, err := e.readObjects([]string{file})
			if err != nil {
				return e.fail(err)
			}
			for _, d := range docs {
				av, _ := d["apiVersion"].(string)
				switch {
				case strings.HasPrefix(av, "admissionregistration.k8s.io/"):
					cfg.Objects = append(cfg.Objects, d)
				case av == "v1" && d["kind"] == "Namespace":
					cfg.Namespaces = append(cfg.Namespaces, d)
				default:
					cfg.Params = append(cfg.Params, d)
				}
			}
		}
	}
	cfg.Builtins.NamespaceLifecycle = len(cfg.Namespaces) > 0
	cfg.Versions.Converter = conversion.Builtin{}
	if len(crdDocs) > 0 {
		if cfg.Versions, err = admitVersions(crdDocs); err != nil {
			return e.fail(err)
		}
	}
	if *webhookURL != "" {
		cfg.Objects = withWebhookURL(cfg.Objects, *webhookURL)
	}
	ref := obj
	if ref == nil {
		ref = old
	}
	req, err := admitRequest(ref, operation, cfg.Versions.CRDs)
	if err != nil {
		return e.fail(err)
	}
	req.Object, req.OldObject, req.DryRun = obj, old, *dryRun
	req.UserInfo.Username = *user
	chain, err := admission.New(cfg)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	res, err := chain.Admit(context.Background(), req)
	for _, p := range res.Patches {
		fmt.Fprintf(e.stderr, "Patch (%s, round %d): %s\n", p.Mutator, p.Round, p.Patch)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	keys := make([]string, 0, len(res.AuditAnnotations))
	for k := range res.AuditAnnotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(e.stderr, "Audit annotation: %s: %s\n", k, res.AuditAnnotations[k])
	}
	if err != nil {
		return e.fail(err)
	}
	if res.Object != nil {
		if err := e.printValue(o, res.Object); err != nil {
			return e.fail(err)
		}
	}
	return exitOK
}

// admitLegacyNamespace rewrites the spelling of earlier versions, where --namespace was a FILE
// of Namespace objects, for the scripts that use it: --namespace VALUE (or --namespace=VALUE,
// or -namespace) naming an existing file that is no namespace name becomes --namespace-object
// VALUE. A value that is both is refused as ambiguous; -n is always the request namespace.
func admitLegacyNamespace(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		name, v, hasValue := strings.Cut(a, "=")
		if name != "--namespace" && name != "-namespace" {
			out = append(out, a)
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				out = append(out, a) // pflag reports the missing argument
				continue
			}
			i++
			v = args[i]
		}
		info, err := os.Stat(v)
		isFile := err == nil && !info.IsDir()
		isName := len(validation.IsDNS1123Label(v)) == 0
		switch {
		case isFile && isName:
			return nil, usagef("--namespace %s: %q is both a namespace name and a file: give the namespace with -n %s or the file of Namespace objects with --namespace-object %s", v, v, v, v)
		case isFile:
			out = append(out, "--namespace-object", v)
		default:
			out = append(out, "--namespace", v)
		}
	}
	return out, nil
}

// admitRequest names the request's kind and resource from the object: the
// built-in catalogue's plural, a CRD's plural, or the apiserver's plural guess
// (schema.GuessResource) for other kinds.
func admitRequest(obj map[string]any, op admission.Operation, crds []*schema.CRD) (admission.Request, error) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseAPIVersion(av)
	if err != nil || kind == "" {
		return admission.Request{}, &inputError{err: fmt.Errorf("the object needs apiVersion and kind")}
	}
	resource, _ := schema.GuessResource(kind)
	if k, err := schema.Builtin(gv.WithKind(kind)); err == nil && k.Resource != "" {
		resource = k.Resource
	}
	for _, crd := range crds {
		if crd.Group == gv.Group && crd.Names.Kind == kind {
			resource = crd.Names.Plural
		}
	}
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	return admission.Request{Operation: op,
		Kind:     schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind},
		Resource: schema.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: resource},
		Name:     name, Namespace: ns}, nil
}

// withWebhookURL points every webhook of the configurations at url (copies).
func withWebhookURL(objs []map[string]any, url string) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		hooks, ok := o["webhooks"].([]any)
		if !ok {
			out[i] = o
			continue
		}
		c := make(map[string]any, len(o))
		for k, v := range o {
			c[k] = v
		}
		nh := make([]any, len(hooks))
		for j, h := range hooks {
			hm, _ := h.(map[string]any)
			hc := make(map[string]any, len(hm))
			for k, v := range hm {
				hc[k] = v
			}
			cc, _ := hm["clientConfig"].(map[string]any)
			ncc := map[string]any{"url": url}
			if ca, ok := cc["caBundle"]; ok {
				ncc["caBundle"] = ca
			}
			hc["clientConfig"] = ncc
			nh[j] = hc
		}
		c["webhooks"] = nh
		out[i] = c
	}
	return out
}

// admitVersions reads the --crd documents: their schemas, and a converter
// that converts custom resources by their CRD's strategy (package
// conversion: None, or the conversion webhook) and built-in kinds as
// kube-apiserver does (conversion.Builtin).
func admitVersions(docs []map[string]any) (admission.Versions, error) {
	var v admission.Versions
	var convs []*conversion.Converter
	for _, d := range docs {
		crd, err := conversion.FromCRD(d)
		if err != nil {
			return v, err
		}
		opts := conversion.Options{}
		if crd.Strategy == conversion.StrategyWebhook {
			cl, err := conversion.NewClient(crd, conversion.ClientOptions{Timeout: conversion.DefaultTimeout})
			if err != nil {
				return v, err
			}
			opts.Caller = cl
		}
		c, err := conversion.New(crd, opts)
		if err != nil {
			return v, err
		}
		v.CRDs = append(v.CRDs, crd.Schema)
		convs = append(convs, c)
	}
	v.Converter = conversion.Builtin{CRDs: v.CRDs, Custom: convs}
	return v, nil
}
