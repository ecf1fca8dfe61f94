package policystatus_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/controllers/policystatus"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// TestRealClusterTypeCheckStatus replays testdata/admission/realcluster-typecheck: the
// status.typeChecking kube-controller-manager 1.37's validatingadmissionpolicy-status controller
// wrote for 26 policies (type errors in validations and messageExpressions, none reported for
// audit annotations and match conditions, variables, params of built-in kinds, a CRD and an
// unknown kind, several resources and kinds, wildcards, more than 10 kinds, none at all).
// TypeCheck must give the same expressionWarnings, field refs and texts byte for byte (the
// nanoseconds in type names aside).
func TestRealClusterTypeCheckStatus(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "admission", "realcluster-typecheck")
	cb, err := os.ReadFile(filepath.Join(dir, "crd.yaml"))
	require.NoError(t, err)
	crdObj, err := codec.DecodeObject(cb)
	require.NoError(t, err)
	crd, err := schema.FromCRD(crdObj)
	require.NoError(t, err)
	pb, err := os.ReadFile(filepath.Join(dir, "policies.yaml"))
	require.NoError(t, err)
	policies, err := codec.DecodeDocuments(pb)
	require.NoError(t, err)
	sb, err := os.ReadFile(filepath.Join(dir, "status.json"))
	require.NoError(t, err)
	var status map[string]struct {
		TypeChecking *struct {
			ExpressionWarnings []policystatus.ExpressionWarning `json:"expressionWarnings"`
		} `json:"typeChecking"`
	}
	require.NoError(t, json.Unmarshal(sb, &status))
	require.Len(t, status, len(policies))
	require.GreaterOrEqual(t, len(policies), 20)
	warned := 0
	for _, p := range policies {
		name := p["metadata"].(map[string]any)["name"].(string)
		t.Run(name, func(t *testing.T) {
			st, ok := status[name]
			require.True(t, ok)
			require.NotNil(t, st.TypeChecking, "the controller checked %s", name)
			want := st.TypeChecking.ExpressionWarnings
			got, err := policystatus.TypeCheck(p, policystatus.Options{CRDs: []*schema.CRD{crd}})
			require.NoError(t, err)
			if len(want) > 0 {
				warned++
			}
			norm := func(ws []policystatus.ExpressionWarning) []policystatus.ExpressionWarning {
				out := make([]policystatus.ExpressionWarning, len(ws))
				for i, w := range ws {
					out[i] = policystatus.ExpressionWarning{FieldRef: w.FieldRef, Warning: typeNameDigits.ReplaceAllString(w.Warning, "${1}0")}
				}
				return out
			}
			assert.Equal(t, norm(want), norm(got))
		})
	}
	assert.GreaterOrEqual(t, warned, 15)
}
