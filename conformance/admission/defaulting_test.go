package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	wadmission "github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	wschema "github.com/writepath/writepath/schema"
)

// gizmosCRD has defaults at several depths, different in its two versions.
const gizmosCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode: {type: string, default: fast}
              note: {type: string, nullable: true, default: none}
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    size: {type: integer, default: 3}
              limits:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    max: {type: integer, default: 10}
              nested:
                type: object
                default: {}
                properties:
                  inner: {type: string, default: deep}
          extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode: {type: string, default: slow}
              note: {type: string}
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    size: {type: integer, default: 7}
              limits:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    max: {type: integer, default: 20}
              nested:
                type: object
                properties:
                  inner: {type: string, default: v2deep}
          extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// gizmoObjects are the ObjectInterfaces the apiextensions-apiserver's handler
// gives admission for gizmos: unstructured objects, the None strategy, and
// its unstructuredDefaulter (the structural defaults of the version the
// object names, for objects of the CRD's group and kind).
type gizmoObjects struct {
	crObjects
	schemas map[string]*structuralschema.Structural
}

func (o *gizmoObjects) GetObjectDefaulter() runtime.ObjectDefaulter { return o }
func (o *gizmoObjects) GetObjectCreater() runtime.ObjectCreater     { return o }
func (o *gizmoObjects) GetObjectConvertor() runtime.ObjectConvertor { return o }

func (o *gizmoObjects) Default(in runtime.Object) {
	u, ok := in.(runtime.Unstructured)
	if !ok || u.GetObjectKind().GroupVersionKind().GroupKind() != (schema.GroupKind{Group: "example.com", Kind: "Gizmo"}) {
		return
	}
	structuraldefaulting.Default(u.UnstructuredContent(), o.schemas[u.GetObjectKind().GroupVersionKind().Version])
}

func newGizmoObjects(t *testing.T) *gizmoObjects {
	var crd apiextensionsv1.CustomResourceDefinition
	require.NoError(t, yaml.Unmarshal([]byte(gizmosCRD), &crd))
	o := &gizmoObjects{crObjects: crObjects{registry: runtime.NewEquivalentResourceRegistry(), scheme: runtime.NewScheme()},
		schemas: map[string]*structuralschema.Structural{}}
	for _, v := range crd.Spec.Versions {
		var internal apiextensionsinternal.CustomResourceValidation
		require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil))
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		require.NoError(t, err)
		o.schemas[v.Name] = s
		res := schema.GroupVersionResource{Group: "example.com", Version: v.Name, Resource: "gizmos"}
		o.registry.RegisterKindFor(res, "", schema.GroupVersionKind{Group: "example.com", Version: v.Name, Kind: "Gizmo"})
	}
	return o
}

// gizmoHook answers the two webhooks of the suite: /h0 with the case's
// patch, /h1 with a label once; it keeps the reviews it is sent.
type gizmoHook struct {
	mu    sync.Mutex
	patch string
	sent  []map[string]any
}

func (h *gizmoHook) answer(path string, body []byte) []byte {
	var review map[string]any
	if err := json.Unmarshal(body, &review); err != nil {
		return nil
	}
	req, _ := review["request"].(map[string]any)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sent = append(h.sent, req)
	resp := map[string]any{"uid": req["uid"], "allowed": true}
	patch := ""
	if strings.HasSuffix(path, "/h0") {
		patch = h.patch
	} else if obj, ok := req["object"].(map[string]any); ok {
		md, _ := obj["metadata"].(map[string]any)
		if labels, _ := md["labels"].(map[string]any); labels["seen"] == nil {
			patch = `[{"op":"add","path":"/metadata/labels","value":{"seen":"yes"}}]`
		}
	}
	if patch != "" {
		resp["patchType"], resp["patch"] = "JSONPatch", base64.StdEncoding.EncodeToString([]byte(patch))
	}
	out, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	return out
}

func (h *gizmoHook) Call(_ context.Context, t wadmission.WebhookTarget, body []byte) ([]byte, error) {
	return h.answer(strings.SplitN(t.URL, "?", 2)[0], body), nil
}

func (h *gizmoHook) take() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.sent
	h.sent = nil
	return out
}

var gizmoPatches = []string{
	`[{"op":"add","path":"/spec/parts","value":[{"name":"a"},{"name":"b","size":1}]}]`,
	`[{"op":"add","path":"/spec/parts/-","value":{"name":"c"}}]`,
	`[{"op":"remove","path":"/spec/mode"}]`,
	`[{"op":"replace","path":"/spec/mode","value":null}]`,
	`[{"op":"add","path":"/spec/note","value":null}]`,
	`[{"op":"add","path":"/spec/limits","value":{"x":{},"y":{"max":1},"z":null}}]`,
	`[{"op":"remove","path":"/spec/nested"}]`,
	`[{"op":"add","path":"/spec/nested","value":{}}]`,
	`[{"op":"add","path":"/extra","value":{"anything":[1,{"b":null}]}}]`,
	`[{"op":"replace","path":"/apiVersion","value":"example.com/v1"},{"op":"remove","path":"/spec/mode"}]`,
	`[{"op":"replace","path":"/apiVersion","value":"other.example.com/v1"},{"op":"remove","path":"/spec/mode"}]`,
	`[{"op":"remove","path":"/kind"}]`,
	`[{"op":"replace","path":"/spec","value":{}}]`,
	`[{"op":"test","path":"/spec/mode","value":"nope"}]`,
	`[{"op":"add","path":"/metadata/labels","value":{"seen":"early"}}]`,
	`[]`,
}

func genGizmo(r *rand.Rand, version string) map[string]any {
	spec := map[string]any{}
	for _, k := range some(r, 3, "mode", "parts", "limits", "nested", "note") {
		switch k {
		case "mode":
			spec["mode"] = pick(r, "fast", "slow", "odd")
		case "parts":
			spec["parts"] = []any{map[string]any{"name": "p", "size": int64(r.IntN(4))}}
		case "limits":
			spec["limits"] = map[string]any{"l": map[string]any{"max": int64(r.IntN(30))}}
		case "nested":
			spec["nested"] = map[string]any{"inner": pick(r, "a", "b")}
		case "note":
			spec["note"] = "n"
		}
	}
	md := map[string]any{"name": "g1", "namespace": "ns-a"}
	if r.IntN(3) == 0 {
		// The second webhook then has nothing to add.
		md["labels"] = map[string]any{"seen": "before"}
	}
	return map[string]any{"apiVersion": "example.com/" + version, "kind": "Gizmo", "metadata": md, "spec": spec}
}

// TestWebhookPatchDefaulting runs k8s.io/apiserver's mutating webhook plugin
// with the ObjectInterfaces of a custom resource's handler (its
// unstructuredDefaulter over apiextensions' structural defaulting) and Admit
// on generated patches of a CRD with defaults at several depths, differing
// between its versions: one webhook registered for v2 with matchPolicy
// Equivalent patches the object, a second one for v1 adds a label. The reviews
// sent (the defaults the first patch left, at the version each webhook sees),
// the admitted object and the errors must be equal. 300 cases normally,
// 100,000 with WRITEPATH_LONG=1.
func TestWebhookPatchDefaulting(t *testing.T) {
	w := newWorld(t)
	crd, err := wschema.FromCRDBytes([]byte(gizmosCRD))
	require.NoError(t, err)
	o := newGizmoObjects(t)
	hook := &gizmoHook{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(hook.answer(r.URL.Path, b))
	}))
	defer srv.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	mk := func(name, version, policy string) any {
		return map[string]any{"name": name + ".example.com", "matchPolicy": policy,
			"rules":        []any{map[string]any{"apiGroups": []any{"example.com"}, "apiVersions": []any{version}, "operations": []any{"*"}, "resources": []any{"gizmos"}}},
			"clientConfig": map[string]any{"url": srv.URL + "/" + name, "caBundle": ca},
			"sideEffects":  "None", "admissionReviewVersions": []any{"v1"}, "failurePolicy": "Fail", "timeoutSeconds": int64(10),
			"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "reinvocationPolicy": "IfNeeded"}
	}
	cfgA := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "a"}, "webhooks": []any{mk("h0", "v2", "Equivalent")}}
	cfgB := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "b"}, "webhooks": []any{mk("h1", "v1", "Exact")}}

	var ma, mb admissionregistrationv1.MutatingWebhookConfiguration
	fromMap(t, cfgA, &ma)
	fromMap(t, cfgB, &mb)
	client := fake.NewSimpleClientset(&ma, &mb)
	factory := informers.NewSharedInformerFactory(client, 0)
	plugin, err := webhookmutating.NewMutatingWebhook(nil)
	require.NoError(t, err)
	plugin.SetExternalKubeClientSet(client)
	plugin.SetExternalKubeInformerFactory(factory)
	require.NoError(t, plugin.ValidateInitialization())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	require.Eventually(t, func() bool { return plugin.WaitForReady() }, 10*time.Second, 10*time.Millisecond)

	chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{cfgA, cfgB}, Namespaces: w.namespaces, Client: hook,
		Versions: wadmission.Versions{CRDs: []*wschema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*wschema.CRD{crd}}}})
	require.NoError(t, err)

	r := rand.New(rand.NewPCG(6, 60))
	n := sampleSize(300)
	failed, reinvoked := 0, 0
	for i := 0; i < n; i++ {
		// The request's object as the handler holds it: defaulted at v1.
		obj := genGizmo(r, "v1")
		structuraldefaulting.Default(obj, o.schemas["v1"])
		hook.patch = pick(r, gizmoPatches...)
		op := pick(r, "CREATE", "UPDATE")
		var old map[string]any
		if op == "UPDATE" {
			old = genGizmo(r, "v1")
			structuraldefaulting.Default(old, o.schemas["v1"])
		}
		var oo runtime.Object
		if old != nil {
			oo = &unstructured.Unstructured{Object: deepCopy(old)}
		}
		attrs := admission.NewAttributesRecord(&unstructured.Unstructured{Object: deepCopy(obj)}, oo,
			schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gizmo"}, "ns-a", "g1",
			schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gizmos"}, "", admission.Operation(op), nil, false,
			&user.DefaultInfo{Name: "alice"})
		refErr := plugin.Admit(context.Background(), attrs, o)
		if refErr == nil {
			// The apiserver's admission chain reinvokes the plugin once when
			// a webhook changed the object (reinvocationPolicy IfNeeded).
			if rc := attrs.GetReinvocationContext(); rc.ShouldReinvoke() {
				rc.SetIsReinvoke()
				reinvoked++
				refErr = plugin.Admit(context.Background(), attrs, o)
			}
		}
		refSent := hook.take()

		got, gotErr := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Operation(op),
			Kind:     wschema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gizmo"},
			Resource: wschema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gizmos"},
			Name:     "g1", Namespace: "ns-a", Object: obj, OldObject: old, UserInfo: wadmission.UserInfo{Username: "alice"}})
		ourSent := hook.take()

		desc, _ := json.Marshal(map[string]any{"patch": hook.patch, "obj": obj, "op": op})
		if refErr != nil {
			failed++
			if !assert.Error(t, gotErr, "case %d: %s", i, desc) || !assert.Equal(t, refErr.Error(), gotErr.Error(), "case %d: %s", i, desc) {
				return
			}
		} else if !assert.NoError(t, gotErr, "case %d: %s", i, desc) {
			return
		}
		if !sameReviewObjects(t, refSent, ourSent, i, desc) {
			return
		}
		if refErr != nil {
			continue
		}
		want, _ := json.Marshal(attrs.GetObject().(*unstructured.Unstructured).Object)
		gotObj, _ := json.Marshal(got.Object)
		if !assert.JSONEq(t, string(want), string(gotObj), "case %d: %s", i, desc) {
			return
		}
	}
	t.Logf("%d cases (%d rejected, %d reinvoked), 0 disagreements", n, failed, reinvoked)
}

// sameReviewObjects asserts that the webhook received the same objects, in
// the same order, from the reference and from writepath.
func sameReviewObjects(t *testing.T, refSent, ourSent []map[string]any, i int, desc []byte) bool {
	t.Helper()
	if !assert.Equal(t, len(refSent), len(ourSent), "case %d: %s", i, desc) {
		return false
	}
	for j := range refSent {
		wantJ, _ := json.Marshal(refSent[j]["object"])
		gotJ, _ := json.Marshal(ourSent[j]["object"])
		if !assert.JSONEq(t, string(wantJ), string(gotJ), "case %d review %d: %s", i, j, desc) {
			return false
		}
	}
	return true
}
