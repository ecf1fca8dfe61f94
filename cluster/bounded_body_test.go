package cluster_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// endlessBodyReader is a request body that never ends, counting what was read of it.
type endlessBodyReader struct{ read int64 }

func (r *endlessBodyReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.read += int64(len(p))
	return len(p), nil
}

// failingBodyReader fails after a few bytes, as a connection that drops mid-body.
type failingBodyReader struct{ done bool }

func (r *failingBodyReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, errors.New("connection reset by peer")
	}
	r.done = true
	return copy(p, `{"apiVersion":"v1",`), nil
}

func serveBoundedBody(t *testing.T, h http.Handler, method string, body interface{ Read([]byte) (int, error) }) (int, map[string]any) {
	t.Helper()
	path, ct := "/api/v1/namespaces/default/configmaps/x", "application/json"
	switch method {
	case "POST", "GET":
		path = "/api/v1/namespaces/default/configmaps"
	case "PATCH":
		ct = "application/merge-patch+json"
	}
	req := httptest.NewRequest(method, path, body)
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var st map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st), rec.Body.String())
	return rec.Code, st
}

// The handler reads a request body as the apiserver's limitedReadBody: one byte past 3 MiB,
// then 413 with the apiserver's words; an endless body is not read further. A GET's body is
// not read at all; a body that fails mid-way is a 500 with the reader's words.
func TestHandlerBodiesBounded(t *testing.T) {
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	h := c.Handler()
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		body := &endlessBodyReader{}
		code, st := serveBoundedBody(t, h, method, body)
		assert.Equal(t, 413, code, method)
		assert.Equal(t, "Request entity too large: limit is 3145728", st["message"], method)
		assert.Equal(t, "RequestEntityTooLarge", st["reason"], method)
		// io.ReadAll's buffer may read ahead of the limit by at most one buffer.
		assert.LessOrEqual(t, body.read, int64(3<<20+64<<10), "%s read %d bytes of an endless body", method, body.read)
	}
	body := &endlessBodyReader{}
	code, _ := serveBoundedBody(t, h, "GET", body)
	assert.Equal(t, 200, code)
	assert.Zero(t, body.read, "a GET's body is not read")

	code, st := serveBoundedBody(t, h, "POST", &failingBodyReader{})
	assert.Equal(t, 500, code)
	assert.Equal(t, "connection reset by peer", st["message"])
	assert.NotContains(t, st, "reason")
}
