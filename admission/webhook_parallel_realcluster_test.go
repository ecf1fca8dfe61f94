package admission

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// TestRealClusterParallelWebhooks replays testdata/admission/webhook-parallel
// (recorded from the real kube-apiserver 1.37 by record.py there): four
// validating webhooks, the slow denying one first in the apiserver's order, a
// fast denying one, one that times out under failurePolicy Ignore and one
// that warns. The apiserver answered with the fast webhook's denial in about
// the slow one's time, with the warnings in order of arrival. The chain is
// given the recorded answers in the recorded order of arrival (the timed-out
// call fails at its timeout, between the warning and the slow denial) and
// must answer the same.
func TestRealClusterParallelWebhooks(t *testing.T) {
	dir := filepath.Join("..", "testdata", "admission", "webhook-parallel")
	cfgYAML, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments(bytes.ReplaceAll(cfgYAML, []byte("CABUNDLE"), nil))
	require.NoError(t, err)
	var objs, namespaces []map[string]any
	for _, d := range docs {
		if d["kind"] == "Namespace" {
			namespaces = append(namespaces, d)
		} else {
			objs = append(objs, d)
		}
	}
	type answer struct {
		Path      string         `json:"path"`
		Response  map[string]any `json:"response"`
		SentAfter float64        `json:"sentAfter"`
	}
	f, err := os.Open(filepath.Join(dir, "answers.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	answers := map[string]answer{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a answer
		require.NoError(t, json.Unmarshal(sc.Bytes(), &a))
		answers[a.Path] = a
	}
	var recorded struct {
		Code     int            `json:"code"`
		Warnings []string       `json:"warnings"`
		Body     map[string]any `json:"body"`
		Seconds  float64        `json:"seconds"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "response.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &recorded))
	// The recording itself shows the calls overlapped: the request took about
	// as long as the slowest answer, well under the sum of the delays.
	assert.Less(t, recorded.Seconds, answers["/slow-deny"].SentAfter+answers["/warn"].SentAfter+1)

	names := map[string]string{} // webhook name -> path
	for _, o := range objs {
		h := o["webhooks"].([]any)[0].(map[string]any)
		u := h["clientConfig"].(map[string]any)["url"].(string)
		names[h["name"].(string)] = u[strings.LastIndex(u, "/"):]
	}
	var hookNames []string
	for n := range names {
		hookNames = append(hookNames, n)
	}
	g := newGateClient(hookNames, func(name, uid string) ([]byte, error) {
		if names[name] == "/hang" {
			return nil, context.DeadlineExceeded
		}
		resp := map[string]any{}
		for k, v := range answers[names[name]].Response {
			resp[k] = v
		}
		return reviewAnswer(uid, resp), nil
	})
	chain, err := New(Config{Objects: objs, Namespaces: namespaces, Client: g})
	require.NoError(t, err)
	// Arrival order: the recorded send times, the timed-out call at its timeout.
	at := func(name string) float64 {
		if names[name] == "/hang" {
			return 1
		}
		return answers[names[name]].SentAfter
	}
	order := append([]string(nil), hookNames...)
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if at(order[j]) < at(order[i]) {
				order[i], order[j] = order[j], order[i]
			}
		}
	}
	req := Request{Operation: Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "cm1", Namespace: "wp-adm-parallel",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm1", "namespace": "wp-adm-parallel"}, "data": map[string]any{"a": "1"}}}
	res, admitErr := admitReleasing(t, chain, g, req, len(order), order)
	require.Error(t, admitErr)
	gotBody, err := json.Marshal(admitErr)
	require.NoError(t, err)
	wantBody, err := json.Marshal(recorded.Body)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantBody), string(gotBody))
	var warns []string
	for _, w := range recorded.Warnings {
		warns = append(warns, strings.TrimSuffix(strings.TrimPrefix(w, `299 - "`), `"`))
	}
	assert.Equal(t, warns, res.Warnings)
	assert.Equal(t, map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_2": "c-hang.wp-adm.example.com"},
		res.AuditAnnotations)
}
