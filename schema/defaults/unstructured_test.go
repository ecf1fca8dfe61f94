package defaults_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

var (
	deployGVK  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	serviceGVK = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
)

// TestDefaultBuiltinUnstructuredNumbers: numbers as runtime.DefaultUnstructuredConverter reads
// them into the Go type (the answers recorded from kube-apiserver 1.37 in
// testdata/apply/realcluster-numbers, where the apply tests replay them end to end).
func TestDefaultBuiltinUnstructuredNumbers(t *testing.T) {
	replicas := func(v any) map[string]any { return map[string]any{"spec": map[string]any{"replicas": v}} }
	grace := func(v any) map[string]any {
		return map[string]any{"spec": map[string]any{"terminationGracePeriodSeconds": v, "containers": []any{map[string]any{"name": "c"}}}}
	}
	deadline := func(v any) map[string]any {
		return map[string]any{"spec": map[string]any{"activeDeadlineSeconds": v, "containers": []any{map[string]any{"name": "c"}}}}
	}
	port := func(p, target any) map[string]any {
		return map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"port": p, "targetPort": target}}}}
	}
	tests := []struct {
		name string
		gvk  schema.GroupVersionKind
		obj  map[string]any
		path []any // where the result is read
		want any   // the value there, or the error text
		err  bool
	}{
		{"int32 wraps", deployGVK, replicas(int64(4294967297)), []any{"spec", "replicas"}, int64(1), false},
		{"int32 wraps to negative", deployGVK, replicas(int64(2147483648)), []any{"spec", "replicas"}, int64(math.MinInt32), false},
		{"int32 wraps from below", deployGVK, replicas(int64(-2147483649)), []any{"spec", "replicas"}, int64(math.MaxInt32), false},
		{"int32 max int64", deployGVK, replicas(int64(math.MaxInt64)), []any{"spec", "replicas"}, int64(-1), false},
		{"integral float", deployGVK, replicas(float64(4294967298)), []any{"spec", "replicas"}, int64(2), false},
		{"float beyond int64", deployGVK, replicas(1e30), []any{"spec", "replicas"}, int64(0), false},
		{"negative float beyond int64", deployGVK, replicas(-1e30), []any{"spec", "replicas"}, int64(0), false},
		{"float 2^63", deployGVK, replicas(float64(1 << 63)), []any{"spec", "replicas"}, int64(0), false},
		{"float with a fraction", deployGVK, replicas(2.5), nil, "spec.replicas: Invalid value: 2.5: cannot convert float64 to int32", true},
		{"string in int32", deployGVK, replicas("3"), nil, `spec.replicas: Invalid value: "3": unrecognized type: int32`, true},
		{"int64 keeps every digit", podGVK, grace(int64(9007199254740993)), []any{"spec", "terminationGracePeriodSeconds"}, int64(9007199254740993), false},
		{"int64 max", podGVK, grace(int64(math.MaxInt64)), []any{"spec", "terminationGracePeriodSeconds"}, int64(math.MaxInt64), false},
		{"int64 from a float beyond its range", podGVK, deadline(1e19), []any{"spec", "activeDeadlineSeconds"}, int64(math.MinInt64), false},
		// then SetDefaults_PodSpec turns a negative grace period into 1
		{"int64 from a float beyond its range, defaulted", podGVK, grace(1e19), []any{"spec", "terminationGracePeriodSeconds"}, int64(1), false},
		{"int64 from a float with a fraction", podGVK, grace(1.5), nil, "spec.terminationGracePeriodSeconds: Invalid value: 1.5: cannot convert float64 to int64", true},
		{"int32 in a list wraps", serviceGVK, port(int64(4294967376), "http"), []any{"spec", "ports", 0, "port"}, int64(80), false},
		{"IntOrString integral float", serviceGVK, port(int64(80), 8080.0), []any{"spec", "ports", 0, "targetPort"}, int64(8080), false},
		{"IntOrString string", serviceGVK, port(int64(80), "http"), []any{"spec", "ports", 0, "targetPort"}, "http", false},
		{"IntOrString does not wrap", serviceGVK, port(int64(80), int64(4294967376)), nil,
			"spec.ports[0].targetPort: Invalid value: 4294967376: json: cannot unmarshal number 4294967376 into Go value of type int32", true},
		{"IntOrString below int32", serviceGVK, port(int64(80), int64(-2147483649)), nil,
			"spec.ports[0].targetPort: Invalid value: -2147483649: json: cannot unmarshal number -2147483649 into Go value of type int32", true},
		{"IntOrString fraction", serviceGVK, port(int64(80), 8080.5), nil,
			"spec.ports[0].targetPort: Invalid value: 8080.5: json: cannot unmarshal number 8080.5 into Go value of type int32", true},
		{"IntOrString float as encoding/json writes it", serviceGVK, port(int64(80), 9223372036854775808.0), nil,
			"spec.ports[0].targetPort: Invalid value: 9.223372036854776e+18: json: cannot unmarshal number 9223372036854776000 into Go value of type int32", true},
		{"IntOrString exponent", serviceGVK, port(int64(80), 1e21), nil,
			"spec.ports[0].targetPort: Invalid value: 1e+21: json: cannot unmarshal number 1e+21 into Go value of type int32", true},
		{"bytes from a list wrap", schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			map[string]any{"binaryData": map[string]any{"b": []any{int64(256), int64(-1), nil, 65.0}}}, []any{"binaryData", "b"}, "AP8AQQ==", false},
		{"bytes from a list, fraction", schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			map[string]any{"binaryData": map[string]any{"b": []any{int64(1), 1.5}}}, nil, "binaryData[b][1]: Invalid value: 1.5: cannot convert float64 to uint8", true},
		{"IntOrString bool", serviceGVK, port(int64(80), true), nil,
			"spec.ports[0].targetPort: Invalid value: true: json: cannot unmarshal bool into Go value of type int32", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := defaults.Builtin(tt.gvk, tt.obj, defaults.Options{Unstructured: true})
			if tt.err {
				require.Error(t, err)
				var fe *field.Error
				assert.True(t, errors.As(err, &fe), "a *field.Error")
				assert.Equal(t, tt.want, err.Error())
				return
			}
			require.NoError(t, err)
			var cur any = out
			for _, p := range tt.path {
				switch k := p.(type) {
				case string:
					cur = cur.(map[string]any)[k]
				case int:
					cur = cur.([]any)[k]
				}
			}
			assert.Equal(t, tt.want, cur)
			// What the converter stores, the JSON decoder reads back unchanged.
			again, err := defaults.Builtin(tt.gvk, out, defaults.Options{})
			require.NoError(t, err)
			assert.Equal(t, out, again)
		})
	}
}

// TestDefaultBuiltinUnstructuredAgreesInRange: for numbers in range the two readings are the
// same; only the JSON decoder refuses what the converter wraps.
func TestDefaultBuiltinUnstructuredAgreesInRange(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{
		"terminationGracePeriodSeconds": float64(40),
		"containers": []any{map[string]any{"name": "c", "ports": []any{map[string]any{"containerPort": 8080.0}},
			"livenessProbe": map[string]any{"httpGet": map[string]any{"port": int64(8080)}}}}}}}}
	a, err := defaults.Builtin(deployGVK, obj, defaults.Options{})
	require.NoError(t, err)
	b, err := defaults.Builtin(deployGVK, obj, defaults.Options{Unstructured: true})
	require.NoError(t, err)
	assert.Equal(t, a, b)

	obj["spec"].(map[string]any)["replicas"] = int64(4294967299)
	_, err = defaults.Builtin(deployGVK, obj, defaults.Options{})
	assert.Error(t, err, "the JSON decoder refuses an int32 overflow")
	b, err = defaults.Builtin(deployGVK, obj, defaults.Options{Unstructured: true})
	require.NoError(t, err)
	assert.Equal(t, int64(3), b["spec"].(map[string]any)["replicas"])
}

// The converter's words for what does not decode: a []byte field's base64 error behind "error
// decoding from json: ", a quantity's parse error as it is.
func TestConverterCause(t *testing.T) {
	secret := schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	_, err := defaults.Builtin(secret, map[string]any{"data": map[string]any{"a": "!!"}}, defaults.Options{Unstructured: true})
	require.Error(t, err)
	assert.Equal(t, "error decoding from json: illegal base64 data at input byte 0", defaults.ConverterCause(err))

	quota := schema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}
	_, err = defaults.Builtin(quota, map[string]any{"spec": map[string]any{"hard": map[string]any{"cpu": "1Qi"}}}, defaults.Options{Unstructured: true})
	require.Error(t, err)
	assert.Equal(t, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", defaults.ConverterCause(err))

	assert.Equal(t, "plain", defaults.ConverterCause(errors.New("plain")), "an error that is no *field.Error is its text")
}
