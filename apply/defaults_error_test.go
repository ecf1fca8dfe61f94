package apply_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/status"
)

// TestApplyUnconvertibleObject: a merged built-in object that does not decode into its Go type
// fails as the apiserver's conversion to the versioned type fails (messages recorded from
// kube-apiserver 1.37 with kubectl apply --server-side).
func TestApplyUnconvertibleObject(t *testing.T) {
	cases := []struct {
		name   string
		config map[string]any
		want   string
	}{{
		name: "quantity",
		config: map[string]any{"apiVersion": "v1", "kind": "ResourceQuota",
			"metadata": map[string]any{"name": "badq", "namespace": "lead-probe"},
			"spec":     map[string]any{"hard": map[string]any{"cpu": "abc"}}},
		want: `failed to convert new object (lead-probe/badq; /v1, Kind=ResourceQuota) to proper version: unable to convert unstructured object to /v1, Kind=ResourceQuota: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	}, {
		name: "limit range quantity in a list",
		config: map[string]any{"apiVersion": "v1", "kind": "LimitRange",
			"metadata": map[string]any{"name": "badl", "namespace": "lead-probe"},
			"spec":     map[string]any{"limits": []any{map[string]any{"type": "Container", "max": map[string]any{"cpu": "1x"}}}}},
		want: `failed to convert new object (lead-probe/badl; /v1, Kind=LimitRange) to proper version: unable to convert unstructured object to /v1, Kind=LimitRange: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	}, {
		name: "base64",
		config: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "bads", "namespace": "lead-probe"},
			"data":     map[string]any{"a": "!!!"}},
		want: `failed to convert new object (lead-probe/bads; /v1, Kind=Secret) to proper version: unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 0`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := apply.Apply(apply.Request{Config: c.config, Manager: "lead", Now: time.Unix(1700000000, 0).UTC()})
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			assert.Equal(t, 500, status.CodeOf(err))
			assert.Equal(t, status.Reason(""), status.ReasonOf(err), "kubectl prints it without a reason")
			// with defaulting off the merge itself succeeds
			_, err = apply.Apply(apply.Request{Config: c.config, Manager: "lead", Now: time.Unix(1700000000, 0).UTC(), Default: apply.NoDefault})
			assert.NoError(t, err)
		})
	}
}
