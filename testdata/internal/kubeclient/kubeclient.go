// Package kubeclient is the client the recorders under testdata (cluster/scenarios/record,
// registry/recorded/record) speak to a real kube-apiserver with: the first cluster's server and
// the first user's bearer token of a kubeconfig, every request sent with that token, every
// answer read whole.
//
// # Usage
//
//	c, err := kubeclient.New("/tmp/realcluster/kubeconfig")
//	code, obj, body, err := c.GetJSON("/api/v1/namespaces/default")
//	code, header, body, err := c.Do("POST", path, map[string]string{"Content-Type": "application/json"}, b)
//
// # Invariants
//
// The server's certificate is not verified: it is the local test cluster's, self-signed
// (../shared/tools/realcluster). HTTP times a request out after 60 s; Stream, for watches,
// never. The Authorization header is always the kubeconfig's token, whatever the headers say.
//
// # Errors
//
// New fails on a kubeconfig that does not read or names no cluster or user; Do and GetJSON on
// a transport failure, GetJSON also on a 200 answer that is not JSON. Any HTTP status is an
// answer, not an error.
package kubeclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"sigs.k8s.io/yaml"
)

// UserAgent makes the default field manager "recorder" (the apiserver takes the user agent up
// to the first '/').
const UserAgent = "recorder/v1.37.2 (linux/amd64) writepath"

// Client sends requests to one kube-apiserver as one user.
type Client struct {
	// Server is the base URL (https://host:port); Token the bearer token.
	Server, Token string
	// HTTP is for requests (60 s timeout), Stream for watches (none).
	HTTP, Stream *http.Client
}

// New reads the kubeconfig's first cluster and first user.
func New(kubeconfig string) (*Client, error) {
	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		return nil, err
	}
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server string `json:"server"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			User struct {
				Token string `json:"token"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, err
	}
	if len(kc.Clusters) == 0 || len(kc.Users) == 0 {
		return nil, fmt.Errorf("%s: no cluster or user", kubeconfig)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} // the local test cluster's self-signed certificate
	return &Client{Server: kc.Clusters[0].Cluster.Server, Token: kc.Users[0].User.Token,
		HTTP: &http.Client{Timeout: 60 * time.Second, Transport: tr}, Stream: &http.Client{Transport: tr}}, nil
}

// NewRequest is a request of path (with its query) on the server, with headers and the token.
func (c *Client) NewRequest(ctx context.Context, method, path string, headers map[string]string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Server+path, r)
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	return req, nil
}

// Do sends one request on HTTP and returns the status, headers and body.
func (c *Client) Do(method, path string, headers map[string]string, body []byte) (int, http.Header, []byte, error) {
	req, err := c.NewRequest(context.Background(), method, path, headers, body)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// GetJSON GETs path as JSON with UserAgent: the status, the decoded object when it is 200, and
// the body.
func (c *Client) GetJSON(path string) (int, map[string]any, []byte, error) {
	code, _, b, err := c.Do("GET", path, map[string]string{"Accept": "application/json", "User-Agent": UserAgent}, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	var m map[string]any
	if code == 200 {
		if err := json.Unmarshal(b, &m); err != nil {
			return code, nil, b, err
		}
	}
	return code, m, b, nil
}
