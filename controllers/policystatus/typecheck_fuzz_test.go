package policystatus_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/controllers/policystatus"
)

// FuzzTypeCheck: any decoded policy type-checks without panicking and is not modified.
func FuzzTypeCheck(f *testing.F) {
	f.Add(`{"kind":"ValidatingAdmissionPolicy","spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"]}]},"validations":[{"expression":"object.spec.replicaz > 1","messageExpression":"params.x"}]}}`)
	f.Add(`{"kind":"ValidatingAdmissionPolicy","spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"variables":[{"name":"a","expression":"object.data"}],"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps","lists","events"]}]},"validations":[{"expression":"variables.a.x == params.data.y"}]}}`)
	f.Add(`{"kind":"ValidatingAdmissionPolicy","spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[1],"apiVersions":"v1","resources":null}]},"validations":[7,{"expression":3}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var p map[string]any
		if json.Unmarshal([]byte(in), &p) != nil || p == nil {
			return
		}
		before, _ := json.Marshal(p)
		_, _ = policystatus.TypeCheck(p, policystatus.Options{})
		after, _ := json.Marshal(p)
		assert.JSONEq(t, string(before), string(after))
	})
}
