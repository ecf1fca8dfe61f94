package convhook_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/convhook"
)

// The webhook converts through the hub over HTTPS trusting its caBundle, and fails the objects
// its spec says.
func TestConvert(t *testing.T) {
	h := convhook.Start(convhook.Spec{Hub: "v1", Spokes: map[string]map[string]string{"v1beta1": {"size": "count"}}, FailPrefix: "bad-"})
	defer h.Close()
	ca, err := base64.StdEncoding.DecodeString(h.CABundle)
	require.NoError(t, err)
	block, _ := pem.Decode(ca)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	review := func(desired string, obj map[string]any) map[string]any {
		body, err := json.Marshal(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
			"request": map[string]any{"uid": "u1", "desiredAPIVersion": desired, "objects": []any{obj}}})
		require.NoError(t, err)
		resp, err := hc.Post(h.URL, "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.Unmarshal(b, &out), "%s", b)
		return out["response"].(map[string]any)
	}
	got := review("g/v1", map[string]any{"apiVersion": "g/v1beta1", "kind": "K", "metadata": map[string]any{"name": "a"}, "spec": map[string]any{"size": 3}})
	assert.Equal(t, "u1", got["uid"])
	assert.Equal(t, map[string]any{"status": "Success"}, got["result"])
	assert.Equal(t, []any{map[string]any{"apiVersion": "g/v1", "kind": "K", "metadata": map[string]any{"name": "a"}, "spec": map[string]any{"count": float64(3)}}}, got["convertedObjects"])
	got = review("g/v1beta1", map[string]any{"apiVersion": "g/v1", "kind": "K", "metadata": map[string]any{"name": "a"}, "spec": map[string]any{"count": 3}})
	assert.Equal(t, map[string]any{"size": float64(3)}, got["convertedObjects"].([]any)[0].(map[string]any)["spec"])
	got = review("g/v1", map[string]any{"apiVersion": "g/v1beta1", "kind": "K", "metadata": map[string]any{"name": "bad-x"}})
	assert.Equal(t, map[string]any{"status": "Failure", "message": "bad-x cannot be converted"}, got["result"])
	assert.Equal(t, int64(3), h.Reviews())
}
