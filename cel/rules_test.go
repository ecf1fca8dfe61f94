package cel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
)

// ruleCase is one file of testdata/cel/rules: a CRD, an object and (for an update) the stored
// object.
type ruleCase struct {
	CRD    map[string]any `json:"crd"`
	Object map[string]any `json:"object"`
	Old    map[string]any `json:"old"`
}

func loadRuleCase(t *testing.T, path string) ruleCase {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var c ruleCase
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(data, &c))
	return c
}

// runRuleCase is the write path of a custom object up to CEL: schema processing, then the rules.
func runRuleCase(t *testing.T, c ruleCase) string {
	crd, err := schema.FromCRD(c.CRD)
	require.NoError(t, err)
	var b strings.Builder
	for _, e := range cel.ValidateCRD(crd, cel.Options{}) {
		b.WriteString("crd: " + e.Error() + "\n")
	}
	v := crd.Versions[0]
	res, err := v.Process(schema.Request{Object: c.Object, Old: c.Old})
	require.NoError(t, err)
	r := cel.ValidateCustomResource(context.Background(), v, res.Object, c.Old, res.Errors)
	for _, e := range append(res.Errors, r.Errors...) {
		b.WriteString("error: " + e.Error() + "\n")
	}
	for _, w := range r.Warnings {
		b.WriteString("warning: " + w + "\n")
	}
	if len(res.Errors)+len(r.Errors) > 0 {
		st := v.Invalid(res.Object, append(res.Errors, r.Errors...))
		b.WriteString("status: " + st.Error() + "\n")
	}
	return b.String()
}

func TestRulesGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/cel/rules/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			c := loadRuleCase(t, f)
			before, _ := json.Marshal(c)
			got := runRuleCase(t, c)
			after, _ := json.Marshal(c)
			require.JSONEq(t, string(before), string(after), "inputs not modified")
			golden(t, strings.TrimSuffix(f, ".json")+".golden", got)
		})
	}
}
