package cel

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"

	wcel "github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
)

// internalCRD converts a CRD as written to the apiserver's internal form, as it stores it
// (resourceVersion set: an update must carry one).
func internalCRD(t testing.TB, crd map[string]any) *apiextensions.CustomResourceDefinition {
	var v1 apiextensionsv1.CustomResourceDefinition
	b, _ := json.Marshal(crd)
	require.NoError(t, json.Unmarshal(b, &v1))
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	v1.ResourceVersion = "1"
	var internal apiextensions.CustomResourceDefinition
	require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil))
	return &internal
}

// refValidateCRDUpdate is apiextensions' ValidateCustomResourceDefinitionUpdate.
func refValidateCRDUpdate(t testing.TB, crd, old map[string]any) []string {
	return kStrings(crdvalidation.ValidateCustomResourceDefinitionUpdate(context.Background(), internalCRD(t, crd), internalCRD(t, old)))
}

// storedOnlyRules are expressions that compile in kube-apiserver 1.37's stored expressions
// environment (every library) but not in its new expressions environment (compatibility
// version 1.36): the Kubernetes lists library's includes() arrived in 1.37.
func storedOnlyRule(r *rand.Rand) map[string]any {
	switch r.IntN(4) {
	case 0:
		return map[string]any{"rule": "[1, 2].includes(2)"}
	case 1:
		return map[string]any{"rule": "['a', 'b'].includes('c') || true", "message": "never"}
	case 2:
		return map[string]any{"rule": "true", "messageExpression": "[1].includes(1) ? 'yes' : 'no'"}
	default:
		return map[string]any{"rule": "[1].includes(1)", "messageExpression": "['x'].includes('y') ? 'a' : 'b'"}
	}
}

// ruleHolders returns the schema nodes (maps) of a CRD as written that have rules, in a
// deterministic order.
func ruleHolders(v any, out *[]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["x-kubernetes-validations"]; ok {
			*out = append(*out, x)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "x-kubernetes-validations" || k == "default" || k == "example" || k == "enum" {
				continue
			}
			ruleHolders(x[k], out)
		}
	case []any:
		for _, e := range x {
			ruleHolders(e, out)
		}
	}
}

func crdSchemas(crd map[string]any) []map[string]any {
	var out []map[string]any
	for _, v := range crd["spec"].(map[string]any)["versions"].([]any) {
		out = append(out, v.(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any))
	}
	return out
}

// mutateCRD changes a copy of old as an update would: unchanged, a rule changed, added or
// removed, a stored-only rule added or moved, an unrelated schema change, a version added or
// removed. It returns the new CRD and the kind of change.
func mutateCRD(r *rand.Rand, g *schemaGen, old map[string]any) (map[string]any, string) {
	crd := toJSONModel(old).(map[string]any)
	schemas := crdSchemas(crd)
	var holders []map[string]any
	for _, s := range schemas {
		ruleHolders(s, &holders)
	}
	switch k := r.IntN(10); {
	case k == 0 || k == 1:
		return crd, "unchanged"
	case k == 2 && len(holders) > 0:
		h := holders[r.IntN(len(holders))]
		rules := h["x-kubernetes-validations"].([]any)
		rule := rules[r.IntN(len(rules))].(map[string]any)
		if me, ok := rule["messageExpression"].(string); ok && r.IntN(2) == 0 {
			rule["messageExpression"] = "(" + me + ") + ''"
		} else {
			rule["rule"] = "(" + rule["rule"].(string) + ") || false"
		}
		return crd, "rule changed"
	case k == 3:
		root := schemas[r.IntN(len(schemas))]
		var add map[string]any
		if r.IntN(2) == 0 {
			add = storedOnlyRule(r)
		} else if rs := g.rules("object", objectFields(root)); len(rs) > 0 {
			add = rs[0].(map[string]any)
		} else {
			add = map[string]any{"rule": "self == self"}
		}
		rules, _ := root["x-kubernetes-validations"].([]any)
		root["x-kubernetes-validations"] = append(rules, add)
		return crd, "rule added"
	case k == 4 && len(holders) > 0:
		h := holders[r.IntN(len(holders))]
		rules := h["x-kubernetes-validations"].([]any)
		i := r.IntN(len(rules))
		rules = append(rules[:i:i], rules[i+1:]...)
		if len(rules) == 0 {
			delete(h, "x-kubernetes-validations")
		} else {
			h["x-kubernetes-validations"] = rules
		}
		return crd, "rule removed"
	case k == 5 && len(holders) > 0:
		// a rule of the old CRD moved (copied) to another root: still preexisting
		h := holders[r.IntN(len(holders))]
		rules := h["x-kubernetes-validations"].([]any)
		rule := rules[r.IntN(len(rules))].(map[string]any)
		if !strings.Contains(fmt.Sprint(rule), "includes") {
			rule = storedOnlyRule(r)
		}
		root := schemas[r.IntN(len(schemas))]
		dst, _ := root["x-kubernetes-validations"].([]any)
		root["x-kubernetes-validations"] = append(dst, toJSONModel(rule))
		return crd, "rule moved"
	case k == 6:
		schemas[r.IntN(len(schemas))]["description"] = "changed"
		return crd, "unrelated change"
	case k == 7:
		versions := crd["spec"].(map[string]any)["versions"].([]any)
		if len(versions) > 1 {
			crd["spec"].(map[string]any)["versions"] = versions[:1]
			return crd, "version removed"
		}
		second := toJSONModel(versions[0]).(map[string]any)
		second["name"], second["storage"] = "v2", false
		switch r.IntN(3) {
		case 0:
			second["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["description"] = "v2"
		case 1:
			// the same schema to the apiserver: still shared (spec.validation)
			rewriteSame(second["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any))
		}
		crd["spec"].(map[string]any)["versions"] = append(versions, second)
		return crd, "version added"
	case k == 8:
		for _, s := range schemas {
			rewriteSame(s)
		}
		return crd, "rewritten, same meaning"
	default:
		return crd, "unchanged"
	}
}

// oldCRD generates a CRD as stored: generated rules, maybe expensive ones, maybe expressions
// only the stored expressions environment compiles.
func oldCRD(r *rand.Rand, g *schemaGen) map[string]any {
	root, _ := g.object(0)
	if rs := g.rules("object", objectFields(root)); len(rs) > 0 {
		root["x-kubernetes-validations"] = rs
	}
	if r.IntN(3) == 0 {
		rs, _ := root["x-kubernetes-validations"].([]any)
		root["x-kubernetes-validations"] = append(rs, storedOnlyRule(r))
	}
	if r.IntN(2) == 0 {
		props, rules := expensiveRule(r)
		props["x-kubernetes-validations"] = rules
		if r.IntN(2) == 0 {
			root["properties"].(map[string]any)["many"] = map[string]any{"type": "array", "items": props}
		} else {
			root["properties"].(map[string]any)["spec"] = props
		}
	}
	var second map[string]any
	switch r.IntN(4) {
	case 0:
		second, _ = g.object(0)
		if r.IntN(2) == 0 {
			second["x-kubernetes-validations"] = []any{storedOnlyRule(r)}
		}
	case 1:
		second = root
	}
	return crdFor(root, second)
}

func TestCRDUpdateRulesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 11))
	g := &schemaGen{r: r}
	n := sampleSize(400, 100000) // compared pairs (generated CRDs the schema package refuses are skipped)
	long := os.Getenv("WRITEPATH_LONG") != ""
	stats := map[string]int{}
	var disagreements []string
	for stats["compared"] < n {
		old := oldCRD(r, g)
		crd, kind := mutateCRD(r, g, old)
		mine, err := schema.FromCRD(crd)
		if err != nil {
			stats["rejected by schema"]++
			continue
		}
		mineOld, err := schema.FromCRD(old)
		if err != nil {
			stats["old rejected by schema"]++
			continue
		}
		want := normalise(refValidateCRDUpdate(t, crd, old))
		got := normalise(wStrings(wcel.ValidateCRDUpdate(mine, mineOld, wcel.Options{})))
		stats["compared"]++
		stats[kind]++
		if len(want) > 0 {
			stats["with errors"]++
		}
		if long && stats["compared"]%5000 == 0 {
			t.Logf("progress: %d compared, %d disagreements", stats["compared"], len(disagreements))
		}
		// What the update changes compared with a create of the same CRD (every 10th pair in
		// the long run, to save time).
		if long && stats["compared"]%10 != 0 {
			// skip
		} else if create := normalise(refValidateCRD(t, crd)); fmt.Sprint(create) != fmt.Sprint(want) {
			stats["differs from create"]++
			if count(create, "undeclared reference to 'includes'") > count(want, "undeclared reference to 'includes'") {
				stats["stored-only expressions accepted"]++
			}
			if count(create, "estimated rule cost exceeds") > count(want, "estimated rule cost exceeds") {
				stats["per-expression cost not enforced"]++
			}
		}
		for _, e := range want {
			if strings.Contains(e, "exceeds budget") {
				stats["cost errors"]++
				break
			}
		}
		if fmt.Sprint(want) != fmt.Sprint(got) {
			// Same tolerance as TestCRDRulesAgree: the apiserver's most-expensive-rule ties.
			answers := map[string]bool{fmt.Sprint(want): true}
			for try := 0; try < 30 && fmt.Sprint(want) != fmt.Sprint(got); try++ {
				again := normalise(refValidateCRDUpdate(t, crd, old))
				answers[fmt.Sprint(again)] = true
				if fmt.Sprint(again) == fmt.Sprint(got) {
					want = again
					stats["apiserver nondeterministic"]++
				}
			}
			if fmt.Sprint(want) != fmt.Sprint(got) && len(answers) > 1 && sameWithoutTopCost(want, got) {
				stats["most-expensive tie listed differently (apiserver order varies)"]++
				continue
			}
		}
		if !assert.Equal(t, want, got, "%s update\nold %s\nnew %s", kind, mustJSON(old), mustJSON(crd)) {
			disagreements = append(disagreements, mustJSON(crd))
			if len(disagreements) > 10 {
				t.FailNow()
			}
		}
	}
	t.Logf("CRD update rules: %v, %d disagreements", stats, len(disagreements))
	require.Positive(t, stats["differs from create"])
	require.Positive(t, stats["stored-only expressions accepted"])
	require.Positive(t, stats["per-expression cost not enforced"])
	require.Positive(t, stats["cost errors"])
	for _, k := range []string{"unchanged", "rule changed", "rule added", "rule removed", "rule moved", "unrelated change", "version added", "version removed", "rewritten, same meaning"} {
		require.Positive(t, stats[k], k)
	}
}

func count(l []string, sub string) int {
	n := 0
	for _, e := range l {
		if strings.Contains(e, sub) {
			n++
		}
	}
	return n
}

// TestCRDUpdatePairsAgree runs writepath's hand-written update cases
// (testdata/cel/crdupdate/*.yaml: the stored CRD, ---, the new CRD) through both validators.
func TestCRDUpdatePairsAgree(t *testing.T) {
	files, err := filepath.Glob("../../testdata/cel/crdupdate/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			docs := strings.Split(string(data), "\n---\n")
			require.Len(t, docs, 2)
			var pair [2]map[string]any
			for i, d := range docs {
				j, err := yaml.YAMLToJSON([]byte(d))
				require.NoError(t, err)
				var m map[string]any
				require.NoError(t, json.Unmarshal(j, &m))
				pair[i] = toJSONModel(m).(map[string]any)
			}
			old, crd := pair[0], pair[1]
			mine, err := schema.FromCRD(crd)
			require.NoError(t, err)
			mineOld, err := schema.FromCRD(old)
			require.NoError(t, err)
			assert.Equal(t, normalise(refValidateCRDUpdate(t, crd, old)), normalise(wStrings(wcel.ValidateCRDUpdate(mine, mineOld, wcel.Options{}))))
			assert.Equal(t, normalise(refValidateCRD(t, crd)), normalise(wStrings(wcel.ValidateCRD(mine, wcel.Options{}))))
		})
	}
}

// rewriteSame writes a schema differently without changing it for the apiserver (its internal
// form compares semantically): an empty message on rules without one, an empty required list.
func rewriteSame(root map[string]any) {
	var holders []map[string]any
	ruleHolders(root, &holders)
	for _, h := range holders {
		for _, rule := range h["x-kubernetes-validations"].([]any) {
			if _, ok := rule.(map[string]any)["message"]; !ok {
				rule.(map[string]any)["message"] = ""
			}
		}
	}
	if _, ok := root["required"]; !ok {
		root["required"] = []any{}
	}
}
