package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/writepath/writepath/schema"
)

func runSchema(e *env, args []string) int {
	if len(args) > 0 && args[0] == "explain" {
		return runSchemaExplain(e, args[1:])
	}
	f := e.flags("schema explain KIND [PATH]",
		`Show what kube-apiserver 1.37 knows about the shape of a kind.

Subcommands:
  explain   list type, keys, map type and patch strategies of a field path`, "")
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
	f := e.flags("schema explain KIND [PATH] [--api-version GROUP/VERSION] [-o yaml|json]",
		`Show how server-side apply and strategic merge patch treat a field of a built-in kind.

KIND is a resource, singular, short name or kind, optionally qualified by its group
(deployments.apps, deploy, Deployment) or by version and group (deployments.v1.apps). PATH is
dot-separated; list elements are entered implicitly (spec.template.spec.containers.ports) and a
segment under a map of values (metadata.labels.app) selects the values.

For the path it prints the server-side-apply shape (list type atomic, set or map with its
keys; map type granular or atomic; element and field types) from the SMD schema the apiserver's
field manager uses, and the strategic-merge-patch strategy and merge key from the Go types the
apiserver patches built-ins with. The two often differ (container ports: SSA keys
containerPort+protocol, SMP merge key containerPort).`,
		`  # Keys and strategies of a Deployment's containers
  writepath schema explain deployments.apps spec.template.spec.containers

  # A Pod's volumes (strategic merge patch retains keys)
  writepath schema explain pod spec.volumes -o yaml`)
	apiVersion := f.String("api-version", "", "the group version of the kind (default: the one served by default, GA first)")
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
	k, err := resolveBuiltinKind(pos[0], *apiVersion)
	if err != nil {
		return e.fail(err)
	}
	info, err := k.Explain(pos[1])
	if err != nil {
		return e.fail(err)
	}
	if o != "" {
		if err := e.printValue(o, fieldInfoValue(k, info)); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "%-15s %s\n%-15s %s\n", "KIND:", k.GVK.Kind, "VERSION:", k.GVK.GroupVersion())
	if k.Resource != "" {
		scope := "Namespaced"
		if !k.Namespaced {
			scope = "Cluster"
		}
		fmt.Fprintf(e.stdout, "%-15s %s (%s)\n", "RESOURCE:", k.Resource, scope)
	}
	fmt.Fprintf(e.stdout, "\n%s", info)
	return exitOK
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
	if ra, rb := versionRank(a.GVK.Version), versionRank(b.GVK.Version); ra != rb {
		return ra > rb
	}
	return a.GVK.String() < b.GVK.String()
}

// versionRank orders Kubernetes versions as kube-version ordering does: GA above beta above
// alpha, higher numbers first within each.
func versionRank(v string) int {
	var major, minor int
	var stage string
	if _, err := fmt.Sscanf(v, "v%d%s", &major, &stage); err != nil {
		stage = ""
	}
	level := 3
	switch {
	case strings.HasPrefix(stage, "beta"):
		level = 2
		fmt.Sscanf(stage, "beta%d", &minor)
	case strings.HasPrefix(stage, "alpha"):
		level = 1
		fmt.Sscanf(stage, "alpha%d", &minor)
	}
	return level*1_000_000 + major*1_000 + minor
}

func isVersion(s string) bool {
	var n int
	_, err := fmt.Sscanf(s, "v%d", &n)
	return err == nil
}

// fieldInfoValue is the -o yaml|json form of an explanation.
func fieldInfoValue(k *schema.Kind, fi schema.FieldInfo) map[string]any {
	out := map[string]any{
		"kind":       k.GVK.Kind,
		"apiVersion": k.GVK.APIVersion(),
		"path":       fi.Path,
		"type":       fi.Type,
	}
	set := func(key, v string) {
		if v != "" {
			out[key] = v
		}
	}
	set("resource", k.Resource)
	set("typeName", fi.TypeName)
	set("scalar", fi.Scalar)
	set("listType", fi.ListType)
	set("mapType", fi.MapType)
	set("element", fi.Element)
	set("elementName", fi.ElementName)
	set("patchStrategy", fi.PatchStrategy)
	set("patchMergeKey", fi.PatchMergeKey)
	set("goType", fi.GoType)
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
	return out
}
