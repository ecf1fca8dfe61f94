package cluster_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"regexp"

	"github.com/writepath/writepath/internal/codec"
)

// kubeconfigClient builds an HTTPS client from a kubeconfig's certificate-authority-data, as a
// kubeconfig reader would.
func kubeconfigClient(kubeconfig []byte) *http.Client {
	m := regexp.MustCompile(`certificate-authority-data: (\S+)`).FindSubmatch(kubeconfig)
	pool := x509.NewCertPool()
	if m != nil {
		if pemBytes, err := base64.StdEncoding.DecodeString(string(m[1])); err == nil {
			pool.AppendCertsFromPEM(pemBytes)
		}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
}

func decodeYAML(b []byte) (map[string]any, error) { return codec.DecodeObject(b) }
