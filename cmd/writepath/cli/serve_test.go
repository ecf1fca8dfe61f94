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

// runServeOnce runs the command as run does, but a serve stops as soon as it answers: its port
// is a free one and its kubeconfig is written into dir, whatever --port and --kubeconfig say
// (tests that run serve's examples and random argv).
func runServeOnce(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	e.testServe = func(ctx context.Context, cfg *serveConfig) context.Context {
		ctx, cancel := context.WithCancel(ctx)
		cfg.addr = "127.0.0.1:0"
		cfg.kubeconfig = filepath.Join(dir, filepath.Base(cfg.kubeconfig))
		cfg.ready = func(string) { cancel() }
		return ctx
	}
	return e.run(args)
}

// TestServeOnce: runServeOnce's serve starts, loads its objects, writes the kubeconfig where
// the test says, and stops.
func TestServeOnce(t *testing.T) {
	t.Chdir(repoRoot)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := runServeOnce(dir, []string{"serve", "-f", "testdata/examples/crontab-crd.yaml", "--port", "6443", "--kubeconfig", "/tmp/x/wp.kubeconfig"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stdout.String(), "kubeconfig: "+filepath.Join(dir, "wp.kubeconfig"))
	assert.FileExists(t, filepath.Join(dir, "wp.kubeconfig"))
}

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

// serve creates the namespaces kube-apiserver creates, so that kubectl can create an object
// that names no namespace (in default), as against the real server.
func TestServeSystemNamespaces(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, verb: "serve"}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan int, 1)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	ns := []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "default", "labels": map[string]any{"from": "file"}}}}
	go func() {
		done <- e.serve(ctx, serveConfig{objects: ns, addr: "127.0.0.1:0", kubeconfig: kubeconfig, ready: func(u string) { urls <- u }})
	}()
	var url string
	select {
	case url = <-urls:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	kc, err := os.ReadFile(kubeconfig)
	require.NoError(t, err)
	ca := regexp.MustCompile(`certificate-authority-data: (\S+)`).FindSubmatch(kc)
	pemBytes, err := base64.StdEncoding.DecodeString(string(ca[1]))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	token := regexp.MustCompile(`token: (\S+)`).FindSubmatch(kc)
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		req, _ := http.NewRequest("GET", url+"/api/v1/namespaces/"+name, nil)
		req.Header.Set("Authorization", "Bearer "+string(token[1]))
		resp, err := hc.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode, "%s: %s", name, b)
		if name == "default" {
			assert.Contains(t, string(b), `"from":"file"`, "a namespace of the -f objects is kept as loaded")
		}
	}
	cancel()
	assert.Equal(t, exitOK, <-done)
}

// --controllers reads as kube-controller-manager's flag: the first item naming a controller
// decides, * turns on the rest, aliases are names; only deployment and replicaset, together,
// resourcequota and serviceaccount can be off.
func TestServeControllersFlag(t *testing.T) {
	for _, tc := range []struct {
		list    []string
		off     bool
		noQuota bool
		noSA    bool
		err     string
	}{
		{list: []string{"*"}},
		{list: []string{"*", "-deployment", "-replicaset"}, off: true},
		{list: []string{"-deployment-controller", "-replicaset", "*"}, off: true},
		{list: []string{"garbagecollector", "namespace"}, off: true, noQuota: true, noSA: true}, // the realcluster list without the workload controllers
		{list: []string{"garbagecollector", "namespace", "deployment", "replicaset"}, noQuota: true, noSA: true},
		{list: []string{"*", "-resourcequota"}, noQuota: true},
		{list: []string{"resourcequota-controller", "deployment", "replicaset"}, noSA: true},
		{list: []string{"*", "-serviceaccount"}, noSA: true},
		{list: []string{"*", "-serviceaccount-controller", "-resourcequota", "-deployment", "-replicaset"}, off: true, noQuota: true, noSA: true},
		{list: []string{"deployment", "-deployment", "replicaset"}, noQuota: true, noSA: true}, // the first item decides
		{list: []string{"*", "-deployment"}, err: "deployment and replicaset run together"},
		{list: []string{"*", "-garbagecollector"}, err: "garbage-collector-controller always runs"},
		{list: []string{"cronjob"}, err: `"cronjob" is not a controller serve runs`},
	} {
		off, err := readControllers(tc.list)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%v", tc.list)
			continue
		}
		require.NoError(t, err, "%v", tc.list)
		assert.Equal(t, tc.off, off.workloads, "%v", tc.list)
		assert.Equal(t, tc.noQuota, off.resourceQuota, "%v", tc.list)
		assert.Equal(t, tc.noSA, off.serviceAccount, "%v", tc.list)
	}
}

// TestServeDisableAdmissionPluginsFlag: --disable-admission-plugins takes kube-apiserver's
// comma-separated list (repeatable, as a pflag string slice), every plugin name kube-apiserver
// knows, and refuses an unknown one with its words, before serving.
func TestServeDisableAdmissionPluginsFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		err  string
	}{
		{args: nil, want: nil},
		{args: []string{"--disable-admission-plugins=ServiceAccount"}, want: []string{"ServiceAccount"}},
		{args: []string{"--disable-admission-plugins", "NamespaceLifecycle,LimitRanger,MutatingAdmissionWebhook"}, want: []string{"NamespaceLifecycle", "LimitRanger", "MutatingAdmissionWebhook"}},
		{args: []string{"--disable-admission-plugins=ResourceQuota", "--disable-admission-plugins=PodSecurity,AlwaysPullImages"}, want: []string{"ResourceQuota", "PodSecurity", "AlwaysPullImages"}},
		{args: []string{"--disable-admission-plugins=ServiceAccount,Nope"}, err: `error: disable-admission-plugins plugin "Nope" is unknown`},
		{args: []string{"--disable-admission-plugins=serviceaccount,Nope"}, err: `error: [disable-admission-plugins plugin "serviceaccount" is unknown, disable-admission-plugins plugin "Nope" is unknown]`},
		{args: []string{"--enable-admission-plugins=NodeRestriction"}, err: `unknown flag: --enable-admission-plugins`},
	} {
		var stdout, stderr bytes.Buffer
		var got []string
		served := false
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
		e.testServe = func(ctx context.Context, cfg *serveConfig) context.Context {
			served = true
			got = cfg.disabledPlugins
			cfg.addr = "127.0.0.1:0"
			cfg.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
			ctx, cancel := context.WithCancel(ctx)
			cfg.ready = func(string) { cancel() }
			return ctx
		}
		code := e.run(append([]string{"serve"}, tc.args...))
		if tc.err != "" {
			assert.Equal(t, exitUsage, code, "%v", tc.args)
			assert.Contains(t, stderr.String(), tc.err, "%v", tc.args)
			assert.False(t, served, "%v", tc.args)
			continue
		}
		require.Equal(t, exitOK, code, "%v: %s", tc.args, stderr.String())
		assert.Equal(t, tc.want, got, "%v", tc.args)
	}
}
