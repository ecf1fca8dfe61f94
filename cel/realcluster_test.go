package cel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// recorded is what the real kube-apiserver 1.37 answered (testdata/cel/realcluster/record.sh).
type recorded struct {
	CRDCode  int            `json:"crdCode"`
	CRDBody  map[string]any `json:"crdBody"`
	Stored   map[string]any `json:"stored"`
	Code     int            `json:"code"`
	Body     map[string]any `json:"body"`
	Warnings []string       `json:"warnings"`
}

var selfTypeSuffix = regexp.MustCompile(`selfType\d+`)

// causes renders the causes of a Status body, sorted: the apiserver walks properties in Go map
// order, so the order of causes from different fields varies between its runs.
func causes(body map[string]any) []string {
	d, _ := body["details"].(map[string]any)
	list, _ := d["causes"].([]any)
	var out []string
	for _, c := range list {
		m := c.(map[string]any)
		out = append(out, selfTypeSuffix.ReplaceAllString(m["reason"].(string)+" "+m["field"].(string)+": "+m["message"].(string), "selfType"))
	}
	sort.Strings(out)
	return out
}

func statusCauses(t *testing.T, st *status.Error) []string {
	data, err := json.Marshal(st)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(data, &body))
	return causes(body)
}

// warningText decodes a Warning header value (299 - "text").
func warningText(t *testing.T, h string) string {
	q := strings.TrimPrefix(h, "299 - ")
	s, err := strconv.Unquote(q)
	require.NoError(t, err, h)
	return s
}

// TestRealClusterReplay replays what a real kube-apiserver 1.37 answered to the cases of
// testdata/cel/rules: CRD acceptance and its causes (compilation, cost limits), the object's
// 422 causes and the ratcheting warnings.
func TestRealClusterReplay(t *testing.T) {
	files, err := filepath.Glob("../testdata/cel/realcluster/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var rec recorded
			require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(data, &rec))
			c := loadRuleCase(t, filepath.Join("..", "testdata", "cel", "rules", name+".json"))
			crd, err := schema.FromCRD(c.CRD)
			require.NoError(t, err)
			crdErrs := cel.ValidateCRD(crd, cel.Options{})
			if rec.CRDCode == 422 {
				require.NotEmpty(t, crdErrs)
				st := status.Invalid(status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, crd.Name, crdErrs)
				assert.Equal(t, causes(rec.CRDBody), statusCauses(t, st))
				return
			}
			require.Empty(t, crdErrs)
			v := crd.Versions[0]
			obj := c.Object
			var old map[string]any
			if rec.Stored != nil {
				old = rec.Stored
				obj = withResourceVersion(c.Object, old)
			}
			res, err := v.Process(schema.Request{Object: obj, Old: old})
			require.NoError(t, err)
			r := cel.ValidateCustomResource(context.Background(), v, res.Object, old, res.Errors)
			errs := append(append(field.ErrorList{}, res.Errors...), r.Errors...)
			if rec.Code == 422 {
				assert.Equal(t, causes(rec.Body), statusCauses(t, v.Invalid(res.Object, errs)))
			} else {
				assert.Empty(t, errs)
			}
			var want []string
			for _, w := range rec.Warnings {
				want = append(want, warningText(t, w))
			}
			sort.Strings(want)
			got := append([]string(nil), r.Warnings...)
			sort.Strings(got)
			assert.Equal(t, want, got)
		})
	}
}

func withResourceVersion(obj, stored map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md := map[string]any{}
	for k, v := range obj["metadata"].(map[string]any) {
		md[k] = v
	}
	md["resourceVersion"] = stored["metadata"].(map[string]any)["resourceVersion"]
	out["metadata"] = md
	return out
}
