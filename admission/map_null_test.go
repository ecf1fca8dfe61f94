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

// TestApplyConfigurationNull: a CEL null in an ApplyConfiguration's Object
// reaches structured-merge-diff as the apiserver's plugin hands it over
// (structpb.NullValue, a named int32 0), so every typed position refuses it
// with SMD's wording (checked against the plugin in conformance/admission and
// on the real cluster: testdata/admission/realcluster-params,
// testdata/admission/realcluster-null); a JSON patch's null stays null.
func TestApplyConfigurationNull(t *testing.T) {
	const prefix = `policy 'p' with binding 'b' denied request: error applying patch: failed to convert patch object to typed object: `
	tests := []struct {
		name, kind, expr, wantErr string
	}{
		{name: "string field of a struct", kind: "ConfigMap", expr: `Object{data: Object.data{v: null}}`,
			wantErr: prefix + `.data.v: expected string, got &value.valueUnstructured{Value:0}`},
		{name: "map value", kind: "ConfigMap", expr: `Object{data: {"w": null}}`,
			wantErr: prefix + `.data.w: expected string, got &value.valueUnstructured{Value:0}`},
		{name: "map field", kind: "ConfigMap", expr: `Object{metadata: Object.metadata{labels: null}}`,
			wantErr: prefix + `.metadata.labels: expected map, got &{NULL_VALUE}`},
		{name: "boolean field", kind: "ConfigMap", expr: `Object{immutable: null}`,
			wantErr: prefix + `.immutable: expected boolean, got &{NULL_VALUE}`},
		{name: "set item", kind: "ConfigMap", expr: `Object{metadata: Object.metadata{finalizers: [null]}}`,
			wantErr: prefix + `.metadata.finalizers[={{undefined}}]: expected string, got &value.valueUnstructured{Value:0}`},
		{name: "list-map item", kind: "Deployment", expr: `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [null]}}}}`,
			wantErr: prefix + `.spec.template.spec.containers: element 0: associative list with keys may not have non-map elements`},
		{name: "integer field", kind: "Deployment", expr: `Object{spec: Object.spec{replicas: null}}`,
			wantErr: prefix + `.spec.replicas: expected numeric (int or float), got structpb.NullValue`},
		{name: "int-or-string field", kind: "Deployment", expr: `Object{spec: Object.spec{strategy: Object.spec.strategy{rollingUpdate: Object.spec.strategy.rollingUpdate{maxSurge: null}}}}`,
			wantErr: prefix + `.spec.strategy.rollingUpdate.maxSurge: expected map, got &{NULL_VALUE}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group, resource, src := "", "configmaps", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: default}\ndata: {x: y}\n"
			if tt.kind == "Deployment" {
				group, resource, src = "apps", "deployments", deploymentYAML
			}
			obj, err := codec.DecodeObject([]byte(src))
			require.NoError(t, err)
			chain, err := admission.New(admission.Config{Objects: mapPolicy(t, group, "v1", resource, tt.expr), Namespaces: nsList()})
			require.NoError(t, err)
			_, err = chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
				Kind:     schema.GroupVersionKind{Group: group, Version: "v1", Kind: tt.kind},
				Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource},
				Name:     "d", Namespace: "default", Object: obj})
			require.Error(t, err)
			assert.Equal(t, tt.wantErr, err.Error(), tt.expr)
		})
	}
}
