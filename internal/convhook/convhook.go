// Package convhook is the CRD conversion webhook the scenario corpus (testdata/cluster/scenarios)
// runs beside the server it records or replays: a Spec says which spec fields each version
// renames, and Start serves it over HTTPS on 127.0.0.1 (httptest's TLS server, whose
// certificate is the caBundle). The recorder runs it next to the real kube-apiserver, the
// replay next to the in-process cluster, so that both servers convert through the same rules.
//
// # Usage
//
//	hook := convhook.Start(convhook.Spec{Hub: "v1", Spokes: map[string]map[string]string{"v1beta1": {"size": "count"}}})
//	defer hook.Close()
//	// the CRD's clientConfig: {url: hook.URL, caBundle: hook.CABundle}
//
// # Invariants
//
// A Server is safe for concurrent use. It converts what it is sent and keeps nothing but the
// number of reviews it answered.
//
// # Errors
//
// An object whose name starts with Spec.FailPrefix is answered with a Failure result
// ("<name> cannot be converted"); a body that is not a ConversionReview is a 400.
package convhook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
)

// Spec describes the conversions.
type Spec struct {
	// Hub is the version every conversion goes through.
	Hub string `json:"hub"`
	// Spokes maps each other version to the spec fields it names differently: its field name
	// to the hub's.
	Spokes map[string]map[string]string `json:"spokes"`
	// FailPrefix: an object whose name starts with it fails to convert ("" fails none).
	FailPrefix string `json:"failPrefix,omitempty"`
}

// Server is a running webhook.
type Server struct {
	srv *httptest.Server
	// URL is the address to convert at (https://127.0.0.1:PORT/convert).
	URL string
	// CABundle is the server's certificate, PEM, base64-encoded as clientConfig.caBundle holds it.
	CABundle string
	reviews  atomic.Int64
}

// Start serves s.
func Start(s Spec) *Server {
	h := &Server{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := s.answer(buf.Bytes())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.reviews.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	h.URL = h.srv.URL + "/convert"
	h.CABundle = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw}))
	return h
}

// Close stops the server.
func (h *Server) Close() { h.srv.Close() }

// Reviews is the number of ConversionReviews answered.
func (h *Server) Reviews() int64 { return h.reviews.Load() }

type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID               string           `json:"uid"`
		DesiredAPIVersion string           `json:"desiredAPIVersion"`
		Objects           []map[string]any `json:"objects"`
	} `json:"request"`
}

// answer is the ConversionReview response to body.
func (s Spec) answer(body []byte) ([]byte, error) {
	var rv review
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&rv); err != nil {
		return nil, err
	}
	if rv.Kind != "ConversionReview" || rv.Request == nil {
		return nil, fmt.Errorf("not a ConversionReview request")
	}
	result := map[string]any{"status": "Success"}
	converted := []any{}
	for _, o := range rv.Request.Objects {
		c, err := s.convert(o, rv.Request.DesiredAPIVersion)
		if err != nil {
			result = map[string]any{"status": "Failure", "message": err.Error()}
			converted = []any{}
			break
		}
		converted = append(converted, c)
	}
	return json.Marshal(map[string]any{"apiVersion": rv.APIVersion, "kind": "ConversionReview",
		"response": map[string]any{"uid": rv.Request.UID, "convertedObjects": converted, "result": result}})
}

// convert renames obj's spec fields from its version's names to the hub's, then to desired's.
func (s Spec) convert(obj map[string]any, desired string) (map[string]any, error) {
	md, _ := obj["metadata"].(map[string]any)
	if name, _ := md["name"].(string); s.FailPrefix != "" && strings.HasPrefix(name, s.FailPrefix) {
		return nil, fmt.Errorf("%s cannot be converted", name)
	}
	av, _ := obj["apiVersion"].(string)
	from := av[strings.LastIndex(av, "/")+1:]
	to := desired[strings.LastIndex(desired, "/")+1:]
	spec, _ := obj["spec"].(map[string]any)
	if spec != nil {
		for spoke, hub := range s.Spokes[from] {
			if v, ok := spec[spoke]; ok {
				delete(spec, spoke)
				spec[hub] = v
			}
		}
		for spoke, hub := range s.Spokes[to] {
			if v, ok := spec[hub]; ok {
				delete(spec, hub)
				spec[spoke] = v
			}
		}
	}
	obj["apiVersion"] = desired
	return obj, nil
}
