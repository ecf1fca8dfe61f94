package conversion

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	"github.com/writepath/writepath/internal/bounded"
)

// DefaultTimeout is the timeout of the apiserver's webhook clients.
const DefaultTimeout = 30 * time.Second

// ClientOptions configure the HTTPS client of a conversion webhook.
type ClientOptions struct {
	// URL replaces the CRD's clientConfig (url or service) with this address; the CRD's
	// caBundle is still used unless CABundle is set.
	URL string
	// CABundle replaces the CRD's caBundle (PEM). With neither, the system roots are trusted.
	CABundle []byte
	// Timeout bounds each call (0: DefaultTimeout, 30s, as the apiserver sets it).
	Timeout time.Duration
}

// Client is the default Caller: it POSTs the review over HTTPS like the apiserver's webhook
// client (URL path cleaned, "?timeout=30s" added, JSON content type, the caBundle as the only
// trusted roots, HTTP/1.1 for hosts other than localhost, no retries).
type Client struct {
	url     string
	timeout time.Duration
	http    *http.Client
}

// NewClient builds the HTTPS client for crd's conversion webhook. A service reference needs
// opts.URL: writepath does not resolve services.
func NewClient(crd *CRD, opts ClientOptions) (*Client, error) {
	w := crd.Webhook
	if w == nil {
		w = &Webhook{}
	}
	name := "conversion_webhook_for_" + crd.Schema.Name
	raw := opts.URL
	if raw == "" {
		if w.Service != nil {
			return nil, fmt.Errorf("conversion webhook for %s: service %s/%s cannot be resolved without a cluster: give the webhook's URL", crd.Schema.Name, w.Service.Namespace, w.Service.Name)
		}
		raw = w.URL
	}
	if raw == "" {
		return nil, fmt.Errorf("failed calling webhook %q: webhook configuration must have either service or URL", name)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("failed calling webhook %q: Unparsable URL: %v", name, err)
	}
	ca := opts.CABundle
	if ca == nil {
		ca = w.CABundle
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("unable to load root certificates: %w", checkCABundle(ca))
		}
		tlsConfig.RootCAs = pool
	}
	if !isLocalHost(u) {
		tlsConfig.NextProtos = []string{"http/1.1"}
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	p := path.Join("/", u.Path)
	final := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: p, RawQuery: "timeout=" + timeout.String()}
	tr := &http.Transport{TLSClientConfig: tlsConfig, Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext, TLSHandshakeTimeout: 10 * time.Second}
	return &Client{url: final.String(), timeout: timeout, http: &http.Client{Transport: tr, Timeout: timeout}}, nil
}

func isLocalHost(u *url.URL) bool {
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL returns the address the client posts to.
func (c *Client) URL() string { return c.url }

// Call posts body and returns the answer.
func (c *Client) Call(ctx context.Context, body []byte) (*Response, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// The apiserver reads a conversion webhook's answer without a bound (one review converts a
	// whole list); writepath stops at a state file's bound so that an endless answer cannot
	// exhaust memory.
	data, err := bounded.Read(resp.Body, c.url, bounded.StateBytes)
	if err != nil {
		if re := (*bounded.ReadError)(nil); errors.As(err, &re) {
			err = re.Err
		}
		return nil, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	r := &Response{StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: data}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 {
			r.RetryAfter = n
		}
	}
	return r, nil
}
