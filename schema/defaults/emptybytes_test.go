package defaults_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// An empty omitempty []byte field is kept as "" under KeepEmptyBytes and left out by
// OmitEmptyBytes (and by default), in an object, below lists and in a list's items; the
// non-omitempty []byte fields and map values are as encoding/json writes them either way.
func TestKeepEmptyBytes(t *testing.T) {
	vwc := map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "v"},
		"webhooks": []any{
			map[string]any{"name": "a.example.com", "clientConfig": map[string]any{"url": "https://x", "caBundle": ""}, "sideEffects": "None", "admissionReviewVersions": []any{"v1"}},
			map[string]any{"name": "b.example.com", "clientConfig": map[string]any{"url": "https://x", "caBundle": "Cg=="}, "sideEffects": "None", "admissionReviewVersions": []any{"v1"}},
		},
	}
	gvk := schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}
	before, err := value.DeepCopyMap(vwc)
	require.NoError(t, err)

	plain, err := defaults.Builtin(gvk, vwc, defaults.Options{})
	require.NoError(t, err)
	kept, err := defaults.Builtin(gvk, vwc, defaults.Options{KeepEmptyBytes: true})
	require.NoError(t, err)
	unstructured, err := defaults.Builtin(gvk, vwc, defaults.Options{KeepEmptyBytes: true, Unstructured: true})
	require.NoError(t, err)
	caBundle := func(o map[string]any, i int) (any, bool) {
		cc := o["webhooks"].([]any)[i].(map[string]any)["clientConfig"].(map[string]any)
		v, ok := cc["caBundle"]
		return v, ok
	}
	_, ok := caBundle(plain, 0)
	assert.False(t, ok, "without KeepEmptyBytes")
	v, ok := caBundle(kept, 0)
	assert.True(t, ok, "KeepEmptyBytes")
	assert.Equal(t, "", v)
	v, _ = caBundle(unstructured, 0)
	assert.Equal(t, "", v, "KeepEmptyBytes, Unstructured")
	v, _ = caBundle(kept, 1)
	assert.Equal(t, "Cg==", v)

	view := defaults.OmitEmptyBytes(kept)
	assert.Equal(t, plain, view, "OmitEmptyBytes of the kept object is the plain one")
	_, ok = caBundle(kept, 0)
	assert.True(t, ok, "OmitEmptyBytes does not modify its input")
	assert.Equal(t, before, vwc, "Builtin does not modify its input")
	assert.Equal(t, plain, defaults.OmitEmptyBytes(plain))

	list := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfigurationList",
		"metadata": map[string]any{}, "items": []any{kept}}
	lv := defaults.OmitEmptyBytes(list)
	assert.Equal(t, plain, lv["items"].([]any)[0])
	assert.Equal(t, kept, list["items"].([]any)[0], "the list is not modified")

	csr := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": "c"}, "spec": map[string]any{"request": "", "signerName": "x/y"}, "status": map[string]any{"certificate": ""}}
	csrKept, err := defaults.Builtin(schema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest"}, csr, defaults.Options{KeepEmptyBytes: true})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"certificate": ""}, csrKept["status"])
	assert.Equal(t, map[string]any{}, defaults.OmitEmptyBytes(csrKept)["status"])
	assert.Equal(t, "", defaults.OmitEmptyBytes(csrKept)["spec"].(map[string]any)["request"], "spec.request is not omitempty")

	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "binaryData": map[string]any{"k": ""}}
	assert.Equal(t, cm, defaults.OmitEmptyBytes(cm), "a kind without such fields is returned as it is")
}
