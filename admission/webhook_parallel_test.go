package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The tests that release the webhooks' answers one at a time in a chosen
// order (so the "first to arrive" is deterministic) run the chain in a
// testing/synctest bubble.

// gateClient answers each webhook only when the test releases it.
type gateClient struct {
	started chan string
	release map[string]chan struct{}
	answer  func(name, uid string) ([]byte, error)
}

func newGateClient(names []string, answer func(name, uid string) ([]byte, error)) *gateClient {
	g := &gateClient{release: map[string]chan struct{}{}, answer: answer}
	for _, n := range names {
		g.release[n] = nil
	}
	return g
}

// arm makes the gates anew: inside a synctest bubble, so that a webhook
// waiting at one is durably blocked.
func (g *gateClient) arm() {
	g.started = make(chan string, len(g.release))
	for n := range g.release {
		g.release[n] = make(chan struct{})
	}
}

func (g *gateClient) Call(ctx context.Context, t WebhookTarget, body []byte) ([]byte, error) {
	g.started <- t.Name
	select {
	case <-g.release[t.Name]:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var ar struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.Unmarshal(body, &ar); err != nil {
		return nil, err
	}
	return g.answer(t.Name, ar.Request.UID)
}

func reviewAnswer(uid string, resp map[string]any) []byte {
	resp["uid"] = uid
	b, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	return b
}

// validatingConfig is a ValidatingWebhookConfiguration named name with one
// webhook of the same name on configmaps (resource overrides the resource).
func validatingConfig(name, url string, extra map[string]any) map[string]any {
	hook := map[string]any{
		"name":         name,
		"clientConfig": map[string]any{"url": url},
		"rules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"},
			"resources": []any{"configmaps"}}},
		"sideEffects":             "None",
		"admissionReviewVersions": []any{"v1"},
	}
	for k, v := range extra {
		hook[k] = v
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": name}, "webhooks": []any{hook}}
}

func configMapCreate() Request {
	return Request{
		Operation: Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      "cm1", Namespace: "ns1",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm1", "namespace": "ns1"}},
	}
}

// admitReleasing runs Admit and releases the webhooks' answers in order, each
// after the previous one has been taken in: it runs in a synctest bubble, and
// synctest.Wait returns once every goroutine of the chain is blocked again
// (the released answer handled, the others still waiting for their release).
func admitReleasing(t *testing.T, chain *Chain, g *gateClient, req Request, calls int, order []string) (Result, error) {
	t.Helper()
	var res Result
	var err error
	synctest.Test(t, func(t *testing.T) {
		g.arm()
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err = chain.Admit(context.Background(), req)
		}()
		synctest.Wait()
		require.Len(t, g.started, calls, "webhooks called")
		for _, name := range order {
			close(g.release[name])
			synctest.Wait()
		}
		<-done
	})
	return res, err
}

func TestValidatingWebhooksFirstErrorToArrive(t *testing.T) {
	names := []string{"a", "b", "c"}
	for _, order := range [][]string{{"a", "b", "c"}, {"c", "a", "b"}, {"b", "c", "a"}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			g := newGateClient(names, func(name, uid string) ([]byte, error) {
				return reviewAnswer(uid, map[string]any{"allowed": false, "status": map[string]any{"message": "no from " + name},
					"warnings": []any{"warning from " + name}, "auditAnnotations": map[string]any{"k": name}}), nil
			})
			var objs []map[string]any
			for _, n := range names {
				objs = append(objs, validatingConfig(n, "https://"+n+".invalid/", nil))
			}
			chain, err := New(Config{Objects: objs, Client: g})
			require.NoError(t, err)
			res, err := admitReleasing(t, chain, g, configMapCreate(), len(names), order)
			var se *status.Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, fmt.Sprintf("admission webhook %q denied the request: no from %s", order[0], order[0]), se.Message, "the first answer to arrive")
			var wantWarnings []string
			for _, n := range order {
				wantWarnings = append(wantWarnings, "warning from "+n)
			}
			assert.Equal(t, wantWarnings, res.Warnings, "warnings in order of arrival")
			assert.Equal(t, map[string]string{"a/k": "a", "b/k": "b", "c/k": "c"}, res.AuditAnnotations)
		})
	}
}

func TestValidatingWebhooksIgnoreAndFailedOpenIndex(t *testing.T) {
	// "a" does not match (its rules are for secrets): the failed-open index
	// counts matching webhooks only, so "c" (third configured) is index_1.
	names := []string{"b", "c", "d"}
	g := newGateClient(names, func(name, uid string) ([]byte, error) {
		switch name {
		case "c":
			return nil, errors.New("connection refused")
		case "d":
			return reviewAnswer(uid, map[string]any{"allowed": false}), nil
		}
		return reviewAnswer(uid, map[string]any{"allowed": true}), nil
	})
	secretsOnly := validatingConfig("a", "https://a.invalid/", map[string]any{"rules": []any{map[string]any{
		"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"secrets"}}}})
	chain, err := New(Config{Client: g, Objects: []map[string]any{secretsOnly,
		validatingConfig("b", "https://b.invalid/", nil),
		validatingConfig("c", "https://c.invalid/", map[string]any{"failurePolicy": "Ignore"}),
		validatingConfig("d", "https://d.invalid/", nil)}})
	require.NoError(t, err)
	res, err := admitReleasing(t, chain, g, configMapCreate(), 3, []string{"c", "b", "d"})
	var se *status.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, `admission webhook "d" denied the request without explanation`, se.Message)
	assert.Equal(t, map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_1": "c"}, res.AuditAnnotations)

	// failurePolicy Fail: the call error is the answer if it arrives first.
	g = newGateClient(names, func(name, uid string) ([]byte, error) {
		if name == "c" {
			return nil, errors.New("connection refused")
		}
		return reviewAnswer(uid, map[string]any{"allowed": false}), nil
	})
	chain, err = New(Config{Client: g, Objects: []map[string]any{validatingConfig("b", "https://b.invalid/", nil),
		validatingConfig("c", "https://c.invalid/", nil), validatingConfig("d", "https://d.invalid/", nil)}})
	require.NoError(t, err)
	_, err = admitReleasing(t, chain, g, configMapCreate(), 3, []string{"c", "d", "b"})
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(500), se.Code)
	assert.Equal(t, `Internal error occurred: failed calling webhook "c": failed to call webhook: connection refused`, se.Message)
}

func TestValidatingWebhooksAreConcurrent(t *testing.T) {
	// Every call waits until all three are in flight: sequential calls would
	// never get there.
	const n = 3
	var mu sync.Mutex
	inFlight := 0
	all := make(chan struct{})
	cl := clientFunc(func(ctx context.Context, tg WebhookTarget, body []byte) ([]byte, error) {
		mu.Lock()
		inFlight++
		if inFlight == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			return nil, errors.New("the other webhooks were not called meanwhile")
		}
		var ar struct {
			Request struct {
				UID string `json:"uid"`
			} `json:"request"`
		}
		_ = json.Unmarshal(body, &ar)
		return reviewAnswer(ar.Request.UID, map[string]any{"allowed": true}), nil
	})
	uid := 0
	chain, err := New(Config{Client: cl, Env: Env{ReviewUID: func() string { uid++; return fmt.Sprint("uid-", uid) }},
		Objects: []map[string]any{validatingConfig("a", "https://a.invalid/", nil),
			validatingConfig("b", "https://b.invalid/", nil), validatingConfig("c", "https://c.invalid/", nil)}})
	require.NoError(t, err)
	_, err = chain.Admit(context.Background(), configMapCreate())
	require.NoError(t, err)
	assert.Equal(t, 3, uid, "one review uid per webhook, drawn before the calls")
}

type clientFunc func(ctx context.Context, t WebhookTarget, body []byte) ([]byte, error)

func (f clientFunc) Call(ctx context.Context, t WebhookTarget, body []byte) ([]byte, error) {
	return f(ctx, t, body)
}

func TestValidatingWebhookTimeoutsOverlap(t *testing.T) {
	// Three webhooks that never answer, each with timeoutSeconds 1, through the
	// real HTTPS client: they are called at once (the apiserver runs validating
	// webhooks in parallel), so all three requests are in flight together and the
	// request waits about one timeout, not three. Counted, not timed: the server
	// records how many calls it holds at the same moment.
	var mu sync.Mutex
	inFlight, most := 0, 0
	release := make(chan struct{})
	hang := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hang.Certificate().Raw}))
	var objs []map[string]any
	for _, n := range []string{"a", "b", "c"} {
		cfg := validatingConfig(n, hang.URL+"/"+n, map[string]any{"timeoutSeconds": int64(1), "failurePolicy": "Ignore"})
		cfg["webhooks"].([]any)[0].(map[string]any)["clientConfig"].(map[string]any)["caBundle"] = ca
		objs = append(objs, cfg)
	}
	chain, err := New(Config{Objects: objs})
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), configMapCreate())
	close(release)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 3, most, "the three webhook calls overlap")
	assert.Len(t, res.AuditAnnotations, 3, "all three failed open: %v", res.AuditAnnotations)
}

func TestValidatingWebhookPanics(t *testing.T) {
	cl := clientFunc(func(ctx context.Context, tg WebhookTarget, body []byte) ([]byte, error) { panic("boom") })
	chain, err := New(Config{Client: cl, Objects: []map[string]any{validatingConfig("a", "https://a.invalid/", nil)}})
	require.NoError(t, err)
	_, err = chain.Admit(context.Background(), configMapCreate())
	var se *status.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Internal error occurred: ValidatingAdmissionWebhook/a has panicked: boom", se.Message)

	chain, err = New(Config{Client: cl, Objects: []map[string]any{validatingConfig("a", "https://a.invalid/", map[string]any{"failurePolicy": "Ignore"})}})
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), configMapCreate())
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "a"}, res.AuditAnnotations)
}

func TestWebhookMatchConditionErrorIsForbidden(t *testing.T) {
	called := false
	cl := clientFunc(func(ctx context.Context, tg WebhookTarget, body []byte) ([]byte, error) {
		called = true
		return nil, errors.New("not reached")
	})
	// A match condition that fails at run time fails the request closed with
	// 403 before any webhook is called (ShouldCallHook), whatever else matches.
	bad := validatingConfig("b", "https://b.invalid/", map[string]any{"matchConditions": []any{
		map[string]any{"name": "boom", "expression": "object.data.missing == 'x'"}}})
	chain, err := New(Config{Client: cl, Objects: []map[string]any{validatingConfig("a", "https://a.invalid/", nil), bad}})
	require.NoError(t, err)
	_, err = chain.Admit(context.Background(), configMapCreate())
	var se *status.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(403), se.Code)
	assert.Equal(t, `configmaps "cm1" is forbidden: expression 'object.data.missing == 'x'' resulted in error: no such key: data`, se.Message)
	assert.False(t, called)
}

func TestWebhookMatchErrors(t *testing.T) {
	cl := clientFunc(func(ctx context.Context, tg WebhookTarget, body []byte) ([]byte, error) {
		return nil, errors.New("not reached")
	})
	// A mutating webhook's failing match condition is the same 403, even
	// under failurePolicy Fail, and no failed-open annotation is added.
	mutating := validatingConfig("m", "https://m.invalid/", map[string]any{"matchConditions": []any{
		map[string]any{"name": "boom", "expression": "object.data.missing == 'x'"}}})
	mutating["kind"] = "MutatingWebhookConfiguration"
	chain, err := New(Config{Client: cl, Objects: []map[string]any{mutating}})
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), configMapCreate())
	var se *status.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(403), se.Code)
	assert.Empty(t, res.AuditAnnotations)

	// A namespace that cannot be found matters only to a webhook whose rules
	// match the request (ShouldCallHook looks at the rules first).
	secretsOnly := validatingConfig("s", "https://s.invalid/", map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "a"}},
		"rules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"},
			"resources": []any{"secrets"}}}})
	chain, err = New(Config{Client: cl, Objects: []map[string]any{secretsOnly}})
	require.NoError(t, err)
	_, err = chain.Admit(context.Background(), configMapCreate())
	require.NoError(t, err)
	selecting := validatingConfig("c", "https://c.invalid/", map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "a"}}})
	chain, err = New(Config{Client: cl, Objects: []map[string]any{selecting}})
	require.NoError(t, err)
	_, err = chain.Admit(context.Background(), configMapCreate())
	require.ErrorAs(t, err, &se)
	assert.Equal(t, `namespaces "ns1" not found`, se.Message)
}
