package cli

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"net/url"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/registry"
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
		`Run a write through kube-apiserver 1.37's request path, admission included: the object is
sent as a create (an update with --old, a delete with --operation DELETE) through the same path
as every request (registry.Handle): decoded into its kind (the typed round trip: a ConfigMap's
data: null is dropped before a policy sees it), defaulted, then NamespaceLifecycle (when
namespaces are given), MutatingAdmissionPolicies and mutating webhooks (with reinvocation),
ObjectMeta and the kind's own validation, then ValidatingAdmissionPolicies and validating
webhooks, with the apiserver's matching (rules, namespace and object selectors, match
conditions), params, failure policies and messages. Requests carry user admin in group
system:masters unless --user/--group say otherwise.

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

Prints the object as the server would store it (managedFields hidden), then on stderr the
patches each mutator applied, the warnings ("Warning: ...") and the audit annotations. Exit
status 1 if the server would refuse the write (admission, validation, a conflict).

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
	user := f.String("user", "admin", "the requesting user's `NAME`")
	var groups fileList
	f.Var(&groups, "group", "a `GROUP` of the user (repeatable; default system:masters and system:authenticated)")
	now := f.String("now", "", "`TIME` (RFC 3339) of the request: creationTimestamp (default: the current time)")
	uid := f.String("uid", "", "the `UID` a create gets (default: a random UUID)")
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
	// The world: the CRDs served, the admission configuration, params and namespaces (sorted by
	// kind whichever flag named their file), and the stored object of an update or delete.
	var world []map[string]any
	world = append(world, crdDocs...)
	namespacesGiven := false
	for _, files := range [][]string{policies, params, namespaces} {
		for _, file := range files {
			docs, err := e.readObjects([]string{file})
			if err != nil {
				return e.fail(err)
			}
			for _, d := range docs {
				av, _ := d["apiVersion"].(string)
				if av == "v1" && d["kind"] == "Namespace" {
					namespacesGiven = true
				}
				world = append(world, d)
			}
		}
	}
	if *webhookURL != "" {
		world = withWebhookURL(world, *webhookURL)
	}
	ref := obj
	if ref == nil {
		ref = old
	}
	crdDoc, err := crdFor(crdDocs, ref)
	if err != nil {
		return e.fail(err)
	}
	if crdDoc == nil && !isBuiltin(ref) {
		// A kind no --crd serves: a stand-in CRD that keeps every field, namespaced when the
		// object is.
		md, _ := ref["metadata"].(map[string]any)
		objNS, _ := md["namespace"].(string)
		crdDoc = standInCRD(ref, objNS != "", false)
		world = append(world, crdDoc)
	}
	md, _ := ref["metadata"].(map[string]any)
	reqNS, _ := md["namespace"].(string)
	t, err := endpointOf(ref, crdDoc, reqNS, operation != admission.Create, "")
	if err != nil {
		return e.fail(err)
	}
	method, body := "POST", []byte(nil)
	if obj != nil {
		sent := obj
		if old != nil {
			// An edit of the stored object carries its resourceVersion.
			omd, _ := old["metadata"].(map[string]any)
			if rv, _ := md["resourceVersion"].(string); rv == "" {
				sent = shallowObject(obj)
				m := make(map[string]any, len(md)+1)
				for k, v := range md {
					m[k] = v
				}
				m["resourceVersion"] = "1"
				if orv, _ := omd["resourceVersion"].(string); orv != "" {
					m["resourceVersion"] = orv
				}
				sent["metadata"] = m
			}
		} else if _, has := md["resourceVersion"]; has {
			// A create of an object copied from a server: its content, without the
			// resourceVersion a create refuses.
			sent = shallowObject(obj)
			m := make(map[string]any, len(md))
			for k, v := range md {
				if k != "resourceVersion" {
					m[k] = v
				}
			}
			sent["metadata"] = m
		}
		if body, err = codec.EncodeJSON(sent); err != nil {
			return e.fail(&inputError{err: err})
		}
	}
	switch operation {
	case admission.Update:
		method = "PUT"
	case admission.Delete:
		method = "DELETE"
	}
	if old != nil {
		st, err := stored(old, t.Namespace)
		if err != nil {
			return e.fail(err)
		}
		world = append(world, st)
	}
	reqTime, err := requestTime(*now)
	if err != nil {
		return e.fail(err)
	}
	newUID := randomUID
	if *uid != "" {
		newUID = func() string { return *uid }
	}
	w, err := registry.NewStatic(world, registry.StaticOptions{ImplicitNamespaces: !namespacesGiven, UID: newUID, Client: admission.HTTPSClient{}, ConversionWebhooks: true})
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	query := url.Values{}
	if *dryRun {
		query.Set("dryRun", "All")
	}
	if len(groups) == 0 {
		groups = fileList{"system:masters", "system:authenticated"}
	}
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: t.Path(), Query: query,
		ContentType: "application/json", Body: body, Now: reqTime, User: registry.User{Name: *user, Groups: groups}})
	for _, p := range resp.Audit.Patches {
		fmt.Fprintf(e.stderr, "Patch (%s, round %d): %s\n", p.Mutator, p.Round, p.Patch)
	}
	for _, h := range resp.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", registry.WarningText(h))
	}
	keys := make([]string, 0, len(resp.Audit.Annotations))
	for k := range resp.Audit.Annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(e.stderr, "Audit annotation: %s: %s\n", k, resp.Audit.Annotations[k])
	}
	if err == nil {
		err = responseError(resp)
	}
	if err != nil {
		return e.fail(err)
	}
	if err := e.printValue(o, withoutManagedFields(resp.Object)); err != nil {
		return e.fail(err)
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
