package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// The benchmarks of what issue 17 asks of the server (BENCHMARKS.md, "cluster over HTTPS"):
// a create/get/update round trip over loopback HTTPS, an apply over HTTP against the same
// request through Do, 100,000 ConfigMaps' memory, and writers with 1,000 watchers.

// httpsClient is a client of srv as client-go makes one from its kubeconfig (kubeconfigClient),
// its idle connections closed when the benchmark ends.
func httpsClient(tb testing.TB, srv *cluster.Server) *http.Client {
	cl := kubeconfigClient(srv.Kubeconfig())
	tb.Cleanup(cl.CloseIdleConnections)
	return cl
}

// send sends one request with the server's token and reads the whole answer; a status other than
// want fails the benchmark.
func send(tb testing.TB, cl *http.Client, srv *cluster.Server, method, path, contentType string, body []byte, want int) []byte {
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := cl.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != want {
		tb.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, out)
	}
	return out
}

func startServer(tb testing.TB) *cluster.Server {
	tb.Helper()
	c, err := cluster.New(cluster.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Bootstrap(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := cluster.StartTLS(c)
	tb.Cleanup(srv.Close)
	return srv
}

// cpuTime is the process's CPU time so far (user and system, every goroutine: client, server,
// GC): on a shared machine a steadier measure than the wall clock.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since start per iteration, as cpu-µs/op.
func reportCPU(b *testing.B, start time.Duration, n int) {
	b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/float64(n), "cpu-µs/op")
}

var rvField = regexp.MustCompile(`"resourceVersion":"(\d+)"`)

// BenchmarkRoundTripHTTPS is one client over loopback HTTPS (HTTP/2, keep-alive, JSON), a
// ConfigMap per iteration: its create (POST), get and update (PUT at the resourceVersion the GET
// read), each timed apart.
func BenchmarkRoundTripHTTPS(b *testing.B) {
	srv := startServer(b)
	cl := httpsClient(b, srv)
	const coll = "/api/v1/namespaces/default/configmaps"
	body := func(i int, rv string) []byte {
		meta := fmt.Sprintf(`"name":"cm-%d"`, i)
		if rv != "" {
			meta += `,"resourceVersion":"` + rv + `"`
		}
		return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{` + meta + `},"data":{"key":"value-` + rv + `"}}`)
	}
	var create, get, update time.Duration
	n := 0
	start := cpuTime(b)
	for b.Loop() {
		t0 := time.Now()
		send(b, cl, srv, "POST", coll, "application/json", body(n, ""), 201)
		t1 := time.Now()
		got := send(b, cl, srv, "GET", fmt.Sprintf("%s/cm-%d", coll, n), "", nil, 200)
		t2 := time.Now()
		rv := rvField.FindSubmatch(got)
		send(b, cl, srv, "PUT", fmt.Sprintf("%s/cm-%d", coll, n), "application/json", body(n, string(rv[1])), 200)
		t3 := time.Now()
		create, get, update = create+t1.Sub(t0), get+t2.Sub(t1), update+t3.Sub(t2)
		n++
	}
	reportCPU(b, start, 3*n) // per request
	b.ReportMetric(float64(create.Microseconds())/float64(n), "create-µs/op")
	b.ReportMetric(float64(get.Microseconds())/float64(n), "get-µs/op")
	b.ReportMetric(float64(update.Microseconds())/float64(n), "update-µs/op")
}

const applyDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"web","image":"nginx:1.%d","ports":[{"containerPort":80}],
"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}}`

// BenchmarkApplyHTTP is a server-side apply of a Deployment (a new image each time, field
// manager bench, force) over loopback HTTPS ("http") and the same request through Do, which is
// registry.Handle and the store ("do"). The server runs no workload controllers, so each apply is
// the request alone.
func BenchmarkApplyHTTP(b *testing.B) {
	const path = "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=bench&force=true"
	newCluster := func(b *testing.B) *cluster.Cluster {
		c, err := cluster.New(cluster.Options{NoWorkloadControllers: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Bootstrap(context.Background()); err != nil {
			b.Fatal(err)
		}
		return c
	}
	b.Run("http", func(b *testing.B) {
		srv := cluster.StartTLS(newCluster(b))
		b.Cleanup(srv.Close)
		cl := httpsClient(b, srv)
		send(b, cl, srv, "PATCH", path, "application/apply-patch+yaml", []byte(fmt.Sprintf(applyDeployment, 0)), 201)
		i := 1
		start := cpuTime(b)
		for b.Loop() {
			send(b, cl, srv, "PATCH", path, "application/apply-patch+yaml", []byte(fmt.Sprintf(applyDeployment, i)), 200)
			i++
		}
		reportCPU(b, start, i-1)
	})
	b.Run("do", func(b *testing.B) {
		c := newCluster(b)
		ctx := context.Background()
		apply := func(i, want int) {
			resp, err := c.Do(ctx, registry.Request{Method: "PATCH", Path: path, ContentType: "application/apply-patch+yaml",
				Accept: "application/json", Body: []byte(fmt.Sprintf(applyDeployment, i)), User: cluster.Admin})
			if err != nil || resp.Code != want {
				b.Fatalf("%v %d %s", err, resp.Code, resp.Body)
			}
		}
		apply(0, 201)
		i := 1
		start := cpuTime(b)
		for b.Loop() {
			apply(i, 200)
			i++
		}
		reportCPU(b, start, i-1)
	})
}

// BenchmarkConfigMaps100k stores 100,000 ConfigMaps (three data keys each, created through Do
// as a client's POST would be) in a fresh cluster and reports the live heap they take after a
// full GC: heap-MiB for the whole server, heap-B/configmap per object. Run it with
// -benchtime 1x.
func BenchmarkConfigMaps100k(b *testing.B) {
	const count = 100_000
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		c, err := cluster.New(cluster.Options{NoWorkloadControllers: true})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if err := c.Bootstrap(ctx); err != nil {
			b.Fatal(err)
		}
		for i := range count {
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%06d","labels":{"app":"bench","shard":"s%d"}},"data":{"config.yaml":"replicas: %d\nimage: nginx:1.27\n","mode":"production","owner":"team-%d"}}`, i, i%16, i, i%50)
			resp, err := c.Do(ctx, registry.Request{Method: "POST", Path: "/api/v1/namespaces/default/configmaps",
				ContentType: "application/json", Body: []byte(body), User: cluster.Admin, ObjectOnly: true})
			if err != nil || resp.Code != 201 {
				b.Fatalf("%v %d %s", err, resp.Code, resp.Body)
			}
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		b.ReportMetric(live/(1<<20), "heap-MiB")
		b.ReportMetric(live/count, "heap-B/configmap")
		resp, err := c.Do(ctx, registry.Request{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?limit=1", User: cluster.Admin})
		if err != nil || resp.Code != 200 {
			b.Fatalf("%v %d", err, resp.Code)
		}
		runtime.KeepAlive(c)
		b.StartTimer()
	}
}

// BenchmarkWatchers1000 is a writer updating one ConfigMap while 0 or 1,000 clients watch
// configmaps in its namespace over HTTPS (ten HTTP/2 connections of 100 streams, reading every
// event as client-go's reflector does). ns/op is one update's round trip; after the loop every
// watcher must have read the event of the last update, so no watcher was left behind.
func BenchmarkWatchers1000(b *testing.B) {
	for _, watchers := range []int{0, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			srv := startServer(b)
			writer := httpsClient(b, srv)
			const cm = "/api/v1/namespaces/default/configmaps"
			created := send(b, writer, srv, "POST", cm, "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hot"},"data":{"n":"0"}}`), 201)
			rv := string(rvField.FindSubmatch(created)[1])

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			conns := make([]*http.Client, 10)
			for i := range conns {
				conns[i] = httpsClient(b, srv)
			}
			var mu sync.Mutex
			lastSeen := make([]string, watchers)
			var ready, done sync.WaitGroup
			for w := range watchers {
				ready.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+cm+"?watch=true&resourceVersion="+rv, nil)
					req.Header.Set("Authorization", "Bearer "+srv.Token)
					resp, err := conns[w%len(conns)].Do(req)
					ready.Done()
					if err != nil {
						return
					}
					defer resp.Body.Close()
					sc := bufio.NewScanner(resp.Body)
					sc.Buffer(make([]byte, 64<<10), 1<<20)
					for sc.Scan() {
						if m := rvField.FindSubmatch(sc.Bytes()); m != nil {
							mu.Lock()
							lastSeen[w] = string(m[1])
							mu.Unlock()
						}
					}
				}()
			}
			ready.Wait()
			n := 0
			for b.Loop() {
				got := send(b, writer, srv, "PUT", cm+"/hot", "application/json",
					[]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hot","resourceVersion":"%s"},"data":{"n":"%d"}}`, rv, n)), 200)
				rv = string(rvField.FindSubmatch(got)[1])
				n++
			}
			b.StopTimer()
			deadline := time.Now().Add(30 * time.Second)
			for {
				behind := 0
				mu.Lock()
				for _, seen := range lastSeen {
					if seen != rv {
						behind++
					}
				}
				mu.Unlock()
				if behind == 0 {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("%d of %d watchers never read the last update (resourceVersion %s)", behind, watchers, rv)
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			done.Wait()
		})
	}
}
