package policystatus

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
)

// ExpressionWarning is one entry of a ValidatingAdmissionPolicy's
// status.typeChecking.expressionWarnings: the expression's field path in the
// policy ("spec.validations[0].expression") and what the type checker found,
// per checked kind.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

// Options are the inputs of TypeCheck besides the policy.
type Options struct {
	// CRDs are the custom resources the cluster serves, as the RESTMapper and
	// the OpenAPI v3 discovery would show them to the type checker.
	CRDs []*schema.CRD
	// Now is the clock the apiserver names the checked types with
	// (Kind<nanosecond>, which shows in messages such as "found no matching
	// overload for '_==_' applied to '(Deployment123.spec, int)'"); the zero
	// value gives a nanosecond of 0.
	Now time.Time
}

// maxTypesToCheck bounds the kinds one resource rule contributes.
const maxTypesToCheck = 10

// TypeCheck type-checks the expressions of a ValidatingAdmissionPolicy
// (admissionregistration.k8s.io/v1, as a decoded object) against the schemas
// of the kinds it matches, as kube-controller-manager's
// validatingadmissionpolicy-status controller does with the apiserver's
// TypeChecker: the kinds come from matchConstraints.resourceRules (rules
// with a wildcard group or version are skipped, so are wildcard and
// subresource resources, and each rule contributes at most 10 kinds), their
// schemas from the built-in OpenAPI and opts.CRDs; object and oldObject are
// typed by that schema, params by the paramKind's, and every validation's
// expression and messageExpression is compiled. Kinds without a schema are
// not checked. The result is nil when nothing is found. The policy is not
// modified.
func TypeCheck(policy map[string]any, opts Options) ([]ExpressionWarning, error) {
	if k, _ := policy["kind"].(string); k != "ValidatingAdmissionPolicy" {
		return nil, fmt.Errorf("type checking needs a ValidatingAdmissionPolicy, got kind %q", k)
	}
	spec := getMap(policy, "spec")
	res, err := newTypeResolver(opts.CRDs)
	if err != nil {
		return nil, err
	}
	uniqueName := func(kind string) string { return kind + strconv.Itoa(opts.Now.Nanosecond()) }

	type checked struct {
		gvk  schema.GroupVersionKind
		decl *cel.DeclType
	}
	var kinds []checked
	for _, gvk := range res.typesToCheck(spec) {
		s, ok := res.schema(gvk)
		if !ok {
			continue
		}
		var d *cel.DeclType
		if t := s.DeclType(true); t != nil {
			d = t.WithTypeName(uniqueName(gvk.Kind))
		}
		kinds = append(kinds, checked{gvk: gvk, decl: d})
	}
	var paramGVK schema.GroupVersionKind
	if pk := getMap(spec, "paramKind"); pk != nil {
		if gv, err := schema.ParseAPIVersion(getString(pk, "apiVersion")); err == nil {
			paramGVK = schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: getString(pk, "kind")}
		}
	}
	hasParams := paramGVK != schema.GroupVersionKind{}
	var paramDecl *cel.DeclType
	if hasParams {
		if s, ok := res.schema(paramGVK); ok {
			if t := s.DeclType(true); t != nil {
				paramDecl = t.WithTypeName(uniqueName(paramGVK.Kind))
			}
		}
	}
	var vars []cel.NamedExpr
	vs, _ := spec["variables"].([]any)
	for _, v := range vs {
		vm, _ := v.(map[string]any)
		vars = append(vars, cel.NamedExpr{Name: getString(vm, "name"), Expr: getString(vm, "expression")})
	}
	compilers := make([]*cel.Composition, len(kinds))
	for i, k := range kinds {
		env, err := cel.TypeCheckEnv(k.decl, paramDecl, hasParams)
		if err != nil {
			return nil, err
		}
		c, _, err := cel.NewComposition(env, vars)
		if err != nil {
			return nil, err
		}
		compilers[i] = c
	}
	check := func(expr string) string {
		var msgs []string
		for i, k := range kinds {
			if _, iss := compilers[i].Env.Compile(expr); iss != nil && iss.Err() != nil {
				msgs = append(msgs, fmt.Sprintf("%v: %s\n", schemaGVK(k.gvk), iss.String()))
			}
		}
		return strings.Join(msgs, "\n")
	}
	var out []ExpressionWarning
	vals, _ := spec["validations"].([]any)
	for i, v := range vals {
		vm, _ := v.(map[string]any)
		if w := check(getString(vm, "expression")); w != "" {
			out = append(out, ExpressionWarning{FieldRef: fmt.Sprintf("spec.validations[%d].expression", i), Warning: w})
		}
		if me := getString(vm, "messageExpression"); me != "" {
			if w := check(me); w != "" {
				out = append(out, ExpressionWarning{FieldRef: fmt.Sprintf("spec.validations[%d].messageExpression", i), Warning: w})
			}
		}
	}
	return out, nil
}

func schemaGVK(g schema.GroupVersionKind) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
}

// typeResolver answers the RESTMapper's KindsFor and the schema resolver's
// ResolveSchema for the type checker: built-in kinds served by default and
// the given CRDs.
type typeResolver struct {
	mappers []*gvMapper
	crds    map[schema.GroupVersionKind]*cel.OpenAPISchema
	cat     *cel.OpenAPICatalogue
}

// gvMapper is the DefaultRESTMapper discovery builds for one group version:
// plural and singular resource names to kinds, and the guessed names of the
// <Kind>List and List kinds.
type gvMapper struct {
	group, version string
	resourceToKind map[string]string
}

// discoveryOrder is the order of the group versions kube-apiserver 1.37
// serves by default in discovery.
var discoveryOrder = []string{"v1", "apiregistration.k8s.io/v1", "apps/v1", "events.k8s.io/v1",
	"authentication.k8s.io/v1", "authorization.k8s.io/v1", "autoscaling/v2", "autoscaling/v1", "batch/v1",
	"certificates.k8s.io/v1", "networking.k8s.io/v1", "policy/v1", "rbac.authorization.k8s.io/v1",
	"storage.k8s.io/v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "scheduling.k8s.io/v1",
	"coordination.k8s.io/v1", "node.k8s.io/v1", "discovery.k8s.io/v1", "resource.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1", "storagemigration.k8s.io/v1"}

var (
	builtinMappersOnce sync.Once
	builtinMappers     []*gvMapper
	builtinMappersErr  error
)

func (m *gvMapper) add(kind, plural, singular string) {
	m.resourceToKind[singular] = kind
	m.resourceToKind[plural] = kind
}

type discoveredResource struct{ kind, plural, singular string }

func newGVMapper(group, version string, rs []discoveredResource) *gvMapper {
	m := &gvMapper{group: group, version: version, resourceToKind: map[string]string{}}
	for _, r := range rs {
		singular := r.singular
		if singular == "" {
			_, singular = schema.GuessResource(r.kind)
		}
		m.add(r.kind, r.plural, singular)
		p, s := schema.GuessResource(r.kind + "List")
		m.add(r.kind+"List", p, s)
	}
	p, s := schema.GuessResource("List")
	m.add("List", p, s)
	return m
}

func loadBuiltinMappers() ([]*gvMapper, error) {
	builtinMappersOnce.Do(func() {
		kinds, err := schema.BuiltinKinds()
		if err != nil {
			builtinMappersErr = err
			return
		}
		byGV := map[[2]string][]discoveredResource{}
		var order [][2]string
		for _, k := range kinds {
			if !k.ServedByDefault || k.Resource == "" {
				continue
			}
			gv := [2]string{k.GVK.Group, k.GVK.Version}
			if _, ok := byGV[gv]; !ok {
				order = append(order, gv)
			}
			byGV[gv] = append(byGV[gv], discoveredResource{kind: k.GVK.Kind, plural: k.Resource, singular: k.Singular})
		}
		// Discovery's order (kube-apiserver's group priorities), recorded in
		// internal/gen/testdata/discovery/cluster/apis.json; others after.
		rank := map[string]int{}
		for i, gv := range discoveryOrder {
			rank[gv] = i + 1
		}
		pos := func(gv [2]string) int {
			s := gv[1]
			if gv[0] != "" {
				s = gv[0] + "/" + gv[1]
			}
			if r, ok := rank[s]; ok {
				return r
			}
			return len(discoveryOrder) + 1
		}
		sort.SliceStable(order, func(i, j int) bool { return pos(order[i]) < pos(order[j]) })
		for _, gv := range order {
			builtinMappers = append(builtinMappers, newGVMapper(gv[0], gv[1], byGV[gv]))
		}
	})
	return builtinMappers, builtinMappersErr
}

func newTypeResolver(crds []*schema.CRD) (*typeResolver, error) {
	cat, err := cel.BuiltinOpenAPI()
	if err != nil {
		return nil, err
	}
	ms, err := loadBuiltinMappers()
	if err != nil {
		return nil, err
	}
	r := &typeResolver{mappers: ms, cat: cat, crds: map[schema.GroupVersionKind]*cel.OpenAPISchema{}}
	for _, crd := range crds {
		for _, v := range crd.Versions {
			if !v.Served {
				continue
			}
			r.mappers = append(r.mappers, newGVMapper(crd.Group, v.Name, []discoveredResource{{kind: crd.Names.Kind, plural: crd.Names.Plural, singular: crd.Names.Singular}}))
			s := crdOpenAPI(v.Structural)
			gvk := schema.GroupVersionKind{Group: crd.Group, Version: v.Name, Kind: crd.Names.Kind}
			r.crds[gvk] = s
			if crd.Names.ListKind != "" {
				str := &cel.OpenAPISchema{Type: "string"}
				r.crds[schema.GroupVersionKind{Group: crd.Group, Version: v.Name, Kind: crd.Names.ListKind}] = &cel.OpenAPISchema{Type: "object", Props: map[string]*cel.OpenAPISchema{
					"apiVersion": str, "kind": str,
					"metadata": {Ref: "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"},
					"items":    {Type: "array", Items: s},
				}}
			}
		}
	}
	return r, nil
}

// crdOpenAPI is the schema the apiextensions OpenAPI builder serves for a
// version: the structural schema with apiVersion, kind and metadata (a
// reference to ObjectMeta) at the root.
func crdOpenAPI(s *schema.Structural) *cel.OpenAPISchema {
	root := structuralNode(s)
	if root == nil {
		root = &cel.OpenAPISchema{Type: "object"}
	}
	if root.Props == nil {
		root.Props = map[string]*cel.OpenAPISchema{}
	}
	str := &cel.OpenAPISchema{Type: "string"}
	root.Props["apiVersion"], root.Props["kind"] = str, str
	root.Props["metadata"] = &cel.OpenAPISchema{Ref: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
	return root
}

func structuralNode(s *schema.Structural) *cel.OpenAPISchema {
	if s == nil {
		return nil
	}
	n := &cel.OpenAPISchema{Type: s.Type, IntOrString: s.XIntOrString, Embedded: s.XEmbeddedResource}
	if s.ValueValidation != nil {
		n.Format = s.ValueValidation.Format
	}
	if s.Properties != nil {
		n.Props = make(map[string]*cel.OpenAPISchema, len(s.Properties))
		for k, p := range s.Properties {
			n.Props[k] = structuralNode(p)
		}
	}
	n.Items = structuralNode(s.Items)
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		n.Additional = structuralNode(s.AdditionalProperties.Structural)
	}
	return n
}

// schema is the combined resolver: the apiserver's definitions for built-in
// kinds, the OpenAPI v3 discovery for the others.
func (r *typeResolver) schema(gvk schema.GroupVersionKind) (*cel.OpenAPISchema, bool) {
	if s, ok := r.cat.SchemaFor(gvk); ok {
		return s, true
	}
	if s, ok := r.crds[gvk]; ok {
		res := r.cat.Resolve(s)
		return res, res != nil
	}
	return nil, false
}

// kindsFor is the discovery RESTMapper's KindsFor: a union over the group
// versions' mappers, in discovery order, without duplicates.
func (r *typeResolver) kindsFor(group, version, resource string) []schema.GroupVersionKind {
	resource = strings.ToLower(resource)
	var out []schema.GroupVersionKind
	seen := map[schema.GroupVersionKind]bool{}
	for _, m := range r.mappers {
		for _, k := range m.kindsFor(group, version, resource) {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// kindsFor is DefaultRESTMapper.KindsFor over one group version: an empty
// group or version matches any, a group alone also matches as a prefix.
func (m *gvMapper) kindsFor(group, version, resource string) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	add := func(kind string) {
		out = append(out, schema.GroupVersionKind{Group: m.group, Version: m.version, Kind: kind})
	}
	kind, ok := m.resourceToKind[resource]
	if !ok {
		return nil
	}
	switch {
	case group != "" && version != "":
		if m.group == group && m.version == version {
			add(kind)
		}
	case group != "":
		if m.group == group || strings.HasPrefix(m.group, group) {
			add(kind)
		}
	case version != "":
		if m.version == version {
			add(kind)
		}
	default:
		add(kind)
	}
	return out
}

// typesToCheck is TypeChecker.typesToCheck: the kinds of each rule's
// groups × versions × resources, sorted; at most maxTypesToCheck from a
// rule (counting every kind found, the result is returned as soon as a rule
// reaches the limit).
func (r *typeResolver) typesToCheck(spec map[string]any) []schema.GroupVersionKind {
	mc := getMap(spec, "matchConstraints")
	rules, _ := mc["resourceRules"].([]any)
	if len(rules) == 0 {
		return nil
	}
	set := map[schema.GroupVersionKind]bool{}
	sorted := func() []schema.GroupVersionKind {
		if len(set) == 0 {
			return nil
		}
		out := make([]schema.GroupVersionKind, 0, len(set))
		for k := range set {
			out = append(out, k)
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Group != out[j].Group {
				return out[i].Group < out[j].Group
			}
			if out[i].Version != out[j].Version {
				return out[i].Version < out[j].Version
			}
			return out[i].Kind < out[j].Kind
		})
		return out
	}
	for _, x := range rules {
		rule, _ := x.(map[string]any)
		groups := noWildcards(stringList(rule["apiGroups"]))
		versions := noWildcards(stringList(rule["apiVersions"]))
		var resources []string
		for _, res := range stringList(rule["resources"]) {
			if !strings.ContainsAny(res, "*/") {
				resources = append(resources, res)
			}
		}
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		sort.Strings(groups)
		sort.Strings(versions)
		sort.Strings(resources)
		count := 0
		for _, g := range groups {
			for _, v := range versions {
				for _, res := range resources {
					for _, k := range r.kindsFor(g, v, res) {
						set[k] = true
						count++
						if count == maxTypesToCheck {
							return sorted()
						}
					}
				}
			}
		}
	}
	return sorted()
}

// noWildcards is extractGroups and extractVersions: nothing when any entry
// has a "*".
func noWildcards(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if strings.Contains(x, "*") {
			return nil
		}
		out = append(out, x)
	}
	return out
}

func getMap(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func getString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// stringList is the strings of v, a list.
func stringList(v any) (out []string) {
	xs, _ := v.([]any)
	for _, x := range xs {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
