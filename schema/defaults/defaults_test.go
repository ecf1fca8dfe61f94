package defaults_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

var (
	podGVK   = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	quotaGVK = schema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}
	rcGVK    = schema.GroupVersionKind{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}
)

func TestDefaultBuiltinErrors(t *testing.T) {
	_, err := defaults.Builtin(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, map[string]any{}, defaults.Options{})
	var nf *schema.NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, 404, nf.StatusCode())

	assert.False(t, defaults.Handles(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}))
	// Versions not served by default: their own defaulting functions are not reproduced.
	beta := schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "MutatingAdmissionPolicy"}
	k, err := schema.Builtin(beta)
	require.NoError(t, err)
	require.False(t, k.ServedByDefault)
	assert.False(t, defaults.Handles(beta))
	_, err = defaults.Builtin(beta, map[string]any{}, defaults.Options{})
	require.EqualError(t, err, "schema: no built-in defaulting for admissionregistration.k8s.io/v1beta1, Kind=MutatingAdmissionPolicy")
	assert.True(t, defaults.Handles(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}))
	assert.True(t, defaults.Handles(podGVK))

	tests := []struct {
		name string
		gvk  schema.GroupVersionKind
		obj  string
		want string
	}{
		{"bad quantity", quotaGVK, `{"spec":{"hard":{"cpu":"1Qi"}}}`, `spec.hard[cpu]: Invalid value: "1Qi": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		{"bad suffix", quotaGVK, `{"spec":{"hard":{"cpu":"1ki"}}}`, `spec.hard[cpu]: Invalid value: "1ki": unable to parse quantity's suffix`},
		{"quantity not a string", quotaGVK, `{"spec":{"hard":{"cpu":true}}}`, `spec.hard[cpu]: Invalid value: true: expected a quantity`},
		{"int32 overflow", podGVK, `{"spec":{"containers":[{"name":"c","ports":[{"containerPort":4294967296}]}]}}`, `spec.containers[0].ports[0].containerPort: Invalid value: 4294967296: expected an integer`},
		{"string for an integer", podGVK, `{"spec":{"priority":"high"}}`, `spec.priority: Invalid value: "high": expected an integer`},
		{"bad time", podGVK, `{"metadata":{"creationTimestamp":"yesterday"}}`, `metadata.creationTimestamp: Invalid value: "yesterday": parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"list for an object", podGVK, `{"spec":[]}`, `spec: Invalid value: []: expected an object`},
		{"bad base64", schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, `{"data":{"k":"not base64!"}}`, `data[k]: Invalid value: "not base64!": illegal base64 data at input byte 3`},
		{"bad rollback annotation", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			`{"metadata":{"annotations":{"deprecated.deployment.rollback.to":"x"}}}`,
			`metadata.annotations[deprecated.deployment.rollback.to]: Invalid value: "x": failed to parse annotation[deprecated.deployment.rollback.to]=x as int64: strconv.ParseInt: parsing "x": invalid syntax`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := defaults.Builtin(tt.gvk, decodeJSON(t, tt.obj), defaults.Options{})
			var fe *field.Error
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func decodeJSON(t testing.TB, s string) map[string]any {
	var m map[string]any
	require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(s), &m))
	return m
}

// TestDefaultBuiltinFresh: the input is not modified and the result shares nothing with it.
func TestDefaultBuiltinFresh(t *testing.T) {
	in := decodeJSON(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
		"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"2"}},"args":["x"]}],
		"volumes":[{"name":"v","secret":{"secretName":"s"}}]}}`)
	before := mustJSON(t, in)
	out, err := defaults.Builtin(podGVK, in, defaults.Options{})
	require.NoError(t, err)
	assert.Equal(t, before, mustJSON(t, in))
	scribble(out)
	assert.Equal(t, before, mustJSON(t, in))
}

// scribble overwrites every map and list in v.
func scribble(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			scribble(e)
			x[k] = "scribbled"
		}
	case []any:
		for i, e := range x {
			scribble(e)
			x[i] = "scribbled"
		}
	}
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestQuantityGolden: quantities as the apiserver writes them back, rounded up to 1m
// (ResourceQuota spec.hard, SetDefaults_ResourceList) and not (RuntimeClass overhead); checked
// against resource.Quantity by conformance/defaults. UPDATE_GOLDEN=1 rewrites the golden file.
func TestQuantityGolden(t *testing.T) {
	inputs := []any{"0", "1", "+1", "01", "-1", "1000m", "100m", "0.5", "1.5", "1.50", "1e3", "1E3", "1e-3", "5e-3", "1k", "1000",
		"1M", "1G", "1Gi", "1024Mi", "1536Mi", "1.5Gi", "1.5Ki", "1023", "1025", "2Ki", "1023Ki", "1025Ki", "0.1n", "1n", "1u", "1.5u",
		"100Mi", "512Ki", "123456789012345678901", "1000000000000000000000", "8Ei", "9Ei", "1.000", "0.0001", "3.14159", " 2 ",
		"-1.5Gi", "-0.5", "0.000000001", "1e21", "1e-10", "10E", "1000E", int64(5), int64(1500), 0.25, 1e-3}
	var b strings.Builder
	for _, q := range inputs {
		fmt.Fprintf(&b, "%#v\t%s\t%s\n", q, quantityOut(t, quotaGVK, q), quantityOut(t, rcGVK, q))
	}
	golden := "../../testdata/defaults/quantities.golden"
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())
}

func quantityOut(t *testing.T, gvk schema.GroupVersionKind, q any) string {
	var obj map[string]any
	if gvk == quotaGVK {
		obj = map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "spec": map[string]any{"hard": map[string]any{"cpu": q}}}
	} else {
		obj = map[string]any{"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "overhead": map[string]any{"podFixed": map[string]any{"cpu": q}}}
	}
	out, err := defaults.Builtin(gvk, obj, defaults.Options{})
	if err != nil {
		return "error: " + err.Error()
	}
	if gvk == quotaGVK {
		return out["spec"].(map[string]any)["hard"].(map[string]any)["cpu"].(string)
	}
	return out["overhead"].(map[string]any)["podFixed"].(map[string]any)["cpu"].(string)
}

// TestImagePullPolicy: Always for the latest tag (explicit or implied), IfNotPresent otherwise,
// including references that do not parse (parsers.ParseImageName fails, no tag).
func TestImagePullPolicy(t *testing.T) {
	tests := map[string]string{
		"nginx": "Always", "nginx:latest": "Always", "nginx:1.27": "IfNotPresent", "library/nginx": "Always",
		"docker.io/nginx:latest": "Always", "localhost:5000/app": "Always", "localhost:5000/app:v1": "IfNotPresent",
		"nginx@sha256:" + strings.Repeat("a", 64): "IfNotPresent", "nginx:latest@sha256:" + strings.Repeat("a", 64): "Always",
		"nginx@sha256:abc": "IfNotPresent", "Nginx": "IfNotPresent", "": "IfNotPresent", strings.Repeat("a", 64): "IfNotPresent",
		"example.com/App:latest": "IfNotPresent", "Example.com/app": "Always", "[::1]:5000/app": "Always", "a/b/c:LATEST": "IfNotPresent",
		"nginx@md5:" + strings.Repeat("a", 32): "IfNotPresent",
	}
	for image, want := range tests {
		obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": image}}}}
		out, err := defaults.Builtin(podGVK, obj, defaults.Options{})
		require.NoError(t, err)
		c := out["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		assert.Equal(t, want, c["imagePullPolicy"], image)
	}
}

// TestDeviceTaintClock: the only default that reads the clock takes now, truncated to seconds.
func TestDeviceTaintClock(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceTaintRule"}
	obj := decodeJSON(t, `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","spec":{"taint":{"key":"k","effect":"NoSchedule"}}}`)
	now := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("x", 3600))
	out, err := defaults.Builtin(gvk, obj, defaults.Options{Now: now})
	require.NoError(t, err)
	assert.Equal(t, "2026-03-04T04:06:07Z", out["spec"].(map[string]any)["taint"].(map[string]any)["timeAdded"])
	out, err = defaults.Builtin(gvk, obj, defaults.Options{})
	require.NoError(t, err)
	assert.Nil(t, out["spec"].(map[string]any)["taint"].(map[string]any)["timeAdded"])
}
