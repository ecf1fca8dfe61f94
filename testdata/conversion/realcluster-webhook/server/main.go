// Command server is the conversion webhook record.sh runs next to the real kube-apiserver: an
// HTTPS server on 127.0.0.1 with a fresh self-signed certificate (written to ca.pem) that
// records every ConversionReview it receives (request-NNN.json) with its answer
// (response-NNN.json). It converts spec.size (v1beta1) <-> spec.count (v1) and misbehaves on
// purpose when an object's name says so:
//
//	bad-fewer*   answers with no objects          bad-uid*     answers with another uid
//	bad-rename*  changes metadata.name            bad-fail*    Failure result with a message
//	bad-json*    invalid JSON                     bad-version* answers with apiVersion v1beta1
//	labels      adds a label and changes metadata.generation (labels kept, the rest restored)
//
// Usage: go run ./server -addr 127.0.0.1:0 -dir OUT (prints the address on stdout).
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	dir := flag.String("dir", ".", "where to write ca.pem and the recorded reviews")
	flag.Parse()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "writepath-conversion-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	var mu sync.Mutex
	n := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		meta := fmt.Sprintf("%s %s\nContent-Type: %s\nAccept: %s\n", r.Method, r.URL.String(), r.Header.Get("Content-Type"), r.Header.Get("Accept"))
		_ = os.WriteFile(filepath.Join(*dir, fmt.Sprintf("request-%03d.http", i)), []byte(meta), 0o644)
		_ = os.WriteFile(filepath.Join(*dir, fmt.Sprintf("request-%03d.json", i)), body, 0o644)
		resp := answer(body)
		_ = os.WriteFile(filepath.Join(*dir, fmt.Sprintf("response-%03d.json", i)), resp, 0o644)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(resp)
	})
	srv := &http.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}}
	log.Fatal(srv.ServeTLS(ln, "", ""))
}

func answer(body []byte) []byte {
	var review map[string]any
	if err := json.Unmarshal(body, &review); err != nil {
		return []byte(`{"error":"` + err.Error() + `"}`)
	}
	req, _ := review["request"].(map[string]any)
	desired, _ := req["desiredAPIVersion"].(string)
	objs, _ := req["objects"].([]any)
	var converted []any
	behaviour := "ok"
	for _, o := range objs {
		m := o.(map[string]any)
		md, _ := m["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		for _, b := range []string{"fewer", "uid", "rename", "fail", "json", "version"} {
			if strings.HasPrefix(name, "bad-"+b) {
				behaviour = b
			}
		}
		if name == "labels" {
			behaviour = "labels"
		}
		m["apiVersion"] = desired
		if spec, ok := m["spec"].(map[string]any); ok {
			if strings.HasSuffix(desired, "/v1") {
				if s, ok := spec["size"]; ok {
					spec["count"] = s
					delete(spec, "size")
				}
			} else if s, ok := spec["count"]; ok {
				spec["size"] = s
				delete(spec, "count")
			}
		}
		converted = append(converted, m)
	}
	resp := map[string]any{"uid": req["uid"], "result": map[string]any{"status": "Success"}}
	switch behaviour {
	case "fewer":
		converted = converted[:0]
	case "uid":
		resp["uid"] = "not-the-request-uid"
	case "rename":
		for _, c := range converted {
			c.(map[string]any)["metadata"].(map[string]any)["name"] = "renamed"
		}
	case "fail":
		resp["result"] = map[string]any{"status": "Failure", "message": "bad-fail cannot be converted"}
	case "json":
		return []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{`)
	case "version":
		for _, c := range converted {
			c.(map[string]any)["apiVersion"] = "conversion.writepath.test/v1beta1"
		}
	case "labels":
		for _, c := range converted {
			md := c.(map[string]any)["metadata"].(map[string]any)
			md["labels"] = map[string]any{"converted": "true"}
			md["generation"] = 99
		}
	}
	resp["convertedObjects"] = converted
	out, _ := json.Marshal(map[string]any{"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": resp})
	return out
}
