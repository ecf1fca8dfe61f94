// Command loadgen measures an API server's create, get, update and list latency and throughput
// over HTTPS with a bearer token, the same requests for writepath serve and kube-apiserver (see
// BENCHMARKS.md). It creates ConfigMaps in a namespace of its own and deletes the namespace's
// ConfigMaps at the end. Loopback servers only.
//
//	go run ./internal/loadgen --server https://127.0.0.1:6508 --token admintoken --n 500 --workers 4
package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	server := flag.String("server", "", "https://127.0.0.1:PORT (loopback only)")
	token := flag.String("token", "", "bearer token")
	n := flag.Int("n", 500, "objects per phase")
	workers := flag.Int("workers", 4, "concurrent clients")
	ns := flag.String("namespace", "loadgen", "namespace to use")
	flag.Parse()
	u, err := url.Parse(*server)
	if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost") {
		fmt.Fprintln(os.Stderr, "loadgen: --server must be a loopback https URL")
		os.Exit(2)
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
		ForceAttemptHTTP2: true, MaxIdleConnsPerHost: *workers}}
	do := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, *server+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+*token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		return resp.StatusCode, b
	}
	do("POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+*ns+`"}}`)
	base := "/api/v1/namespaces/" + *ns + "/configmaps"
	body := func(i int, rv string) string {
		meta := map[string]any{"name": fmt.Sprintf("cm-%05d", i)}
		if rv != "" {
			meta["resourceVersion"] = rv
		}
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
			"data": map[string]any{"a": strings.Repeat("x", 200), "i": fmt.Sprint(i), "rv": rv}})
		return string(b)
	}
	rvs := make([]string, *n)
	phase := func(name string, count int, want int, f func(i int) (int, []byte)) {
		lat := make([]time.Duration, count)
		var wg sync.WaitGroup
		next := make(chan int)
		start := time.Now()
		var failed sync.Once
		for w := 0; w < *workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					t0 := time.Now()
					code, b := f(i)
					lat[i] = time.Since(t0)
					if code != want {
						failed.Do(func() { fmt.Fprintf(os.Stderr, "loadgen: %s %d: %d %s\n", name, i, code, bytes.TrimSpace(b)) })
					}
				}
			}()
		}
		for i := 0; i < count; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
		total := time.Since(start)
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		q := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
		fmt.Printf("%-7s n=%-5d workers=%d  p50=%-9v p90=%-9v p99=%-9v  %.0f req/s\n", name, count, *workers,
			q(0.5).Round(10*time.Microsecond), q(0.9).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), float64(count)/total.Seconds())
	}
	phase("create", *n, 201, func(i int) (int, []byte) {
		code, b := do("POST", base, body(i, ""))
		var obj struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(b, &obj)
		rvs[i] = obj.Metadata.ResourceVersion
		return code, b
	})
	phase("get", *n, 200, func(i int) (int, []byte) { return do("GET", fmt.Sprintf("%s/cm-%05d", base, i), "") })
	phase("update", *n, 200, func(i int) (int, []byte) { return do("PUT", fmt.Sprintf("%s/cm-%05d", base, i), body(i, rvs[i])) })
	lists := max(*n/10, 10)
	phase("list", lists, 200, func(int) (int, []byte) { return do("GET", base, "") })
	do("DELETE", base, "")
}
