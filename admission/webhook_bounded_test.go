package admission

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A webhook whose answer never ends is read one byte past the client's bound and fails as a
// read error does in client-go; an answer of exactly the bound is read whole.
func TestWebhookAnswerBounded(t *testing.T) {
	const limit = 1 << 20
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(" ", 64<<10))
		if r.URL.Path == "/exact" {
			_, _ = w.Write([]byte(strings.Repeat(" ", limit-2) + "{}"))
			return
		}
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cl := HTTPSClient{MaxResponseBytes: limit}
	target := WebhookTarget{Name: "endless", URL: srv.URL + "/endless", CABundle: ca, Timeout: 30 * time.Second}
	_, err := cl.Call(context.Background(), target, []byte(`{}`))
	require.Error(t, err)
	assert.Equal(t, "unexpected error when reading response body. Please retry. Original error: "+target.URL+": request entity too large: limit is 1048576", err.Error())

	target.URL = srv.URL + "/exact"
	b, err := cl.Call(context.Background(), target, []byte(`{}`))
	require.NoError(t, err)
	assert.Len(t, b, limit)
}
