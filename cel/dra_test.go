package cel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCompileDeviceSelector checks the DRA environment's declarations and limits: what
// device declares (and does not), the output types a selector may have, and the cost
// estimate against DeviceSelectorMaxCost. conformance/defaults compares the words with the
// apiserver's.
func TestCompileDeviceSelector(t *testing.T) {
	tests := []struct {
		expr      string
		errPart   string // "" when the expression compiles
		overLimit bool
	}{
		{expr: `device.driver == "gpu.example.com"`},
		{expr: `device.allowMultipleAllocations`},
		{expr: `device.attributes["gpu.example.com"].model == "a100"`},
		{expr: `device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0`},
		{expr: `cel.bind(dra, device.attributes["dra.example.com"], dra.a && dra.b)`},
		{expr: `device.attributes["x"].y`}, // any: allowed as the attribute type
		{expr: `device.nope == 1`, errPart: "undefined field 'nope'"},
		{expr: `params.x`, errPart: "undeclared reference to 'params'"},
		{expr: `device.driver`, errPart: "must evaluate to bool or the unknown type, not string"},
		{expr: `device.attributes`, errPart: "must evaluate to bool or the unknown type, not map("},
		{expr: `[1].includes(1)`, errPart: "compilation failed"}, // DRAListTypeAttributes is off
		{expr: `device.attributes.all(d, device.attributes[d].all(k, device.attributes.all(e, device.attributes[e].all(l, device.attributes[e][l] == device.attributes[d][k]))))`, overLimit: true},
	}
	for _, tc := range tests {
		r := CompileDeviceSelector(tc.expr)
		if tc.errPart != "" {
			assert.Contains(t, r.Err, tc.errPart, tc.expr)
			assert.False(t, r.Internal, tc.expr)
			continue
		}
		assert.Empty(t, r.Err, tc.expr)
		assert.Equal(t, tc.overLimit, r.MaxCost > DeviceSelectorMaxCost, "%s: cost %d", tc.expr, r.MaxCost)
	}
	assert.True(t, strings.HasPrefix(CompileDeviceSelector("(").Err, "compilation failed: "))
}
