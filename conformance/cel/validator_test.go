package cel

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kcel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/runtime"
	kfield "k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/warning"
	kjson "sigs.k8s.io/json"

	wcel "github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

type recorder struct {
	mu       sync.Mutex
	warnings []string
}

func (r *recorder) AddWarning(_, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

// selfTypeName normalises the apiserver's clock-derived object type names.
var selfTypeName = regexp.MustCompile(`selfType\d+`)

func normalise(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = selfTypeName.ReplaceAllString(x, "selfType")
	}
	sort.Strings(out)
	return out
}

// refSchema converts a schema as written to the apiserver's structural schema.
func refSchema(t testing.TB, props map[string]any) (*structuralschema.Structural, error) {
	data, err := json.Marshal(props)
	require.NoError(t, err)
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(data, &v1); err != nil {
		return nil, err
	}
	var internal apiextensionsinternal.JSONSchemaProps
	require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil))
	return structuralschema.NewStructural(&internal)
}

func mySchema(props map[string]any) (*schema.Structural, error) {
	p, err := schema.ParseProps(toJSONModel(props), "")
	if err != nil {
		return nil, err
	}
	return schema.NewStructural(p)
}

// toJSONModel round-trips v through JSON with ints preserved (the object model).
func toJSONModel(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &out); err != nil {
		panic(err)
	}
	return out
}

func kStrings(errs kfield.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func wStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// validation is one differential case: a schema, a new object and maybe an old one.
type validation struct {
	errs, warnings []string
	budget         int64
}

func refValidate(ref *structuralschema.Structural, v *kcel.Validator, obj, old map[string]any) validation {
	rec := &recorder{}
	ctx := warning.WithWarningRecorder(context.Background(), rec)
	if v == nil {
		return validation{budget: celconfig.RuntimeCELCostBudget}
	}
	var opts []kcel.Option
	var oldAny any
	if old != nil {
		oldAny = runtime.DeepCopyJSON(old)
		opts = append(opts, kcel.WithRatcheting(common.NewCorrelatedObject(runtime.DeepCopyJSON(obj), oldAny, &model.Structural{Structural: ref})))
	}
	errs, budget := v.Validate(ctx, nil, ref, runtime.DeepCopyJSON(obj), oldAny, celconfig.RuntimeCELCostBudget, opts...)
	return validation{errs: normalise(kStrings(errs)), warnings: normalise(rec.warnings), budget: budget}
}

func myValidate(v *wcel.Validator, obj, old map[string]any) validation {
	if v == nil {
		return validation{budget: wcel.RuntimeCELCostBudget}
	}
	var oldAny any
	if old != nil {
		oldAny = old
	}
	r := v.Validate(context.Background(), field.Path{}, obj, oldAny, wcel.RuntimeCELCostBudget)
	return validation{errs: normalise(wStrings(r.Errors)), warnings: normalise(r.Warnings), budget: r.RemainingBudget}
}

func rootObject(g *schemaGen, s map[string]any) map[string]any {
	v, _ := g.value(s, 0).(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	v["apiVersion"] = "example.com/v1"
	v["kind"] = "Widget"
	v["metadata"] = map[string]any{"name": pick(g.r, "w1", "cron-1"), "namespace": "default"}
	return toJSONModel(v).(map[string]any)
}

func TestValidatorAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	g := &schemaGen{r: r}
	// schemas; each gets objectsPerSchema create/update cases (compiled once, as the apiserver).
	const objectsPerSchema = 10
	n := sampleSize(150, 10000)
	var disagreements []string
	stats := map[string]int{}
	for i := 0; i < n; i++ {
		root, _ := g.object(0)
		fields := objectFields(root)
		if rs := g.rules("object", fields); len(rs) > 0 {
			root["x-kubernetes-validations"] = rs
		}
		ref, refErr := refSchema(t, root)
		mine, myErr := mySchema(root)
		if refErr != nil || myErr != nil {
			require.Equal(t, refErr != nil, myErr != nil, "schema %v: ref=%v mine=%v", root, refErr, myErr)
			stats["schema rejected"]++
			continue
		}
		refV := kcel.NewValidator(ref, true, celconfig.PerCallLimit)
		myV := wcel.NewValidator(mine, true, wcel.Options{})
		for j := 0; j < objectsPerSchema; j++ {
			obj := rootObject(g, root)
			var old map[string]any
			if r.IntN(2) == 0 {
				old = toJSONModel(g.mutate(obj)).(map[string]any)
				if r.IntN(3) == 0 {
					old = rootObject(g, root)
				}
			}
			want := refValidate(ref, refV, obj, old)
			got := myValidate(myV, obj, old)
			stats["cases"]++
			if len(want.errs) > 0 {
				stats["with errors"]++
			}
			if len(want.warnings) > 0 {
				stats["with ratcheted warnings"]++
			}
			if fmt.Sprint(want) != fmt.Sprint(got) {
				// The apiserver ranges over Go maps (object equality, map keys in
				// comprehensions, properties): where the order matters its answer varies between
				// runs. Accept writepath's answer if the apiserver gives it in some run; if the
				// apiserver's answers vary but writepath's (fixed, sorted order) is not among
				// the rotations Go's map iteration produces, count it apart.
				answers := map[string]bool{fmt.Sprint(want): true}
				for try := 0; try < 50 && fmt.Sprint(want) != fmt.Sprint(got); try++ {
					again := refValidate(ref, refV, obj, old)
					answers[fmt.Sprint(again)] = true
					if fmt.Sprint(again) == fmt.Sprint(got) {
						want = again
						stats["apiserver nondeterministic"]++
					}
				}
				if fmt.Sprint(want) != fmt.Sprint(got) && len(answers) > 1 {
					stats["apiserver nondeterministic, writepath's order not among its runs"]++
					t.Logf("apiserver answers vary (%d seen); writepath's differs:\nschema %s\nobject %s\nold %s\nwritepath %v", len(answers), mustJSON(root), mustJSON(obj), mustJSON(old), got)
					continue
				}
			}
			if !assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "schema %s\nobject %s\nold %s", mustJSON(root), mustJSON(obj), mustJSON(old)) {
				disagreements = append(disagreements, mustJSON(root))
				if len(disagreements) > 10 {
					t.FailNow()
				}
			}
		}
	}
	t.Logf("validator: %v, %d disagreements", stats, len(disagreements))
	require.Positive(t, stats["with errors"])
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = strings.Join
