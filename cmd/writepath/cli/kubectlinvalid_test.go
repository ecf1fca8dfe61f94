package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/status"
)

// kubectlInvalid prints a 422 as kubectl 1.37's checkErr does (k8s.io/kubectl pkg/cmd/util:
// statusCausesToAggrError drops repeated "field: message" causes, MultilineError puts one cause
// on the line and several on "* " lines).
func TestKubectlInvalid(t *testing.T) {
	cause := func(f, m string) status.Cause { return status.Cause{Field: f, Message: m} }
	for _, tt := range []struct {
		name string
		err  *status.Error
		want string
	}{
		{"no details, message", &status.Error{Message: "bad"}, "The request is invalid: bad\n"},
		{"no details, no message", &status.Error{}, "The request is invalid\n"},
		{"kind and name, no causes", &status.Error{Message: "m", Details: &status.Details{Kind: "ConfigMap", Name: "cm"}},
			"The ConfigMap \"cm\" is invalid\n"},
		{"message without kind, name or causes", &status.Error{Message: "m", Details: &status.Details{}},
			"The request is invalid: m\n"},
		{"one cause", &status.Error{Details: &status.Details{Kind: "Pod", Name: "p", Causes: []status.Cause{cause("spec", "Required value")}}},
			"The Pod \"p\" is invalid: spec: Required value\n"},
		{"a repeated cause is printed once", &status.Error{Details: &status.Details{Kind: "Pod", Name: "p",
			Causes: []status.Cause{cause("spec", "Required value"), cause("spec", "Required value")}}},
			"The Pod \"p\" is invalid: spec: Required value\n"},
		{"several causes", &status.Error{Details: &status.Details{Kind: "Pod", Name: "p",
			Causes: []status.Cause{cause("a", "x"), cause("b", "y"), cause("a", "x")}}},
			"The Pod \"p\" is invalid: \n* a: x\n* b: y\n"},
	} {
		assert.Equal(t, tt.want, kubectlInvalid(tt.err), tt.name)
	}
}
