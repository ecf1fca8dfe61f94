package admission

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/restmapper"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/controllers/policystatus"
	"github.com/writepath/writepath/internal/codec"
)

// servedResolver is resolver.ClientDiscoveryResolver over the OpenAPI v3
// documents recorded from a real 1.37 apiserver (cluster/data/openapi/v3).
type servedResolver struct {
	docs map[string]map[string]*spec.Schema // "group/version" -> components.schemas
}

func newServedResolver(t testing.TB) *servedResolver {
	files, err := filepath.Glob("../../cluster/data/openapi/v3/*.json.gz")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	r := &servedResolver{docs: map[string]map[string]*spec.Schema{}}
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		zr, err := gzip.NewReader(fh)
		require.NoError(t, err)
		var doc struct {
			Components struct {
				Schemas map[string]*spec.Schema `json:"schemas"`
			} `json:"components"`
		}
		require.NoError(t, json.NewDecoder(zr).Decode(&doc))
		fh.Close()
		base := strings.TrimSuffix(filepath.Base(f), ".json.gz")
		parts := strings.Split(base, "__")
		gv := parts[1]
		if parts[0] == "apis" {
			gv = parts[1] + "/" + parts[2]
		}
		r.docs[gv] = doc.Components.Schemas
	}
	return r
}

func (r *servedResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	schemas, ok := r.docs[gvk.GroupVersion().String()]
	if !ok {
		return nil, fmt.Errorf("cannot resolve group version %q: %w", gvk.GroupVersion(), resolver.ErrSchemaNotFound)
	}
	ref := ""
	for name, s := range schemas {
		var gvks []schema.GroupVersionKind
		if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
			return nil, err
		}
		for _, g := range gvks {
			if g == gvk {
				ref = name
			}
		}
	}
	if ref == "" {
		return nil, fmt.Errorf("cannot resolve group version kind %q: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
		s, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		return s, ok
	}, ref)
}

// clusterRESTMapper is the discovery RESTMapper over the real cluster's
// recorded discovery (internal/gen/testdata/discovery/cluster).
func clusterRESTMapper(t testing.TB) *restmapperHolder {
	dir := "../../internal/gen/testdata/discovery/cluster"
	read := func(name string, into any) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, into))
	}
	var groups metav1.APIGroupList
	read("apis.json", &groups)
	var core metav1.APIResourceList
	read("api__v1.json", &core)
	grs := []*restmapper.APIGroupResources{{
		Group:              metav1.APIGroup{Name: "", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}},
		VersionedResources: map[string][]metav1.APIResource{"v1": core.APIResources},
	}}
	for _, g := range groups.Groups {
		gr := &restmapper.APIGroupResources{Group: g, VersionedResources: map[string][]metav1.APIResource{}}
		for _, v := range g.Versions {
			var l metav1.APIResourceList
			read("apis__"+g.Name+"__"+v.Version+".json", &l)
			gr.VersionedResources[v.Version] = l.APIResources
		}
		grs = append(grs, gr)
	}
	return &restmapperHolder{grs: grs}
}

type restmapperHolder struct {
	grs []*restmapper.APIGroupResources
}

var (
	tcGroups    = []string{"", "", "apps", "apps", "batch", "events.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io", "coordination.k8s.io", "app", "*", "nope.example.com"}
	tcVersions  = []string{"v1", "v1", "v1", "v2", "v1beta1", "*"}
	tcResources = []string{"deployments", "replicasets", "pods", "configmaps", "services", "jobs", "cronjobs", "events", "deployment",
		"deploymentlists", "lists", "pods/status", "*", "secrets", "namespaces", "validatingwebhookconfigurations",
		"customresourcedefinitions", "apiservices", "leases", "nonexistent", "Pods", "statefulsets", "daemonsets",
		"horizontalpodautoscalers", "endpoints", "serviceaccounts", "nodes", "persistentvolumeclaims", "limitranges", "resourcequotas", "podtemplates"}
	tcObjectPaths = []string{
		"object.spec.replicas", "object.spec.template.spec.containers[0].image", "object.spec.containers[0].resources.limits",
		"object.spec.containers[0].resources", "object.data", "object.data.x", "object.spec.ports[0].targetPort", "object.metadata.labels",
		"object.metadata.creationTimestamp", "object.status.conditions[0].lastTransitionTime", "object.spec.selector.matchLabels",
		"object.spec.strategy.rollingUpdate.maxSurge", "object.items", "object.items[0].spec", "object.kind", "object.apiVersion",
		"object.spec.nope", "oldObject.spec.replicas", "object.metadata.namespace", "object.metadata.managedFields[0].fieldsV1",
		"object.binaryData", "object.binaryData.x", "object.spec.template.metadata.annotations", "object.spec.schedule",
		"object.spec.jobTemplate.spec.backoffLimit", "object.spec.type", "object.webhooks[0].clientConfig.caBundle",
		"object.spec.volumes[0].emptyDir.sizeLimit", "object.spec.activeDeadlineSeconds", "object.reason", "object.note",
		"object.eventTime", "object.spec.versions[0].schema.openAPIV3Schema", "object.spec.renewTime", "object.spec.leaseDurationSeconds",
		"object.spec.service.port", "object.spec.caBundle", "object.metadata.deletionGracePeriodSeconds", "object.spec.clusterIP",
		"object.spec.minReadySeconds", "object.status.replicas", "object.spec.template.spec.affinity.nodeAffinity",
		"object.spec.limits[0].max", "object.spec.hard", "object.template.spec", "object.secrets[0].name", "object.subsets[0].addresses",
		"params.data.max", "params.data", "params.spec.replicas", "params.nope", "params.metadata.name",
		"request.name", "request.nope", "namespaceObject.metadata.name", "namespaceObject.metadata.uid",
		"variables.s", "variables.s.replicas", "variables.n", "variables.nope",
		"authorizer.requestResource", "authorizer.group('apps')",
	}
	tcTemplates = []string{
		"%[1]s == 'a'", "%[1]s == 1", "%[1]s == true", "%[1]s == 1.5", "%[1]s == null", "%[1]s == []", "%[1]s == {}",
		"%[1]s > 3", "has(%[1]s)", "size(%[1]s) > 0", "%[1]s.startsWith('a')", "%[1]s.exists(x, x == 'a')",
		"%[1]s < timestamp('2024-01-02T03:04:05Z')", "%[1]s > duration('1s')", "type(%[1]s) == string", "%[1]s",
		"string(%[1]s)", "%[1]s.?foo.orValue(1) == 1", "%[1]s.all(k, k != '')", "%[1]s['x'] == 'y'", "!%[1]s",
		"%[1]s + 1 > 2", "%[1]s.size() > 0 && %[1]s[0] == b'x'",
	}
	tcParamKinds = []map[string]any{
		nil, nil, {"apiVersion": "v1", "kind": "ConfigMap"}, {"apiVersion": "apps/v1", "kind": "Deployment"},
		{"apiVersion": "example.com/v1", "kind": "Missing"}, {"apiVersion": "", "kind": ""}, {"apiVersion": "v1", "kind": "Nope"},
	}
)

func tcExpr(r *rand.Rand) string {
	e := fmt.Sprintf(pick(r, tcTemplates...), pick(r, tcObjectPaths...))
	if r.IntN(4) == 0 {
		e += " && " + fmt.Sprintf(pick(r, tcTemplates...), pick(r, tcObjectPaths...))
	}
	return e
}

func genTypeCheckPolicy(r *rand.Rand) map[string]any {
	var rules []any
	for i := 0; i < 1+r.IntN(2); i++ {
		rules = append(rules, map[string]any{
			"apiGroups":   tcAny(append(some(r, 2, tcGroups...), pick(r, "", "apps", "batch", "apiextensions.k8s.io"))),
			"apiVersions": tcAny(append(some(r, 1, tcVersions...), "v1")),
			"operations":  []any{"*"},
			"resources":   tcAny(append(some(r, 8, tcResources...), pick(r, "deployments", "pods", "configmaps", "jobs", "customresourcedefinitions"))),
		})
	}
	spec := map[string]any{"matchConstraints": map[string]any{"resourceRules": rules}}
	if pk := pick(r, tcParamKinds...); pk != nil {
		spec["paramKind"] = pk
	}
	if r.IntN(2) == 0 {
		spec["variables"] = []any{
			map[string]any{"name": "s", "expression": pick(r, "object.spec", "object.spec.replicas", "object.data", "object.metadata.labels", "object.nope", "[object.kind]")},
			map[string]any{"name": "n", "expression": pick(r, "size(variables.s)", "variables.s.replicas", "1", "variables.s[0]")},
		}
	}
	var vals []any
	for i := 0; i < 1+r.IntN(3); i++ {
		v := map[string]any{"expression": tcExpr(r)}
		if r.IntN(2) == 0 {
			v["messageExpression"] = tcExpr(r)
		}
		vals = append(vals, v)
	}
	spec["validations"] = vals
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "p"}, "spec": spec}
}

func tcAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// typeNameDigits hides the nanosecond the type checker names types with.
var typeNameDigits = regexp.MustCompile(`\b([A-Z][A-Za-z]*)[0-9]+\b`)

func normaliseWarnings(ws any) string {
	b, _ := json.Marshal(ws)
	return typeNameDigits.ReplaceAllString(string(b), "$1#")
}

func refTypeCheck(t testing.TB, tc *validating.TypeChecker, p map[string]any) []policystatus.ExpressionWarning {
	var pol admissionregistrationv1.ValidatingAdmissionPolicy
	fromMap(t, p, &pol)
	var out []policystatus.ExpressionWarning
	for _, w := range tc.Check(&pol) {
		out = append(out, policystatus.ExpressionWarning{FieldRef: w.FieldRef, Warning: w.Warning})
	}
	return out
}

// TestTypeCheck compares policystatus.TypeCheck with the apiserver's TypeChecker
// (the validatingadmissionpolicy-status controller's) over the RESTMapper of
// the real cluster's discovery and a schema resolver over its OpenAPI v3
// documents, on generated policies: matched kinds, params, variables and
// expressions right and wrong.
func TestTypeCheck(t *testing.T) {
	h := clusterRESTMapper(t)
	tc := &validating.TypeChecker{SchemaResolver: newServedResolver(t), RestMapper: restmapper.NewDiscoveryRESTMapper(h.grs)}
	r := rand.New(rand.NewPCG(6, 2))
	// The reference costs ~120 ms a policy (it builds an environment per
	// expression and kind): 40 normally, 10,000 with WRITEPATH_LONG=1.
	n := 40
	if os.Getenv("WRITEPATH_LONG") != "" {
		n = 10000
	}
	if s := os.Getenv("WRITEPATH_TYPECHECK_CASES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	disagree, warned := 0, 0
	for i := 0; i < n; i++ {
		p := genTypeCheckPolicy(r)
		ref := refTypeCheck(t, tc, p)
		got, err := policystatus.TypeCheck(p, policystatus.Options{})
		require.NoError(t, err)
		if len(ref) > 0 {
			warned++
		}
		if !assert.Equal(t, normaliseWarnings(ref), normaliseWarnings(got), "case %d: %s", i, mustJSON(p)) {
			disagree++
			if disagree > 5 {
				t.Fatal("too many disagreements")
			}
		}
	}
	t.Logf("%d policies (%d with warnings), %d disagreements", n, warned, disagree)
}

// TestTypeCheckGoldens writes (UPDATE_GOLDEN=1) or checks the reference
// TypeChecker's warnings for testdata/admission/typecheck/policies.yaml, which
// admission.TestTypeCheckGoldens replays.
func TestTypeCheckGoldens(t *testing.T) {
	h := clusterRESTMapper(t)
	tc := &validating.TypeChecker{SchemaResolver: newServedResolver(t), RestMapper: restmapper.NewDiscoveryRESTMapper(h.grs)}
	dir := "../../testdata/admission/typecheck"
	b, err := os.ReadFile(filepath.Join(dir, "policies.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments(b)
	require.NoError(t, err)
	out := map[string]any{}
	for _, d := range docs {
		name := d["metadata"].(map[string]any)["name"].(string)
		ws := refTypeCheck(t, tc, d)
		var norm any
		require.NoError(t, json.Unmarshal([]byte(normaliseWarnings(ws)), &norm))
		out[name] = norm
	}
	got, err := yaml.Marshal(out)
	require.NoError(t, err)
	path := filepath.Join(dir, "warnings.golden.yaml")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func BenchmarkTypeCheckOurs(b *testing.B) {
	r := rand.New(rand.NewPCG(6, 2))
	ps := make([]map[string]any, 50)
	for i := range ps {
		ps[i] = genTypeCheckPolicy(r)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = policystatus.TypeCheck(ps[i%len(ps)], policystatus.Options{})
	}
}

func BenchmarkTypeCheckReference(b *testing.B) {
	h := clusterRESTMapper(b)
	tc := &validating.TypeChecker{SchemaResolver: newServedResolver(b), RestMapper: restmapper.NewDiscoveryRESTMapper(h.grs)}
	r := rand.New(rand.NewPCG(6, 2))
	ps := make([]map[string]any, 50)
	for i := range ps {
		ps[i] = genTypeCheckPolicy(r)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = refTypeCheck(b, tc, ps[i%len(ps)])
	}
}
