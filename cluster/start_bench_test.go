package cluster_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// BenchmarkStart is a fresh server to its first answered request, as a suite pays it per test or
// per package: cluster.New, the system namespaces (serve and envtest create them), then GET
// /api/v1/namespaces/default answered 200 — through Do (in-process), and over loopback HTTPS
// (StartTLS, a new client trusting the kubeconfig's CA with its bearer token, the GET, Close).
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	start := func(b *testing.B) *cluster.Cluster {
		c, err := cluster.New(cluster.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Bootstrap(ctx); err != nil {
			b.Fatal(err)
		}
		return c
	}
	b.Run("do", func(b *testing.B) {
		for b.Loop() {
			c := start(b)
			resp, err := c.Do(ctx, registry.Request{Method: "GET", Path: "/api/v1/namespaces/default", User: cluster.Admin})
			if err != nil || resp.Code != 200 {
				b.Fatalf("%v %d %s", err, resp.Code, resp.Body)
			}
		}
	})
	caData := regexp.MustCompile(`certificate-authority-data: (\S+)`)
	b.Run("https", func(b *testing.B) {
		for b.Loop() {
			srv := cluster.StartTLS(start(b))
			m := caData.FindSubmatch(srv.Kubeconfig())
			der, err := base64.StdEncoding.DecodeString(string(m[1]))
			if err != nil {
				b.Fatal(err)
			}
			blk, _ := pem.Decode(der)
			cert, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				b.Fatal(err)
			}
			pool := x509.NewCertPool()
			pool.AddCert(cert)
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
			req, _ := http.NewRequest("GET", srv.URL+"/api/v1/namespaces/default", nil)
			req.Header.Set("Authorization", "Bearer "+srv.Token)
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
			tr.CloseIdleConnections()
			srv.Close()
		}
	})
}
