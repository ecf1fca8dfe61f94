package cluster

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
)

// Server is a cluster served over HTTPS on a loopback port, for tests and `writepath serve`.
type Server struct {
	*Cluster
	srv *httptest.Server
	// URL is the server's base URL (https://127.0.0.1:PORT).
	URL string
	// Token is the bearer token the kubeconfig carries.
	Token string
}

// StartTLS serves c on a free loopback port over HTTPS with a generated self-signed certificate.
// Close stops it.
func StartTLS(c *Cluster) *Server {
	srv := httptest.NewUnstartedServer(c.Handler())
	srv.EnableHTTP2 = true
	srv.StartTLS()
	return &Server{Cluster: c, srv: srv, URL: srv.URL, Token: "admin-token"}
}

// Close stops serving.
func (s *Server) Close() { s.srv.Close() }

// Kubeconfig returns a kubeconfig for the server: its URL, its certificate as the CA, the bearer
// token. kubectl, client-go and controller-runtime read it unchanged.
func (s *Server) Kubeconfig() []byte {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: writepath
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: writepath
  context:
    cluster: writepath
    user: admin
current-context: writepath
`, s.URL, base64.StdEncoding.EncodeToString(ca), s.Token))
}
