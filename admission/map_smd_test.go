package admission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

func mapPolicy(t *testing.T, group, version, resource, expr string) []map[string]any {
	t.Helper()
	p, err := codec.DecodeObject([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["` + group + `"], apiVersions: ["` + version + `"], operations: ["*"], resources: ["` + resource + `"]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: '` + expr + `'
`))
	require.NoError(t, err)
	b := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p"}}
	return []map[string]any{p, b}
}

const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: default, finalizers: [example.com/a]}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - name: app
        image: app:1
        args: [--v=1]
        ports: [{containerPort: 80, protocol: TCP}]
        env: [{name: A, value: "1"}, {name: A, value: "2"}]
      - {name: log, image: log:1}
`

// TestApplyConfigurationBuiltinSchema: ApplyConfiguration mutations of a
// built-in kind merge by its structured-merge-diff type (checked against the
// apiserver's plugin in conformance/admission); the merged object is then
// defaulted, as the dispatcher defaults it (the request's object here is not,
// so the kept containers get their defaults too).
func TestApplyConfigurationBuiltinSchema(t *testing.T) {
	spec := "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: ["
	tests := []struct {
		name, expr string
		// path into the admitted object, and what it must hold
		want    string
		wantErr string
	}{
		{name: "list-map merged by name", expr: spec + `Object.spec.template.spec.containers{name: "app", image: "app:2"}]}}}}`,
			want: `[{"args":["--v=1"],"env":[{"name":"A","value":"1"},{"name":"A","value":"2"}],"image":"app:2","name":"app","ports":[{"containerPort":80,"protocol":"TCP"}],"imagePullPolicy":"IfNotPresent","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},{"image":"log:1","name":"log","imagePullPolicy":"IfNotPresent","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]`},
		{name: "new key appended", expr: spec + `Object.spec.template.spec.containers{name: "proxy", image: "p"}]}}}}`,
			want: `[{"args":["--v=1"],"env":[{"name":"A","value":"1"},{"name":"A","value":"2"}],"image":"app:1","name":"app","ports":[{"containerPort":80,"protocol":"TCP"}],"imagePullPolicy":"IfNotPresent","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},{"image":"log:1","name":"log","imagePullPolicy":"IfNotPresent","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},{"image":"p","name":"proxy","imagePullPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]`},
		{name: "ports by containerPort and protocol", expr: spec + `Object.spec.template.spec.containers{name: "app", ports: [Object.spec.template.spec.containers.ports{containerPort: 80, protocol: "UDP"}]}]}}}}`,
			want: `[{"args":["--v=1"],"env":[{"name":"A","value":"1"},{"name":"A","value":"2"}],"image":"app:1","name":"app","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":80,"protocol":"UDP"}],"imagePullPolicy":"IfNotPresent","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},{"image":"log:1","name":"log","imagePullPolicy":"IfNotPresent","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]`},
		{name: "atomic list refused", expr: spec + `Object.spec.template.spec.containers{name: "app", args: ["--v=2"]}]}}}}`,
			wantErr: `policy 'p' with binding 'b' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.template.spec.containers[0].args`},
		{name: "atomic struct refused", expr: `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"app": "e"}}}}`,
			wantErr: `policy 'p' with binding 'b' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector`},
		{name: "field not in schema", expr: `Object{spec: Object.spec{bogus: 1}}`,
			wantErr: `policy 'p' with binding 'b' denied request: error applying patch: failed to convert patch object to typed object: .spec.bogus: field not declared in schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := codec.DecodeObject([]byte(deploymentYAML))
			require.NoError(t, err)
			chain, err := admission.New(admission.Config{Objects: mapPolicy(t, "apps", "v1", "deployments", tt.expr), Namespaces: nsList()})
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
				Kind:     schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
				Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
				Name:     "d", Namespace: "default", Object: obj})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error(), tt.expr)
				return
			}
			require.NoError(t, err)
			got, err := codec.EncodeJSON(res.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"])
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got), tt.expr)
		})
	}
}

// TestApplyConfigurationCRDSchema: a custom resource merges by its CRD's
// schema when Versions.CRDs has it (a list-map by name), and by the deduced
// type (lists replaced) when not.
func TestApplyConfigurationCRDSchema(t *testing.T) {
	crd, err := schema.FromCRDBytes([]byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
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
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    size: {type: integer}
`))
	require.NoError(t, err)
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec": map[string]any{"items": []any{map[string]any{"name": "a", "size": int64(1)}, map[string]any{"name": "b", "size": int64(2)}}}}
	expr := `Object{spec: Object.spec{items: [Object.spec.items{name: "b", size: 3}]}}`
	for _, tc := range []struct {
		crds []*schema.CRD
		want string
	}{
		{crds: []*schema.CRD{crd}, want: `[{"name":"a","size":1},{"name":"b","size":3}]`},
		{crds: nil, want: `[{"name":"b","size":3}]`},
	} {
		chain, err := admission.New(admission.Config{Objects: mapPolicy(t, "example.com", "v1", "widgets", expr), Namespaces: nsList(),
			Versions: admission.Versions{CRDs: tc.crds}})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
			Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
			Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
			Name:     "w", Namespace: "default", Object: obj})
		require.NoError(t, err)
		got, err := codec.EncodeJSON(res.Object["spec"].(map[string]any)["items"])
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(got), "crds: %d", len(tc.crds))
	}
}
