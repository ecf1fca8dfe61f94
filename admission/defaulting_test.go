package admission_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// patchClient answers every webhook with the JSON Patch patches[name] (none
// when absent) and keeps the AdmissionReview requests it was sent.
type patchClient struct {
	patches  map[string]string
	received []map[string]any
}

func (c *patchClient) Call(_ context.Context, t admission.WebhookTarget, body []byte) ([]byte, error) {
	v, err := codec.DecodeValue(body)
	if err != nil {
		return nil, err
	}
	req := v.(map[string]any)["request"].(map[string]any)
	c.received = append(c.received, req)
	resp := map[string]any{"uid": req["uid"], "allowed": true}
	if p, ok := c.patches[t.Name]; ok {
		resp["patch"] = []byte(p)
		resp["patchType"] = "JSONPatch"
	}
	return json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
}

// defaulted decodes y and defaults it as the apiserver holds a request's
// object before admission.
func defaulted(t *testing.T, y string) map[string]any {
	t.Helper()
	obj, err := codec.DecodeObject([]byte(y))
	require.NoError(t, err)
	gv, _ := obj["apiVersion"].(string)
	gvk := schema.GroupVersionKind{Version: gv, Kind: obj["kind"].(string)}
	if g, v, ok := cutLast(gv); ok {
		gvk.Group, gvk.Version = g, v
	}
	out, err := defaults.Builtin(gvk, obj, defaults.Options{})
	require.NoError(t, err)
	return out
}

func cutLast(s string) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return "", s, false
}

const dfltPod = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns1}
spec:
  containers: [{name: app, image: "app:1"}]
`

const dfltDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns1}
spec:
  selector: {matchLabels: {app: d}}
  strategy: {type: Recreate}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: app, image: "app:1"}]
`

func at(obj any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := obj.(map[string]any)
			obj = m[k]
		case int:
			l, _ := obj.([]any)
			if k >= len(l) {
				return nil
			}
			obj = l[k]
		}
	}
	return obj
}

func mutatingHook(name, config string, resource string, group, version string) map[string]any {
	h := webhookConfig("MutatingWebhookConfiguration", name, "https://"+name+".invalid/", "", map[string]any{
		"rules": []any{map[string]any{"apiGroups": []any{group}, "apiVersions": []any{version}, "operations": []any{"*"}, "resources": []any{resource}}}})
	h["metadata"] = map[string]any{"name": config}
	return h
}

func podRequest(obj map[string]any) admission.Request {
	return admission.Request{Operation: admission.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: "p", Namespace: "ns1", Object: obj}
}

func deploymentRequest(obj map[string]any) admission.Request {
	return admission.Request{Operation: admission.Create, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Name: "d", Namespace: "ns1", Object: obj}
}

// TestWebhookPatchDefaulted: a mutating webhook's patched object is decoded
// into the kind and defaulted, as the mutating dispatcher does, before the
// next webhook sees it.
func TestWebhookPatchDefaulted(t *testing.T) {
	sidecar := map[string]any{"name": "sidecar", "image": "busybox", "imagePullPolicy": "Always", "resources": map[string]any{},
		"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
	tests := []struct {
		name    string
		req     admission.Request
		patch   string
		check   func(t *testing.T, obj map[string]any)
		wantErr string
	}{
		{name: "a container added without defaults gets them", req: podRequest(defaulted(t, dfltPod)),
			patch: `[{"op":"add","path":"/spec/containers/-","value":{"name":"sidecar","image":"busybox"}}]`,
			check: func(t *testing.T, obj map[string]any) {
				assert.Equal(t, sidecar, at(obj, "spec", "containers", 1))
			}},
		{name: "a removed strategy comes back as RollingUpdate 25%", req: deploymentRequest(defaulted(t, dfltDeployment)),
			patch: `[{"op":"remove","path":"/spec/strategy"}]`,
			check: func(t *testing.T, obj map[string]any) {
				assert.Equal(t, map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": "25%", "maxSurge": "25%"}},
					at(obj, "spec", "strategy"))
			}},
		{name: "a field the Go type does not have is dropped", req: podRequest(defaulted(t, dfltPod)),
			patch: `[{"op":"add","path":"/spec/bogus","value":1},{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`,
			check: func(t *testing.T, obj map[string]any) {
				assert.Nil(t, at(obj, "spec", "bogus"))
				assert.Equal(t, "b", at(obj, "metadata", "labels", "a"))
			}},
		{name: "a value that does not decode is a 500", req: deploymentRequest(defaulted(t, dfltDeployment)),
			patch:   `[{"op":"replace","path":"/spec/replicas","value":"3"}]`,
			wantErr: `Internal error occurred: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{name: "an unparsable quantity is its parser's error", req: podRequest(defaulted(t, dfltPod)),
			patch:   `[{"op":"add","path":"/spec/containers/0/resources/limits","value":{"cpu":"lots"}}]`,
			wantErr: `Internal error occurred: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := &patchClient{patches: map[string]string{"first": tt.patch}}
			resource, group := tt.req.Resource.Resource, tt.req.Resource.Group
			chain, err := admission.New(admission.Config{Namespaces: nsList(), Client: cl, Objects: []map[string]any{
				mutatingHook("first", "a", resource, group, "v1"), mutatingHook("second", "b", resource, group, "v1")}})
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), tt.req)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error(), tt.patch)
				return
			}
			require.NoError(t, err)
			tt.check(t, res.Object)
			require.Len(t, cl.received, 2)
			// The second webhook is sent the defaulted object.
			second := cl.received[1]["object"].(map[string]any)
			tt.check(t, second)
			assert.Equal(t, res.Object, second, "the second webhook sees the object as admitted")
		})
	}
}

// TestWebhookPatchDefaultedCustomResource: a custom resource's patched object
// gets its CRD's structural defaults (of the version its apiVersion names); a
// patch that removes its kind no longer decodes.
func TestWebhookPatchDefaultedCustomResource(t *testing.T) {
	crd, err := schema.FromCRDBytes([]byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
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
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    size: {type: integer, default: 3}
              mode: {type: string, default: fast}
`))
	require.NoError(t, err)
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": "ns1"},
		"spec": map[string]any{"mode": "slow"}}
	req := admission.Request{Operation: admission.Create, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"},
		Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, Name: "g", Namespace: "ns1", Object: obj}
	for _, tc := range []struct {
		name, patch string
		crds        []*schema.CRD
		want        any
		wantErr     string
	}{
		{name: "defaults of the CRD", patch: `[{"op":"add","path":"/spec/parts","value":[{"name":"a"}]},{"op":"remove","path":"/spec/mode"}]`,
			crds: []*schema.CRD{crd}, want: map[string]any{"mode": "fast", "parts": []any{map[string]any{"name": "a", "size": int64(3)}}}},
		{name: "no CRD, no defaults", patch: `[{"op":"add","path":"/spec/parts","value":[{"name":"a"}]}]`,
			want: map[string]any{"mode": "slow", "parts": []any{map[string]any{"name": "a"}}}},
		{name: "kind removed", patch: `[{"op":"remove","path":"/kind"}]`, crds: []*schema.CRD{crd},
			wantErr: `Internal error occurred: Object 'Kind' is missing in '{"apiVersion":"example.com/v1","metadata":{"name":"g","namespace":"ns1"},"spec":{"mode":"slow"}}'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := &patchClient{patches: map[string]string{"first": tc.patch}}
			chain, err := admission.New(admission.Config{Namespaces: nsList(), Client: cl, Versions: admission.Versions{CRDs: tc.crds},
				Objects: []map[string]any{mutatingHook("first", "a", "gadgets", "example.com", "v1")}})
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), req)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Object["spec"], tc.patch)
		})
	}
}

func mapObjects(t *testing.T, resource, group, patchType, body string) []map[string]any {
	t.Helper()
	p, err := codec.DecodeObject([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: ["` + group + `"], apiVersions: ["v1"], operations: ["*"], resources: ["` + resource + `"]}
  mutations:
  - patchType: ` + patchType + `
    ` + body + `
`))
	require.NoError(t, err)
	b := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p"}}
	return []map[string]any{p, b}
}

// TestPolicyMutationDefaulted: each MutatingAdmissionPolicy mutation's result
// is decoded and defaulted (dispatchOne): JSONPatch strictly (a field the type
// does not have is a 500), ApplyConfiguration by conversion to the Go type (a
// value that does not convert is the policy's error).
func TestPolicyMutationDefaulted(t *testing.T) {
	tests := []struct {
		name, patchType, body string
		req                   admission.Request
		want                  any
		path                  []any
		wantErr               string
	}{
		{name: "JSONPatch container defaulted", patchType: "JSONPatch", req: podRequest(defaulted(t, dfltPod)),
			body: `jsonPatch: {expression: '[JSONPatch{op: "add", path: "/spec/containers/-", value: {"name": "sidecar", "image": "busybox:1"}}]'}`,
			path: []any{"spec", "containers", 1},
			want: map[string]any{"name": "sidecar", "image": "busybox:1", "imagePullPolicy": "IfNotPresent", "resources": map[string]any{},
				"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}},
		{name: "JSONPatch strategy defaulted", patchType: "JSONPatch", req: deploymentRequest(defaulted(t, dfltDeployment)),
			body: `jsonPatch: {expression: '[JSONPatch{op: "replace", path: "/spec/strategy", value: {"type": "RollingUpdate"}}]'}`,
			path: []any{"spec", "strategy"},
			want: map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": "25%", "maxSurge": "25%"}}},
		{name: "JSONPatch unknown field is a strict decoding error", patchType: "JSONPatch", req: podRequest(defaulted(t, dfltPod)),
			body:    `jsonPatch: {expression: '[JSONPatch{op: "add", path: "/spec/bogus", value: 1}, JSONPatch{op: "add", path: "/spec/containers/0/extra", value: "x"}]'}`,
			wantErr: `Internal error occurred: strict decoding error: unknown field "spec.bogus", unknown field "spec.containers[0].extra"`},
		{name: "ApplyConfiguration container defaulted", patchType: "ApplyConfiguration", req: podRequest(defaulted(t, dfltPod)),
			body: `applyConfiguration: {expression: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "sidecar", image: "busybox"}]}}'}`,
			path: []any{"spec", "containers", 1},
			want: map[string]any{"name": "sidecar", "image": "busybox", "imagePullPolicy": "Always", "resources": map[string]any{},
				"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}},
		{name: "ApplyConfiguration quantity that does not convert", patchType: "ApplyConfiguration", req: podRequest(defaulted(t, dfltPod)),
			body:    `applyConfiguration: {expression: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", resources: Object.spec.containers.resources{limits: {"cpu": "lots"}}}]}}'}`,
			wantErr: `policy 'p' with binding 'b' denied request: unable to convert unstructured object to /v1, Kind=Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chain, err := admission.New(admission.Config{Namespaces: nsList(),
				Objects: mapObjects(t, tt.req.Resource.Resource, tt.req.Resource.Group, tt.patchType, tt.body)})
			require.NoError(t, err)
			in, err := codec.EncodeJSON(tt.req.Object)
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), tt.req)
			after, _ := codec.EncodeJSON(tt.req.Object)
			assert.JSONEq(t, string(in), string(after), "request not modified")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, at(res.Object, tt.path...))
		})
	}
}

// TestWebhookChangeBeforeDefaulting: whether a webhook's patch changed the
// object is judged before defaulting, as the mutating dispatcher judges it:
// the mutated audit annotation, and whether the webhooks before it are
// reinvoked (both webhooks are IfNeeded; the second sets a label, so the
// first is called again; the second again only if the first's second patch
// counts as a change).
func TestWebhookChangeBeforeDefaulting(t *testing.T) {
	tests := []struct {
		name, patch string
		req         admission.Request
		mutated     bool
	}{
		{"a container added again without its defaults", `[{"op":"add","path":"/spec/containers/1","value":{"name":"sidecar","image":"busybox"}}]`, podRequest(defaulted(t, strings.Replace(dfltPod, `image: "app:1"}]`, `image: "app:1"}, {name: sidecar, image: busybox}]`, 1))), true},
		{"a defaulted field removed", `[{"op":"remove","path":"/spec/revisionHistoryLimit"}]`, deploymentRequest(defaulted(t, dfltDeployment)), true},
		{"a defaulted string emptied", `[{"op":"replace","path":"/spec/containers/0/terminationMessagePath","value":""}]`, podRequest(defaulted(t, dfltPod)), true},
		{"a pointer's empty struct set to null", `[{"op":"add","path":"/spec/securityContext","value":null}]`, podRequest(defaulted(t, dfltPod)), true},
		{"a non-pointer's empty struct removed", `[{"op":"remove","path":"/status"}]`, deploymentRequest(defaulted(t, dfltDeployment)), false},
		{"a non-pointer zero value added", `[{"op":"add","path":"/spec/paused","value":false}]`, deploymentRequest(defaulted(t, dfltDeployment)), false},
		{"an unknown field added", `[{"op":"add","path":"/spec/bogus","value":1}]`, podRequest(defaulted(t, dfltPod)), false},
		{"a quantity in another form", `[{"op":"replace","path":"/spec/containers/0/resources/limits","value":{"cpu":"1000m"}}]`,
			podRequest(defaulted(t, strings.Replace(dfltPod, `image: "app:1"}]`, `image: "app:1", resources: {limits: {cpu: "1"}}}]`, 1))), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := &patchClient{patches: map[string]string{"first": tt.patch,
				"second": `[{"op":"add","path":"/metadata/labels","value":{"seen":"yes"}}]`}}
			resource, group := tt.req.Resource.Resource, tt.req.Resource.Group
			first := mutatingHook("first", "a", resource, group, "v1")
			second := mutatingHook("second", "b", resource, group, "v1")
			for _, h := range []map[string]any{first, second} {
				h["webhooks"].([]any)[0].(map[string]any)["reinvocationPolicy"] = "IfNeeded"
			}
			chain, err := admission.New(admission.Config{Namespaces: nsList(), Client: cl, Objects: []map[string]any{first, second}})
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), tt.req)
			require.NoError(t, err)
			var ann map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.AuditAnnotations["mutation.webhook.admission.k8s.io/round_1_index_0"]), &ann))
			assert.Equal(t, tt.mutated, ann["mutated"], "first webhook's second patch")
			calls := 3
			if tt.mutated {
				calls = 4
			}
			assert.Len(t, cl.received, calls, "webhook calls")
		})
	}
}
