package main_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/storage/etcd/internal/etcdtest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// etcdServeBinary builds this command once per test run.
func etcdServeBinary(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "writepath-etcd-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "writepath")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

// etcdServe is one `writepath serve --etcd-servers` process.
type etcdServe struct {
	t   *testing.T
	cmd *exec.Cmd
	url string
	hc  *http.Client
}

func startEtcdServe(t *testing.T, etcdURL, identity string, extra ...string) *etcdServe {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"serve", "--etcd-servers", etcdURL, "--kubeconfig", filepath.Join(dir, "kubeconfig"),
		"--leader-elect-identity", identity, "--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1s",
		"--leader-elect-retry-period", "200ms"}, extra...)
	cmd := exec.Command(etcdServeBinary(t), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	s := &etcdServe{t: t, cmd: cmd, hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}}}
	t.Cleanup(s.kill)
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			_ = cmd.Wait() // stderr is complete once Wait returns
			t.Fatalf("serve exited: %s", stderr.String())
		}
		s.url = strings.TrimPrefix(l, "serving on ")
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start: %s", stderr.String())
	}
	go func() {
		for range lines {
		}
	}()
	return s
}

// kill ends the server with SIGKILL (idempotent).
func (s *etcdServe) kill() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
	}
}

func (s *etcdServe) do(method, path, body string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer admin-token")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		if method == "PATCH" {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
	}
	resp, err := s.hc.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	require.NoError(s.t, err)
	var obj map[string]any
	_ = json.Unmarshal(data, &obj)
	return resp.StatusCode, obj
}

func rvOfObject(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	return rv
}

// watchEvents opens a watch and returns a channel of "TYPE name rv" lines.
func (s *etcdServe) watchEvents(ctx context.Context, path string) <-chan string {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", s.url+path, nil)
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer admin-token")
	client := &http.Client{Transport: s.hc.Transport}
	resp, err := client.Do(req)
	require.NoError(s.t, err)
	require.Equal(s.t, 200, resp.StatusCode)
	out := make(chan string, 100)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev struct {
				Type   string         `json:"type"`
				Object map[string]any `json:"object"`
			}
			if dec.Decode(&ev) != nil {
				return
			}
			meta, _ := ev.Object["metadata"].(map[string]any)
			out <- fmt.Sprintf("%s %v %s", ev.Type, meta["name"], rvOfObject(ev.Object))
		}
	}()
	return out
}

func nextEvent(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the watch ended")
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no watch event")
		return ""
	}
}

const defaultNamespaceBody = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`

// requireDefaultNamespace checks that serve created the default namespace at start, as the
// apiserver does (97f1792), whichever server on the etcd came first: creating it again is the
// apiserver's 409.
func requireDefaultNamespace(t *testing.T, s *etcdServe) {
	t.Helper()
	code, _ := s.do("GET", "/api/v1/namespaces/default", "")
	require.Equal(t, 200, code)
	code, _ = s.do("POST", "/api/v1/namespaces", defaultNamespaceBody)
	require.Equal(t, 409, code)
}

func configMapBody(name, value string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"v":"` + value + `"}}`
}

// TestTwoServersOneEtcd: a write through one server is visible, watchable and conflict-checked
// through the other; the controllers run in the Lease holder only.
func TestTwoServersOneEtcd(t *testing.T) {
	e := etcdtest.Start(t)
	a := startEtcdServe(t, e.URL, "server-a")
	b := startEtcdServe(t, e.URL, "server-b")
	requireDefaultNamespace(t, a)
	requireDefaultNamespace(t, b)

	code, created := a.do("POST", "/api/v1/namespaces/default/configmaps", configMapBody("shared", "1"))
	require.Equal(t, 201, code)
	code, got := b.do("GET", "/api/v1/namespaces/default/configmaps/shared", "")
	require.Equal(t, 200, code, "a write through a is visible through b")
	assert.Equal(t, rvOfObject(created), rvOfObject(got))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := b.watchEvents(ctx, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+rvOfObject(created))
	code, updated := a.do("PATCH", "/api/v1/namespaces/default/configmaps/shared", `{"data":{"v":"2"}}`)
	require.Equal(t, 200, code)
	assert.Equal(t, "MODIFIED shared "+rvOfObject(updated), nextEvent(t, events), "b's watch sees a's update at its revision")

	stale := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shared","resourceVersion":"` + rvOfObject(created) + `"},"data":{"v":"3"}}`
	code, st := b.do("PUT", "/api/v1/namespaces/default/configmaps/shared", stale)
	assert.Equal(t, 409, code, "b refuses a write at the revision a has superseded")
	assert.Equal(t, "Operation cannot be fulfilled on configmaps \"shared\": the object has been modified; please apply your changes to the latest version and try again", st["message"])

	var holder string
	require.Eventually(t, func() bool {
		code, lease := b.do("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager", "")
		spec, _ := lease["spec"].(map[string]any)
		holder, _ = spec["holderIdentity"].(string)
		return code == 200 && holder != ""
	}, 20*time.Second, 100*time.Millisecond)
	assert.Contains(t, []string{"server-a", "server-b"}, holder)

	// A ReplicaSet created through the server that does not lead gets its Pods from the leader.
	follower := a
	if holder == "server-a" {
		follower = b
	}
	rs := `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
	  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	code, _ = follower.do("POST", "/apis/apps/v1/namespaces/default/replicasets", rs)
	require.Equal(t, 201, code)
	require.Eventually(t, func() bool {
		_, l := follower.do("GET", "/api/v1/namespaces/default/pods", "")
		items, _ := l["items"].([]any)
		return len(items) == 2
	}, 20*time.Second, 100*time.Millisecond, "the leader's ReplicaSet controller made the Pods")

	// When the leader dies, the other takes the Lease over and runs the controllers.
	leader := b
	if holder == "server-a" {
		leader = a
	}
	leader.kill()
	require.Eventually(t, func() bool {
		code, lease := follower.do("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager", "")
		spec, _ := lease["spec"].(map[string]any)
		return code == 200 && spec["holderIdentity"] != holder
	}, 30*time.Second, 100*time.Millisecond, "the follower takes the Lease over")
}

// TestKillMidWriteLosesNoAcknowledgedWrite: creates stream into a server that is killed with
// SIGKILL in the middle; a new server on the same etcd serves every create that was answered 201,
// at the resourceVersion answered, and a watch from a revision before the kill resumes with the
// events after it. Then etcd itself is killed and restarted: every object is recovered.
func TestKillMidWriteLosesNoAcknowledgedWrite(t *testing.T) {
	e := etcdtest.Start(t)
	first := startEtcdServe(t, e.URL, "first")
	requireDefaultNamespace(t, first)
	code, mark := first.do("POST", "/api/v1/namespaces/default/configmaps", configMapBody("mark", "0"))
	require.Equal(t, 201, code)
	resumeFrom := rvOfObject(mark)

	acked := map[string]string{} // name -> resourceVersion answered
	var mu sync.Mutex
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tr := first.hc.Transport
		for i := 0; ; i++ {
			name := fmt.Sprintf("cm-%04d", i)
			req, _ := http.NewRequest("POST", first.url+"/api/v1/namespaces/default/configmaps", strings.NewReader(configMapBody(name, "x")))
			req.Header.Set("Authorization", "Bearer admin-token")
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				return // the server is gone
			}
			data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if err != nil || resp.StatusCode != 201 {
				return // killed before the answer was whole: not an acknowledgement
			}
			var obj map[string]any
			if json.Unmarshal(data, &obj) != nil {
				return // the body was cut by the kill
			}
			if rvOfObject(obj) == "" {
				t.Errorf("a 201 without a resourceVersion: %s", data)
				return
			}
			mu.Lock()
			acked[name] = rvOfObject(obj)
			mu.Unlock()
		}
	}()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 40 }, 60*time.Second, 5*time.Millisecond)
	first.kill()
	<-stopped
	mu.Lock()
	n := len(acked)
	mu.Unlock()
	t.Logf("%d creates acknowledged before SIGKILL", n)

	second := startEtcdServe(t, e.URL, "second")
	checkAll := func(s *etcdServe, what string) {
		for name, rv := range acked {
			code, obj := s.do("GET", "/api/v1/namespaces/default/configmaps/"+name, "")
			if assert.Equal(t, 200, code, "%s: acknowledged %s", what, name) {
				assert.Equal(t, rv, rvOfObject(obj), "%s: %s at the answered resourceVersion", what, name)
			}
		}
	}
	checkAll(second, "after the server's SIGKILL")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := second.watchEvents(ctx, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+resumeFrom)
	seen := map[string]bool{}
	for len(seen) < n {
		ev := nextEvent(t, events)
		f := strings.Fields(ev)
		require.Len(t, f, 3)
		assert.Equal(t, "ADDED", f[0], ev)
		if rv, ok := acked[f[1]]; ok {
			assert.Equal(t, rv, f[2], ev)
			seen[f[1]] = true
		}
	}
	cancel()
	second.kill()

	e.Kill()
	e.Restart()
	third := startEtcdServe(t, e.URL, "third")
	checkAll(third, "after etcd's SIGKILL and restart")
	code, l := third.do("GET", "/api/v1/namespaces/default/configmaps", "")
	require.Equal(t, 200, code)
	items, _ := l["items"].([]any)
	assert.GreaterOrEqual(t, len(items), n+1, "every object recovered")
}
