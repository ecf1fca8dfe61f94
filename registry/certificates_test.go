package registry_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestCSRRequester: a created CertificateSigningRequest records who asked for it in spec, over
// what the body says (the strategy's PrepareForCreate; approvers read spec.username), and keeps
// the rest of its spec (a create resets the status only, where an update of the main resource
// also keeps the stored spec).
func TestCSRRequester(t *testing.T) {
	ctx := context.Background()
	w, err := registry.NewStatic(nil, registry.StaticOptions{})
	require.NoError(t, err)
	now := time.Date(2026, 12, 4, 2, 0, 0, 0, time.UTC)
	user := registry.User{Name: "system:node:a", UID: "u-1", Groups: []string{"system:nodes", "system:authenticated"}}
	// A request body with a bad request: the 422 shows the user fields were replaced first.
	body := `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c"},
		"spec":{"request":"","signerName":"example.com/signer","usages":["client auth"],"username":"someone-else"}}`
	resp, _, err := registry.Handle(ctx, w, registry.Request{Method: "POST", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
		ContentType: "application/json", Body: []byte(body), User: user, Now: now})
	require.NoError(t, err)
	require.Equal(t, 422, resp.Code, "%s", resp.Body)
	assert.Contains(t, string(resp.Body), `spec.request: Invalid value: \"\": PEM block type must be CERTIFICATE REQUEST`)

	resp, _, err = registry.Handle(ctx, w, registry.Request{Method: "POST", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All",
		ContentType: "application/json", Body: []byte(`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c"},
		"spec":{"request":"` + testCSR + `","signerName":"example.com/signer","usages":["client auth"],"username":"someone-else"}}`), User: user, Now: now})
	require.NoError(t, err)
	require.Equal(t, 201, resp.Code, "%s", resp.Body)
	var got struct {
		Spec map[string]any `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(resp.Body, &got))
	assert.Equal(t, "system:node:a", got.Spec["username"])
	assert.Equal(t, "u-1", got.Spec["uid"])
	assert.Equal(t, []any{"system:nodes", "system:authenticated"}, got.Spec["groups"])
}

// testCSR is a PKCS#10 request (ECDSA P-256, CN system:node:a, O system:nodes), base64.
const testCSR = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIcU1JR1JBZ0VBTUM4eEZUQVRCZ05WQkFvVERITjVjM1JsYlRwdWIyUmxjekVXTUJRR0ExVUVBeE1OYzNsegpkR1Z0T201dlpHVTZZVEJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCT3QzTGlOK0hnSGFlSXI3ClFZaTNZR0tzT2tNYlBvOHg4NjRXNTFETG0vM0g4RWpNSkxpTGFHbDBnRUs2c05EQ0k2b0FXbkxKbEY3TUZ5TloKRmpoNHB0R2dBREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUVBMkFwcXA5V0pmYVVYNzRFRGxsUG95WlNvd3pCVQpoWFVDOHF6dU51Q0JYZk1DSUZRb00rTXNHa1VmaFJZQitMby80T1FJRnpDMFJKT2M3Qlh3eXpFRWZiR3UKLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg=="
