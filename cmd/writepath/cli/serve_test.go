package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
)

// serve loads its -f objects, writes a kubeconfig whose CA and token reach the server, logs
// requests with -v, and stops when its context ends.
func TestServe(t *testing.T) {
	t.Chdir(repoRoot)
	crd, err := codec.Options{}.ReadDocuments("testdata/examples/crontab-crd.yaml", nil)
	require.NoError(t, err)
	cr, err := codec.Options{}.ReadDocuments("testdata/examples/crontab.yaml", nil)
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, verb: "serve"}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- e.serve(ctx, serveConfig{objects: append(cr, crd...), addr: "127.0.0.1:0", kubeconfig: kubeconfig, verbose: true,
			ready: func(u string) { urls <- u }})
	}()
	var url string
	select {
	case url = <-urls:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}

	kc, err := os.ReadFile(kubeconfig)
	require.NoError(t, err)
	assert.Contains(t, string(kc), "server: "+url)
	ca := regexp.MustCompile(`certificate-authority-data: (\S+)`).FindSubmatch(kc)
	require.NotNil(t, ca)
	pemBytes, err := base64.StdEncoding.DecodeString(string(ca[1]))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	token := regexp.MustCompile(`token: (\S+)`).FindSubmatch(kc)
	require.NotNil(t, token)

	name := cr[0]["metadata"].(map[string]any)["name"].(string)
	ns := cr[0]["metadata"].(map[string]any)["namespace"].(string)
	req, _ := http.NewRequest("GET", url+"/apis/stable.example.com/v1/namespaces/"+ns+"/crontabs/"+name, nil)
	req.Header.Set("Authorization", "Bearer "+string(token[1]))
	resp, err := hc.Do(req)
	require.NoError(t, err, "the kubeconfig's CA verifies the server")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "%s", b)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, cr[0]["spec"].(map[string]any)["cronSpec"], got["spec"].(map[string]any)["cronSpec"], "the loaded custom resource")

	cancel()
	assert.Equal(t, exitOK, <-done)
	assert.Contains(t, stdout.String(), "serving on "+url)
	assert.Contains(t, stderr.String(), "GET /apis/stable.example.com/v1/namespaces/"+ns+"/crontabs/"+name+" 200 ", "-v logs the request")
}
