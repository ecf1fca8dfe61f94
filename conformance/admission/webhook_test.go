package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	webhookerrors "k8s.io/apiserver/pkg/admission/plugin/webhook/errors"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/request"
	"k8s.io/apiserver/pkg/authentication/user"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

type reviewCase struct {
	op            string
	name, ns, sub string
	obj, old      map[string]any
	dryRun        bool
	user          wadmission.UserInfo
}

func genReviewCase(r *rand.Rand) reviewCase {
	c := reviewCase{op: pick(r, "CREATE", "UPDATE", "DELETE", "CONNECT"), name: pick(r, "cm1", ""), ns: pick(r, "ns-a", ""),
		sub: pick(r, "", "", "status"), dryRun: r.IntN(2) == 0}
	c.user = wadmission.UserInfo{Username: pick(r, "", "alice"), UID: pick(r, "", "u-1"),
		Groups: some(r, 2, "dev", "system:authenticated")}
	if r.IntN(2) == 0 {
		c.user.Extra = map[string][]string{"scopes": {"a", "b"}}
	}
	if c.op == "CREATE" || c.op == "UPDATE" || (c.op == "CONNECT" && r.IntN(2) == 0) {
		c.obj = genConfigMap(r, "cm1", "ns-a")
	}
	if c.op == "UPDATE" || c.op == "DELETE" {
		c.old = genConfigMap(r, "cm1", "ns-a")
	}
	return c
}

// refReview is request.CreateV1AdmissionReview for the case, as JSON.
func refReview(t testing.TB, c reviewCase, uid string) map[string]any {
	var o, oo runtime.Object
	if c.obj != nil {
		o = &unstructured.Unstructured{Object: deepCopy(c.obj)}
	}
	if c.old != nil {
		oo = &unstructured.Unstructured{Object: deepCopy(c.old)}
	}
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	var opts runtime.Object
	switch c.op {
	case "CREATE":
		opts = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}}
	case "UPDATE":
		opts = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}}
	case "DELETE":
		opts = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions"}}
	}
	attrs := admission.NewAttributesRecord(o, oo, gvk, c.ns, c.name, gvr, c.sub, admission.Operation(c.op), opts, c.dryRun,
		&user.DefaultInfo{Name: c.user.Username, UID: c.user.UID, Groups: c.user.Groups, Extra: c.user.Extra})
	va, err := admission.NewVersionedAttributes(attrs, gvk, nil)
	require.NoError(t, err)
	inv := &generic.WebhookInvocation{Resource: gvr, Subresource: c.sub, Kind: gvk}
	review := request.CreateV1AdmissionReview(types.UID(uid), va, inv)
	review.APIVersion, review.Kind = "admission.k8s.io/v1", "AdmissionReview"
	b, err := json.Marshal(review)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// TestAdmissionReviewRequests compares admission.Review with the apiserver's
// CreateV1AdmissionReview on generated requests.
func TestAdmissionReviewRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	n := sampleSize(500)
	for i := 0; i < n; i++ {
		c := genReviewCase(r)
		want := refReview(t, c, "uid-1")
		body, err := wadmission.Review(wadmission.Request{Operation: wadmission.Operation(c.op),
			Kind:        wschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource:    wschema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			SubResource: c.sub, Name: c.name, Namespace: c.ns, Object: c.obj, OldObject: c.old, DryRun: c.dryRun, UserInfo: c.user}, "uid-1")
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, json.Unmarshal(body, &got))
		if !assert.Equal(t, want, got, "case %d", i) {
			return
		}
	}
	t.Logf("%d reviews compared", n)
}

// genResponse is a webhook answer: valid or not, allowing or not, patching or not.
func genResponse(r *rand.Rand, uid string, mutating bool) []byte {
	resp := map[string]any{"uid": pick(r, uid, uid, uid, "other", "")}
	if r.IntN(8) != 0 {
		resp["allowed"] = r.IntN(2) == 0
	}
	switch r.IntN(4) {
	case 0:
		st := map[string]any{}
		if r.IntN(2) == 0 {
			st["code"] = pick[any](r, int64(403), int64(200), int64(422), int64(0))
		}
		if m := pick(r, "", "nope"); m != "" {
			st["message"] = m
		}
		if rs := pick(r, "", "Forbidden", "Invalid"); rs != "" {
			st["reason"] = rs
		}
		if r.IntN(3) == 0 {
			st["details"] = map[string]any{"name": "x", "causes": []any{map[string]any{"reason": "FieldValueInvalid", "message": "bad", "field": "data.a"}}}
		}
		if r.IntN(3) == 0 {
			st["status"] = pick(r, "Failure", "Success")
		}
		resp["status"] = st
	}
	if r.IntN(2) == 0 {
		patch := pick(r, `[{"op":"add","path":"/data/b","value":"2"}]`, `[{"op":"remove","path":"/data/zz"}]`, `[]`)
		resp["patch"] = base64.StdEncoding.EncodeToString([]byte(patch))
	}
	if r.IntN(2) == 0 {
		resp["patchType"] = pick(r, "JSONPatch", "", "MergePatch")
	}
	if r.IntN(3) == 0 {
		resp["warnings"] = []any{"w1", "w2"}
	}
	if r.IntN(3) == 0 {
		resp["auditAnnotations"] = map[string]any{"k": "v"}
	}
	review := map[string]any{"apiVersion": pick(r, "admission.k8s.io/v1", "admission.k8s.io/v1", "admission.k8s.io/v1beta1"),
		"kind": pick(r, "AdmissionReview", "AdmissionReview", "Other")}
	if r.IntN(10) != 0 {
		review["response"] = resp
	}
	b, _ := json.Marshal(review)
	return b
}

// refValidatingAnswer is what the validating webhook dispatcher makes of a
// response body for a hook with failurePolicy Fail: the request's error.
func refValidatingAnswer(t testing.TB, name, uid string, body []byte) (string, []string) {
	var review admissionv1.AdmissionReview
	require.NoError(t, json.Unmarshal(body, &review))
	resp, err := request.VerifyAdmissionResponse(types.UID(uid), false, &review)
	if err != nil {
		ce := &webhookutil.ErrCallingWebhook{WebhookName: name, Reason: fmt.Errorf("received invalid webhook response: %w", err)}
		return apierrors.NewInternalError(ce).Error(), nil
	}
	if resp.Allowed {
		return "", resp.Warnings
	}
	return webhookerrors.ToStatusErr(name, resp.Result).Error(), resp.Warnings
}

type cannedClient struct{ body []byte }

func (c cannedClient) Call(context.Context, wadmission.WebhookTarget, []byte) ([]byte, error) {
	return c.body, nil
}

// TestWebhookResponses compares how validating webhook answers are judged:
// VerifyAdmissionResponse, ToStatusErr and the failing-closed wrapping.
func TestWebhookResponses(t *testing.T) {
	w := newWorld(t)
	r := rand.New(rand.NewPCG(6, 2))
	n := sampleSize(500)
	name := "v.example.com"
	cfg := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "cfg"}, "webhooks": []any{map[string]any{"name": name,
			"clientConfig": map[string]any{"url": "https://127.0.0.1:1/"}, "sideEffects": "None", "admissionReviewVersions": []any{"v1"},
			"rules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"configmaps"}}}}}}
	for i := 0; i < n; i++ {
		body := genResponse(r, "uid-1", false)
		wantErr, wantWarn := refValidatingAnswer(t, name, "uid-1", body)
		chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{cfg}, Namespaces: w.namespaces,
			Client: cannedClient{body}, Env: wadmission.Env{ReviewUID: func() string { return "uid-1" }}})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Create,
			Kind:     wschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: wschema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			Name:     "cm1", Namespace: "ns-a", Object: genConfigMap(r, "cm1", "ns-a")})
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
			if wantErr != "" {
				var se *status.Error
				require.ErrorAs(t, err, &se)
			}
		}
		ok := assert.Equal(t, wantErr, gotErr, "case %d: %s", i, body)
		if wantErr == "" || len(wantWarn) > 0 && ok {
			assert.Equal(t, wantWarn, res.RawWarnings, "case %d: %s", i, body)
		}
		if !ok {
			return
		}
	}
	t.Logf("%d responses compared", n)
}

// refMutatingAnswer is what the mutating webhook dispatcher makes of a
// response body for a hook with failurePolicy Fail: the patched object or the
// request's error (callHook and the loop's failing-closed wrapping).
func refMutatingAnswer(t testing.TB, name, uid string, obj map[string]any, body []byte) (map[string]any, string, []string) {
	var review admissionv1.AdmissionReview
	require.NoError(t, json.Unmarshal(body, &review))
	calling := func(err error) string {
		return apierrors.NewInternalError(&webhookutil.ErrCallingWebhook{WebhookName: name, Reason: err}).Error()
	}
	resp, err := request.VerifyAdmissionResponse(types.UID(uid), true, &review)
	if err != nil {
		return nil, calling(fmt.Errorf("received invalid webhook response: %w", err)), nil
	}
	if !resp.Allowed {
		return nil, webhookerrors.ToStatusErr(name, resp.Result).Error(), resp.Warnings
	}
	if len(resp.Patch) == 0 {
		return obj, "", resp.Warnings
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return nil, calling(fmt.Errorf("received undecodable patch in webhook response: %w", err)), resp.Warnings
	}
	if len(p) == 0 {
		return obj, "", resp.Warnings
	}
	if obj == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", name)).Error(), resp.Warnings
	}
	if resp.PatchType != admissionv1.PatchTypeJSONPatch {
		return nil, calling(fmt.Errorf("unsupported patch type %q", resp.PatchType)), resp.Warnings
	}
	js, _ := json.Marshal(obj)
	out, err := p.Apply(js)
	if err != nil {
		return nil, apierrors.NewInternalError(err).Error(), resp.Warnings
	}
	// The dispatcher decodes the patched JSON into the kind's Go type and
	// defaults it (a ConfigMap has no defaulting functions).
	into := &corev1.ConfigMap{}
	dec := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, clientscheme.Scheme, clientscheme.Scheme, kjson.SerializerOptions{})
	decoded, _, err := dec.Decode(out, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(err).Error(), resp.Warnings
	}
	clientscheme.Scheme.Default(decoded)
	typed, err := json.Marshal(decoded)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(typed, &m))
	return m, "", resp.Warnings
}

func genMutatingResponse(r *rand.Rand, uid string) []byte {
	var review map[string]any
	require := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	require(json.Unmarshal(genResponse(r, uid, true), &review))
	if r.IntN(3) != 0 {
		// Mostly well-formed allowing answers, so that patches get applied.
		review["apiVersion"], review["kind"] = "admission.k8s.io/v1", "AdmissionReview"
		resp, _ := review["response"].(map[string]any)
		if resp == nil {
			resp = map[string]any{}
		}
		resp["uid"], resp["allowed"] = uid, true
		delete(resp, "patchType")
		delete(resp, "patch")
		review["response"] = resp
	}
	if resp, ok := review["response"].(map[string]any); ok && r.IntN(2) == 0 {
		patch := pick(r, `[{"op":"add","path":"/data/b","value":"2"}]`, `[{"op":"remove","path":"/data/zz"}]`, `[]`,
			`{"op":"add"}`, `[{"op":"test","path":"/metadata/name","value":"other"}]`, `[{"op":"replace","path":"/data","value":{"k":"v"}}]`,
			`[{"op":"move","from":"/data","path":"/moved"}]`, `[{"op":"copy","from":"/metadata/name","path":"/data/copied"}]`)
		resp["patch"] = base64.StdEncoding.EncodeToString([]byte(patch))
		resp["patchType"] = "JSONPatch"
	}
	b, _ := json.Marshal(review)
	return b
}

// TestMutatingWebhookResponses compares how mutating webhook answers are
// applied: verification, denial, patch decoding and application.
func TestMutatingWebhookResponses(t *testing.T) {
	w := newWorld(t)
	r := rand.New(rand.NewPCG(6, 3))
	n := sampleSize(500)
	name := "m.example.com"
	cfg := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "cfg"}, "webhooks": []any{map[string]any{"name": name,
			"clientConfig": map[string]any{"url": "https://127.0.0.1:1/"}, "sideEffects": "None", "admissionReviewVersions": []any{"v1"},
			"rules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"configmaps"}}}}}}
	failed, patched := 0, 0
	for i := 0; i < n; i++ {
		body := genMutatingResponse(r, "uid-1")
		op := pick(r, wadmission.Create, wadmission.Create, wadmission.Delete)
		var obj, old map[string]any
		if op == wadmission.Create {
			obj = genConfigMap(r, "cm1", "ns-a")
		} else {
			old = genConfigMap(r, "cm1", "ns-a")
		}
		wantObj, wantErr, wantWarn := refMutatingAnswer(t, name, "uid-1", obj, body)
		chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{cfg}, Namespaces: w.namespaces,
			Client: cannedClient{body}, Env: wadmission.Env{ReviewUID: func() string { return "uid-1" }}})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), wadmission.Request{Operation: op,
			Kind:     wschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: wschema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			Name:     "cm1", Namespace: "ns-a", Object: obj, OldObject: old})
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		ok := assert.Equal(t, wantErr, gotErr, "case %d: %s", i, body)
		switch {
		case wantErr != "":
			failed++
		case len(res.Patches) > 0:
			patched++
		}
		if ok && wantErr == "" {
			wb, _ := json.Marshal(wantObj)
			gb, _ := json.Marshal(res.Object)
			ok = assert.JSONEq(t, string(wb), string(gb), "case %d: %s", i, body)
			ok = assert.Equal(t, wantWarn, res.RawWarnings, "case %d: %s", i, body) && ok
		}
		if !ok {
			return
		}
	}
	t.Logf("%d responses compared (%d rejected, %d patched)", n, failed, patched)
}
