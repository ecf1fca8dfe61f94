package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

func runSchema(e *env, args []string) int {
	if len(args) > 0 && args[0] == "explain" {
		return runSchemaExplain(e, args[1:])
	}
	f := e.flags("schema explain KIND [PATH]",
		`Show what kube-apiserver 1.37 knows about the shape of a kind.

Subcommands:
  explain   list type, keys, map type and patch strategies of a field path`,
		`  writepath schema explain deployments.apps spec.template.spec.containers`)
	f.SetInterspersed(false) // the subcommand parses the rest
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() == 0 {
		return e.fail(usagef("missing subcommand: writepath schema explain KIND [PATH]"))
	}
	return e.fail(usagef("unknown subcommand %q for \"writepath schema\"", f.Arg(0)))
}

func runSchemaExplain(e *env, args []string) int {
	e.verb = "schema explain"
	var o output
	f := e.flags("schema explain KIND [PATH] [--crd FILE] [--api-version GROUP/VERSION] [-o yaml|json]",
		`Show how server-side apply and strategic merge patch treat a field of a built-in kind, or of
a custom resource defined by a CustomResourceDefinition (--crd).

KIND is a resource, singular, short name or kind, optionally qualified by its group
(deployments.apps, deploy, Deployment) or by version and group (deployments.v1.apps). PATH is
dot-separated; list elements are entered implicitly (spec.template.spec.containers.ports) and a
segment under a map of values (metadata.labels.app) selects the values.

For the path it prints the server-side-apply shape (list type atomic, set or map with its
keys; map type granular or atomic; element and field types) from the SMD schema the apiserver's
field manager uses, and the strategic-merge-patch strategy and merge key from the Go types the
apiserver patches built-ins with. The two often differ (container ports: SSA keys
containerPort+protocol, SMP merge key containerPort).

With --crd FILE, KIND names the CRD's resource (plural, singular, short name, kind, or
plural.group) and the shape comes from the version's structural schema as the apiserver
converts it (x-kubernetes-list-type, atomic by default; list-map keys; x-kubernetes-map-type),
with the schema's type, nullable, default and x-kubernetes extensions. Custom resources take
no strategic merge patch (the apiserver answers 415). --api-version is then the version
(v1 or GROUP/v1; default: the served version the apiserver prefers).`,
		`  # Keys and strategies of a Deployment's containers
  writepath schema explain deployments.apps spec.template.spec.containers

  # A Pod's volumes (strategic merge patch retains keys)
  writepath schema explain pod spec.volumes -o yaml

  # A field of a custom resource (from its CRD)
  writepath schema explain --crd testdata/examples/crontab-crd.yaml crontabs spec`)
	apiVersion := f.String("api-version", "", "the group version of the kind (default: the one served by default, GA first; with --crd the preferred served version)")
	var crdFiles fileList
	f.Var(&crdFiles, "crd", "the CustomResourceDefinition `FILE` (apiextensions.k8s.io/v1) defining KIND (repeatable; a file may hold several)")
	f.Var(&o, "o", "output format: yaml or json (default: text)")
	// Flags may follow the arguments (kubectl style): parse, take one argument, repeat.
	var pos []string
	for rest := args; ; {
		if code, ok := f.parse(rest); !ok {
			return code
		}
		if f.NArg() == 0 {
			break
		}
		pos = append(pos, f.Arg(0))
		rest = f.Args()[1:]
	}
	if len(pos) == 0 {
		return e.fail(usagef("you must specify the kind to explain"))
	}
	if len(pos) > 2 {
		return e.fail(usagef("unexpected argument %q", pos[2]))
	}
	pos = append(pos, "")
	var (
		gvk        schema.GroupVersionKind
		resource   string
		namespaced bool
		info       schema.FieldInfo
	)
	if len(crdFiles) > 0 {
		v, err := e.crdVersion(crdFiles, pos[0], *apiVersion)
		if err != nil {
			return e.fail(err)
		}
		if info, err = v.Explain(pos[1]); err != nil {
			return e.fail(err)
		}
		gvk, resource, namespaced = v.GVK(), v.CRD().Names.Plural, v.CRD().Namespaced()
	} else {
		k, err := resolveBuiltinKind(pos[0], *apiVersion)
		if err != nil {
			return e.fail(err)
		}
		if info, err = k.Explain(pos[1]); err != nil {
			return e.fail(err)
		}
		gvk, resource, namespaced = k.GVK, k.Resource, k.Namespaced
	}
	if o != "" {
		if err := e.printValue(o, fieldInfoValue(gvk, resource, info)); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "%-15s %s\n%-15s %s\n", "KIND:", gvk.Kind, "VERSION:", gvk.GroupVersion())
	if resource != "" {
		scope := "Namespaced"
		if !namespaced {
			scope = "Cluster"
		}
		fmt.Fprintf(e.stdout, "%-15s %s (%s)\n", "RESOURCE:", resource, scope)
	}
	fmt.Fprintf(e.stdout, "\n%s", info)
	return exitOK
}

// crdVersion reads the CRD in file (refused as the apiserver refuses it, CEL rules included)
// and finds the version of the resource arg names: apiVersion is a version name or
// GROUP/VERSION; by default the served version the apiserver prefers (the highest by Kubernetes
// version ordering).
func (e *env) crdVersion(files []string, arg, apiVersion string) (*schema.Version, error) {
	docs, err := e.readCRDs(files)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, usagef("--crd %s holds no CustomResourceDefinition", strings.Join(files, ","))
	}
	crd, err := crdNamed(docs, arg)
	if err != nil {
		return nil, err
	}
	if errs := cel.ValidateCRD(crd, cel.Options{}); len(errs) > 0 {
		return nil, status.Invalid(status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, crd.Name, errs)
	}
	if !crdHasName(crd, arg) {
		return nil, fmt.Errorf("the server doesn't have a resource type %q (--crd %s defines %s.%s)", arg, strings.Join(files, ","), crd.Names.Plural, crd.Group)
	}
	if apiVersion != "" {
		version := apiVersion
		if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
			if apiVersion[:i] != crd.Group {
				return nil, usagef("--api-version %q: %s is in group %q", apiVersion, crd.Name, crd.Group)
			}
			version = apiVersion[i+1:]
		}
		v := crd.Version(version)
		if v == nil {
			return nil, fmt.Errorf("the server doesn't have a resource type %q in group version \"%s/%s\"", arg, crd.Group, version)
		}
		return v, nil
	}
	var best *schema.Version
	for _, v := range crd.Versions {
		if v.Served && (best == nil || schema.CompareVersions(v.Name, best.Name) > 0) {
			best = v
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%s serves no version: pass --api-version", crd.Name)
	}
	return best, nil
}

// crdNamed is the CRD among docs whose names (plural, singular, kind, short names; with
// .GROUP, in that group) include arg; the only one when none does (the caller reports the
// mismatch); several is no match. Each is read as the apiserver reads a CRD.
func crdNamed(docs []map[string]any, arg string) (*schema.CRD, error) {
	var first *schema.CRD
	for _, d := range docs {
		crd, err := schema.FromCRD(d)
		if err != nil {
			return nil, err
		}
		if crdHasName(crd, arg) {
			return crd, nil
		}
		if first == nil {
			first = crd
		}
	}
	if len(docs) == 1 {
		return first, nil
	}
	return nil, fmt.Errorf("the server doesn't have a resource type %q (--crd defines %s)", arg, crdList(docs))
}

// crdHasName reports whether arg (NAME or NAME.GROUP) names crd's resource.
func crdHasName(crd *schema.CRD, arg string) bool {
	n := crd.Names
	name, group := arg, ""
	if i := strings.IndexByte(arg, '.'); i >= 0 {
		name, group = arg[:i], arg[i+1:]
	}
	if group != "" && group != crd.Group {
		return false
	}
	match := name == n.Plural || name == n.Singular || strings.EqualFold(name, n.Kind)
	for _, s := range n.ShortNames {
		match = match || name == s
	}
	return match
}

// resolveBuiltinKind finds the built-in kind an argument names, kubectl-style. Among several
// matches it prefers the core group (as kubectl's RESTMapper does: "events" is v1 Event), then a
// version served by default, then GA over beta over alpha, then the higher version.
func resolveBuiltinKind(arg, apiVersion string) (*schema.Kind, error) {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return nil, err
	}
	var wantGV *schema.GroupVersion
	if apiVersion != "" {
		gv, err := schema.ParseAPIVersion(apiVersion)
		if err != nil {
			return nil, usagef("--api-version: %v", err)
		}
		wantGV = &gv
	}
	name, group, version := arg, "", ""
	hasGroup := false
	if parts := strings.SplitN(arg, ".", 3); len(parts) == 3 && isVersion(parts[1]) {
		name, version, group, hasGroup = parts[0], parts[1], parts[2], true
	} else if i := strings.IndexByte(arg, '.'); i >= 0 {
		name, group, hasGroup = arg[:i], arg[i+1:], true
	}
	lower := strings.ToLower(name)
	var matches []*schema.Kind
	for _, k := range kinds {
		if hasGroup && k.GVK.Group != group || version != "" && k.GVK.Version != version {
			continue
		}
		if wantGV != nil && k.GVK.GroupVersion() != *wantGV {
			continue
		}
		if names(k)[lower] {
			matches = append(matches, k)
		}
	}
	if len(matches) == 0 {
		if wantGV != nil {
			return nil, fmt.Errorf("the server doesn't have a resource type %q in group version %q", arg, wantGV.String())
		}
		return nil, fmt.Errorf("the server doesn't have a resource type %q", arg)
	}
	sort.SliceStable(matches, func(i, j int) bool { return preferred(matches[i], matches[j]) })
	return matches[0], nil
}

func names(k *schema.Kind) map[string]bool {
	m := map[string]bool{strings.ToLower(k.GVK.Kind): true}
	if k.Resource != "" {
		m[k.Resource] = true
	}
	if k.Singular != "" {
		m[k.Singular] = true
	}
	for _, s := range k.ShortNames {
		m[s] = true
	}
	return m
}

func preferred(a, b *schema.Kind) bool {
	if (a.GVK.Group == "") != (b.GVK.Group == "") {
		return a.GVK.Group == ""
	}
	if a.ServedByDefault != b.ServedByDefault {
		return a.ServedByDefault
	}
	if c := schema.CompareVersions(a.GVK.Version, b.GVK.Version); c != 0 {
		return c > 0
	}
	return a.GVK.String() < b.GVK.String()
}

func isVersion(s string) bool {
	var n int
	_, err := fmt.Sscanf(s, "v%d", &n)
	return err == nil
}

// fieldInfoValue is the -o yaml|json form of an explanation.
func fieldInfoValue(gvk schema.GroupVersionKind, resource string, fi schema.FieldInfo) map[string]any {
	out := map[string]any{
		"kind":       gvk.Kind,
		"apiVersion": gvk.APIVersion(),
		"path":       fi.Path,
		"type":       fi.Type,
	}
	set := func(key, v string) {
		if v != "" {
			out[key] = v
		}
	}
	set("resource", resource)
	set("typeName", fi.TypeName)
	set("scalar", fi.Scalar)
	set("listType", fi.ListType)
	set("mapType", fi.MapType)
	set("element", fi.Element)
	set("elementName", fi.ElementName)
	set("patchStrategy", fi.PatchStrategy)
	set("patchMergeKey", fi.PatchMergeKey)
	set("goType", fi.GoType)
	set("schemaType", fi.SchemaType)
	list := func(key string, v []string) {
		if len(v) > 0 {
			l := make([]any, len(v))
			for i, s := range v {
				l[i] = s
			}
			out[key] = l
		}
	}
	list("listMapKeys", fi.ListMapKeys)
	list("fields", fi.Fields)
	list("extensions", fi.Extensions())
	if fi.CustomResource {
		out["strategicMergePatch"] = false
	}
	if fi.Nullable {
		out["nullable"] = true
	}
	if fi.Default != nil {
		out["default"] = fi.Default
	}
	return out
}
