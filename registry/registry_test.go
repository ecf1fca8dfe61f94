package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const deployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"demo"},
 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
 "spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`

const crontabCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},
 "spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","listKind":"CronTabList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
   "x-kubernetes-validations":[{"rule":"self.replicas <= 10","message":"at most 10 replicas"}],
   "properties":{"cronSpec":{"type":"string"},"image":{"type":"string","default":"busybox"},"replicas":{"type":"integer","minimum":0}}},
   "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	o, err := codec.DecodeObject([]byte(s))
	require.NoError(t, err)
	return o
}

// world is a Static world holding the stored objects: a Deployment web (created through Handle),
// the CronTab CRD and a CronTab.
func world(t *testing.T) *registry.Static {
	t.Helper()
	w, err := registry.NewStatic([]map[string]any{decode(t, crontabCRD)}, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	for _, r := range []registry.Request{
		{Method: "POST", Path: "/apis/apps/v1/namespaces/demo/deployments?fieldManager=kubectl", Body: []byte(deployment)},
		{Method: "POST", Path: "/apis/stable.example.com/v1/namespaces/demo/crontabs?fieldManager=kubectl",
			Body: []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"tab"},"spec":{"cronSpec":"* * * * *","replicas":1}}`)},
	} {
		r.Now = now
		resp, writes, err := registry.Handle(context.Background(), w, r)
		require.NoError(t, err)
		require.Equal(t, 201, resp.Code, string(resp.Body))
		require.NoError(t, w.Apply(writes))
	}
	return w
}

func get(t *testing.T, obj map[string]any, path ...any) any {
	t.Helper()
	p := value.Path{}
	for _, s := range path {
		switch x := s.(type) {
		case string:
			p = p.Key(x)
		case int:
			p = p.Index(x)
		}
	}
	v, _, err := value.Get(obj, p)
	require.NoError(t, err)
	return v
}

type check struct {
	path []any
	want any
}

func TestHandle(t *testing.T) {
	dep := "/apis/apps/v1/namespaces/demo/deployments/web"
	tab := "/apis/stable.example.com/v1/namespaces/demo/crontabs/tab"
	for _, tc := range []struct {
		name     string
		req      registry.Request
		code     int
		checks   []check
		warnings []string
		message  string
		writes   int
	}{
		// GET
		{name: "get", req: registry.Request{Method: "GET", Path: dep}, code: 200,
			checks: []check{{[]any{"spec", "replicas"}, int64(2)}, {[]any{"metadata", "generation"}, int64(1)}}},
		{name: "get missing", req: registry.Request{Method: "GET", Path: dep + "x"}, code: 404, message: `deployments.apps "webx" not found`},
		{name: "get unknown resource", req: registry.Request{Method: "GET", Path: "/apis/apps/v1/namespaces/demo/nopes/x"}, code: 404,
			message: "the server could not find the requested resource"},
		{name: "get scale", req: registry.Request{Method: "GET", Path: dep + "/scale"}, code: 200,
			checks: []check{{[]any{"kind"}, "Scale"}, {[]any{"spec", "replicas"}, int64(2)}, {[]any{"status", "selector"}, "app=web"}}},
		{name: "list", req: registry.Request{Method: "GET", Path: "/apis/apps/v1/namespaces/demo/deployments"}, code: 200,
			checks: []check{{[]any{"kind"}, "DeploymentList"}, {[]any{"items", 0, "metadata", "name"}, "web"}}},
		// POST
		{name: "create defaults and warns", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/pods?fieldManager=m",
			Body: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"p-"},"spec":{"containers":[{"name":"c","image":"nginx","x":1}]}}`)},
			code: 201, writes: 1, warnings: []string{`299 - "unknown field \"spec.containers[0].x\""`},
			checks: []check{{[]any{"metadata", "name"}, "p-bbbbc"}, {[]any{"spec", "volumes", 0, "name"}, "kube-api-access-bbbbb"}, {[]any{"spec", "serviceAccountName"}, "default"}, {[]any{"status", "qosClass"}, "BestEffort"}, {[]any{"spec", "containers", 0, "imagePullPolicy"}, "Always"},
				{[]any{"metadata", "uid"}, "00000000-0000-0000-0000-000000000003"}, {[]any{"metadata", "creationTimestamp"}, "2026-01-02T03:04:05Z"}}},
		{name: "create pod invalid", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/pods",
			Body: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"Bad_Name","image":"nginx"}]}}`)},
			code: 422, message: `Pod "p" is invalid: spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{name: "create strict", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps?fieldValidation=Strict",
			Body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":1}`)}, code: 400,
			message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "x"`},
		{name: "create bad fieldValidation", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps?fieldValidation=Loud",
			Body: []byte(`{"metadata":{"name":"c"}}`)}, code: 422,
			message: `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"`},
		{name: "create type error", req: registry.Request{Method: "POST", Path: "/apis/apps/v1/namespaces/demo/deployments",
			Body: []byte(`{"metadata":{"name":"d"},"spec":{"replicas":"five"}}`)}, code: 400,
			message: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		// The JSON decoder reads a number's literal: 2.0 and 8e1 are no int32 (recorded:
		// deployment/create-replicas-whole-float), though the same values through YAML or in a
		// quantity are taken.
		{name: "create whole float", req: registry.Request{Method: "POST", Path: "/apis/apps/v1/namespaces/demo/deployments",
			Body: []byte(`{"metadata":{"name":"d"},"spec":{"replicas":2.0}}`)}, code: 400,
			message: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 2.0 into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{name: "create exponent in a list", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/pods",
			Body: []byte(`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":1.5}},"ports":[{"containerPort":8e1}]}]}}`)}, code: 400,
			message: `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 8e1 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32`},
		{name: "create whole float in YAML", req: registry.Request{Method: "POST", Path: "/apis/apps/v1/namespaces/demo/deployments", ContentType: "application/yaml",
			Body: []byte("metadata: {name: yd}\nspec: {replicas: 2.0, selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: x}]}}}\n")},
			code: 201, writes: 1, checks: []check{{[]any{"spec", "replicas"}, int64(2)}}},
		{name: "create exists", req: registry.Request{Method: "POST", Path: "/apis/apps/v1/namespaces/demo/deployments", Body: []byte(deployment)},
			code: 409, message: `deployments.apps "web" already exists`},
		{name: "create other namespace", req: registry.Request{Method: "POST", Path: "/apis/apps/v1/namespaces/other/deployments", Body: []byte(deployment)},
			code: 400, message: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "create without name", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: []byte(`{}`)},
			code: 422, message: `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`},
		// A body of a kind the scheme does not know at its apiVersion is the decoder's error
		// (recorded: errors/err-bad-request/other-group); one of another group that the scheme
		// knows fails the conversion; one of the endpoint's group at another version reaches the
		// version check.
		{name: "create api version", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: []byte(`{"apiVersion":"v2","kind":"ConfigMap"}`)},
			code: 400, message: `ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "create other group", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: []byte(`{"apiVersion":"apps/v1","kind":"ConfigMap"}`)},
			code: 400, message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "create other group kind", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: []byte(`{"apiVersion":"apps/v1","kind":"Deployment"}`)},
			code: 400, message: `Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion`},
		{name: "create other version", req: registry.Request{Method: "POST", Path: "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers", Body: []byte(`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler"}`)},
			code: 400, message: "the API version in the data (autoscaling/v2) does not match the expected API version (autoscaling/v1)"},
		{name: "create too large", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: make([]byte, 3<<20+1)},
			code: 413, message: "Request entity too large: limit is 3145728"},
		{name: "create media type", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", ContentType: "text/plain", Body: []byte(`{}`)},
			code: 415},
		{name: "create dry run", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps?dryRun=All", Body: []byte(`{"metadata":{"name":"c"}}`)},
			code: 201, writes: 0, checks: []check{{[]any{"metadata", "resourceVersion"}, nil}, {[]any{"metadata", "uid"}, "00000000-0000-0000-0000-000000000003"}}},
		{name: "create with resourceVersion", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: []byte(`{"metadata":{"name":"c","resourceVersion":"7"}}`)},
			code: 500, message: "resourceVersion should not be set on objects to be created"},
		// A dry run does not reach storage, which alone refuses the resourceVersion; the answer
		// keeps it (controller-runtime's DryRunClient "should not create an object").
		{name: "create dry run with resourceVersion", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps?dryRun=All", Body: []byte(`{"metadata":{"name":"c","resourceVersion":"7"}}`)},
			code: 201, writes: 0, checks: []check{{[]any{"metadata", "resourceVersion"}, "7"}}},
		{name: "create custom resource", req: registry.Request{Method: "POST", Path: "/apis/stable.example.com/v1/namespaces/demo/crontabs",
			Body: []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"t2"},"spec":{"replicas":2,"y":1},"status":{"replicas":5}}`)},
			code: 201, writes: 1, warnings: []string{`299 - "unknown field \"spec.y\""`},
			checks: []check{{[]any{"spec", "image"}, "busybox"}, {[]any{"spec", "y"}, nil}, {[]any{"status"}, nil}, {[]any{"metadata", "generation"}, int64(1)}}},
		{name: "create custom resource invalid", req: registry.Request{Method: "POST", Path: "/apis/stable.example.com/v1/namespaces/demo/crontabs",
			Body: []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"t2"},"spec":{"replicas":11}}`)},
			code: 422, message: `CronTab.stable.example.com "t2" is invalid: spec: Invalid value: at most 10 replicas`},
		{name: "create endpointslice drops topology", req: registry.Request{Method: "POST", Path: "/apis/discovery.k8s.io/v1/namespaces/demo/endpointslices",
			Body: []byte(`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"s"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"deprecatedTopology":{"kubernetes.io/hostname":"n1"}}]}`)},
			code: 201, writes: 1, checks: []check{{[]any{"endpoints", 0, "deprecatedTopology"}, nil}, {[]any{"endpoints", 0, "addresses", 0}, "10.0.0.1"}}},
		{name: "create ingress invalid", req: registry.Request{Method: "POST", Path: "/apis/networking.k8s.io/v1/namespaces/demo/ingresses",
			Body: []byte(`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i"},"spec":{"rules":[{"http":{"paths":[{"path":"a","pathType":"Prefix","backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`)},
			code: 422, message: `Ingress.networking.k8s.io "i" is invalid: spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path`},
		{name: "create missing namespace", req: registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/configmaps", Body: []byte(`{"metadata":{"name":"c"}}`)},
			code: 201, writes: 1},
		// PUT
		{name: "update unconditional", req: registry.Request{Method: "PUT", Path: dep, Body: []byte(deployment)}, code: 200,
			checks: []check{{[]any{"metadata", "resourceVersion"}, "1"}}},
		{name: "update without resourceVersion", req: registry.Request{Method: "PUT", Path: tab,
			Body: []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"tab"},"spec":{"replicas":2}}`)}, code: 422,
			message: `crontabs.stable.example.com "tab" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`},
		{name: "update name mismatch", req: registry.Request{Method: "PUT", Path: dep + "2", Body: []byte(deployment)}, code: 400,
			message: "the name of the object (web) does not match the name on the URL (web2)"},
		{name: "update stale", req: registry.Request{Method: "PUT", Path: dep,
			Body: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","resourceVersion":"9"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)},
			code: 409, message: `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`},
		{name: "update", req: registry.Request{Method: "PUT", Path: dep,
			Body: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)},
			code: 200, writes: 1, checks: []check{{[]any{"metadata", "generation"}, int64(2)}, {[]any{"metadata", "resourceVersion"}, "3"}, {[]any{"metadata", "uid"}, "00000000-0000-0000-0000-000000000001"}}},
		{name: "update uid precondition", req: registry.Request{Method: "PUT", Path: dep,
			Body: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","uid":"other","resourceVersion":"1"}}`)},
			code: 409, message: `Operation cannot be fulfilled on deployments.apps "web": StorageError: invalid object, Code: 4, Key: /registry/deployments/demo/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: 00000000-0000-0000-0000-000000000001`},
		{name: "update missing", req: registry.Request{Method: "PUT", Path: "/api/v1/namespaces/demo/configmaps/c", Body: []byte(`{"metadata":{"name":"c"}}`)},
			code: 404, message: `configmaps "c" not found`},
		{name: "update creates lease", req: registry.Request{Method: "PUT", Path: "/apis/coordination.k8s.io/v1/namespaces/demo/leases/l", Body: []byte(`{"metadata":{"name":"l"}}`)},
			code: 201, writes: 1},
		{name: "update scale", req: registry.Request{Method: "PUT", Path: dep + "/scale", Body: []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":4}}`)},
			code: 200, writes: 1, checks: []check{{[]any{"kind"}, "Scale"}, {[]any{"spec", "replicas"}, int64(4)}}},
		{name: "update scale negative", req: registry.Request{Method: "PUT", Path: dep + "/scale", Body: []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":-1}}`)},
			code: 422, message: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		// PATCH
		{name: "strategic patch", req: registry.Request{Method: "PATCH", Path: dep + "?fieldManager=m", ContentType: "application/strategic-merge-patch+json",
			Body: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`)}, code: 200, writes: 1,
			checks: []check{{[]any{"spec", "template", "spec", "containers", 0, "image"}, "nginx:2"}, {[]any{"metadata", "generation"}, int64(2)}}},
		{name: "strategic patch unknown field", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/strategic-merge-patch+json",
			Body: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2","x":1}]}}}}`)}, code: 200, writes: 1,
			warnings: []string{`299 - "unknown field \"spec.template.spec.containers[0].x\""`}},
		{name: "strategic patch unknown field strict", req: registry.Request{Method: "PATCH", Path: dep + "?fieldValidation=Strict", ContentType: "application/strategic-merge-patch+json",
			Body: []byte(`{"spec":{"bogus":1}}`)}, code: 422, message: ` "" is invalid: patch: Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"`},
		{name: "strategic patch unknown field ignored", req: registry.Request{Method: "PATCH", Path: dep + "?fieldValidation=Ignore", ContentType: "application/strategic-merge-patch+json",
			Body: []byte(`{"spec":{"bogus":1,"replicas":3}}`)}, code: 200, writes: 1},
		{name: "merge patch type error", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/merge-patch+json",
			Body: []byte(`{"spec":{"replicas":"five"}}`)}, code: 422},
		{name: "json patch renames", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/json-patch+json",
			Body: []byte(`[{"op":"replace","path":"/metadata/name","value":"other"}]`)}, code: 400,
			message: "the name of the object (other) does not match the name on the URL (web)"},
		{name: "patch namespace", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/merge-patch+json",
			Body: []byte(`{"metadata":{"namespace":"other"}}`)}, code: 400,
			message: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "patch stale resourceVersion", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/merge-patch+json",
			Body: []byte(`{"metadata":{"resourceVersion":"7"}}`)}, code: 409},
		{name: "patch uid", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/merge-patch+json",
			Body: []byte(`{"metadata":{"uid":"x"}}`)}, code: 422, message: `Deployment.apps "web" is invalid: metadata.uid: Invalid value: "x": field is immutable`},
		{name: "patch invalid label once", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/merge-patch+json",
			Body: []byte(`{"metadata":{"labels":{"a":"bad value"}}}`)}, code: 422,
			message: `Deployment.apps "web" is invalid: metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{name: "patch missing", req: registry.Request{Method: "PATCH", Path: dep + "x", ContentType: "application/merge-patch+json", Body: []byte(`{}`)},
			code: 404},
		{name: "patch media type", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/json", Body: []byte(`{}`)},
			code: 415},
		{name: "strategic patch custom resource", req: registry.Request{Method: "PATCH", Path: tab, ContentType: "application/strategic-merge-patch+json", Body: []byte(`{}`)},
			code: 415, message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		{name: "merge patch custom resource", req: registry.Request{Method: "PATCH", Path: tab, ContentType: "application/merge-patch+json",
			Body: []byte(`{"spec":{"replicas":3,"z":1},"status":{"replicas":3}}`)}, code: 200, writes: 1,
			checks: []check{{[]any{"spec", "replicas"}, int64(3)}, {[]any{"spec", "z"}, nil}, {[]any{"status"}, nil}, {[]any{"metadata", "generation"}, int64(2)}}},
		{name: "status patch custom resource", req: registry.Request{Method: "PATCH", Path: tab + "/status", ContentType: "application/merge-patch+json",
			Body: []byte(`{"spec":{"replicas":3},"status":{"replicas":3}}`)}, code: 200, writes: 1,
			checks: []check{{[]any{"spec", "replicas"}, int64(1)}, {[]any{"status", "replicas"}, int64(3)}, {[]any{"metadata", "generation"}, int64(1)}}},
		{name: "scale patch custom resource", req: registry.Request{Method: "PATCH", Path: tab + "/scale", ContentType: "application/merge-patch+json",
			Body: []byte(`{"spec":{"replicas":4}}`)}, code: 200, writes: 1, checks: []check{{[]any{"kind"}, "Scale"}, {[]any{"spec", "replicas"}, int64(4)}}},
		{name: "apply create", req: registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/demo/configmaps/c?fieldManager=me", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n")}, code: 201, writes: 1,
			checks: []check{{[]any{"metadata", "managedFields", 0, "operation"}, "Apply"}, {[]any{"metadata", "uid"}, "00000000-0000-0000-0000-000000000003"}}},
		// Duplicate keys in an apply patch: the apply patcher's strict decoding once the apply
		// succeeded (recorded: dryrun/field-validation-apply/duplicate-strict), warnings under Warn.
		{name: "apply duplicate strict", req: registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/demo/configmaps/c?fieldManager=me&fieldValidation=Strict", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n  k: w\n")}, code: 400,
			message: "error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key \"k\" already set in map"},
		{name: "apply duplicate warn", req: registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/demo/configmaps/c?fieldManager=me", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n  k: w\n")}, code: 201, writes: 1,
			warnings: []string{`299 - "line 7: key \"k\" already set in map"`}, checks: []check{{[]any{"data", "k"}, "w"}}},
		{name: "apply duplicate ignore", req: registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/demo/configmaps/c?fieldManager=me&fieldValidation=Ignore", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n  k: w\n")}, code: 201, writes: 1},
		{name: "apply without name", req: registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/demo/configmaps/c?fieldManager=me", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n")}, code: 400, message: "the name of the object () does not match the name on the URL (c)"},
		{name: "apply without manager", req: registry.Request{Method: "PATCH", Path: dep, ContentType: "application/apply-patch+yaml", Body: []byte("{}")}, code: 422,
			message: `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{name: "apply conflict", req: registry.Request{Method: "PATCH", Path: dep + "?fieldManager=other", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 9\n")}, code: 409},
		{name: "apply uid on create", req: registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/demo/configmaps/c?fieldManager=me", ContentType: "application/apply-patch+yaml",
			Body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  uid: u\n")}, code: 409,
			message: `Operation cannot be fulfilled on configmaps "c": uid mismatch: the provided object specified uid u, and no existing object was found`},
		{name: "force on merge patch", req: registry.Request{Method: "PATCH", Path: dep + "?force=true", ContentType: "application/merge-patch+json", Body: []byte("{}")}, code: 422,
			message: `PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
		// DELETE
		{name: "delete", req: registry.Request{Method: "DELETE", Path: dep}, code: 200, writes: 1,
			checks: []check{{[]any{"kind"}, "Status"}, {[]any{"status"}, "Success"}, {[]any{"details", "name"}, "web"}}},
		{name: "delete foreground", req: registry.Request{Method: "DELETE", Path: dep + "?propagationPolicy=Foreground"}, code: 200, writes: 1,
			checks: []check{{[]any{"metadata", "finalizers", 0}, "foregroundDeletion"}, {[]any{"metadata", "deletionTimestamp"}, "2026-01-02T03:04:05Z"}}},
		{name: "delete precondition", req: registry.Request{Method: "DELETE", Path: dep, Body: []byte(`{"preconditions":{"uid":"x"}}`)}, code: 409},
		{name: "delete bad policy", req: registry.Request{Method: "DELETE", Path: dep + "?propagationPolicy=Sideways"}, code: 422},
		{name: "delete dry run", req: registry.Request{Method: "DELETE", Path: dep + "?dryRun=All"}, code: 200, writes: 0},
		{name: "delete custom resource", req: registry.Request{Method: "DELETE", Path: tab}, code: 200, writes: 1, checks: []check{{[]any{"kind"}, "Status"}}}, // a custom resource deleted now answers a Status (recorded: crd-widget/delete)
		{name: "delete collection", req: registry.Request{Method: "DELETE", Path: "/apis/apps/v1/namespaces/demo/deployments"}, code: 200, writes: 1,
			checks: []check{{[]any{"kind"}, "DeploymentList"}}},
		{name: "delete kube-system", req: registry.Request{Method: "DELETE", Path: "/api/v1/namespaces/kube-system"}, code: 403},
		{name: "method not allowed", req: registry.Request{Method: "POST", Path: dep}, code: 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := world(t)
			tc.req.Now = now
			resp, writes, err := registry.Handle(context.Background(), w, tc.req)
			require.NoError(t, err)
			assert.Equal(t, tc.code, resp.Code, "%s: %s", tc.name, resp.Body)
			assert.Len(t, writes, tc.writes, "%s writes", tc.name)
			if tc.warnings != nil {
				assert.Equal(t, tc.warnings, resp.Warnings, tc.name)
			}
			if tc.message != "" {
				assert.Equal(t, tc.message, resp.Object["message"], tc.name)
			}
			for _, c := range tc.checks {
				assert.Equal(t, c.want, get(t, resp.Object, c.path...), "%s: %v", tc.name, c.path)
			}
		})
	}
}

// An update checks the common ObjectMeta with names as path segments (rest.BeforeUpdate's
// validateCommonFields), then the kind's own rule: a ClusterRole, whose names are path segments,
// created with capitals is patched and updated (controller-runtime's NamespacedClient "should
// successfully modify cluster scoped resource").
func TestUpdateNameIsPathSegment(t *testing.T) {
	w := world(t)
	path := "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	for _, r := range []registry.Request{
		{Method: "POST", Path: path, Body: []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"clusterRole-1"}}`)},
		{Method: "PATCH", Path: path + "/clusterRole-1", ContentType: "application/merge-patch+json", Body: []byte(`{"metadata":{"annotations":{"foo":"bar"}}}`)},
		{Method: "PUT", Path: path + "/clusterRole-1", Body: []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"clusterRole-1","labels":{"a":"b"}}}`)},
	} {
		r.Now = now
		resp, writes, err := registry.Handle(context.Background(), w, r)
		require.NoError(t, err)
		require.Less(t, resp.Code, 300, "%s %s: %s", r.Method, r.Path, resp.Body)
		require.NoError(t, w.Apply(writes))
	}
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "GET", Path: path + "/clusterRole-1", Now: now})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": "b"}, get(t, resp.Object, "metadata", "labels"))
}
