package schema_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

func gadgetVersion(t testing.TB, version string) *schema.Version {
	t.Helper()
	data, err := os.ReadFile("../testdata/schema/cli/gadget-crd.yaml")
	require.NoError(t, err)
	crd, err := schema.FromCRDBytes(data)
	require.NoError(t, err)
	v := crd.Version(version)
	require.NotNil(t, v)
	return v
}

// TestExplainCRD pins what Version.Explain says about each kind of field of
// testdata/schema/cli/gadget-crd.yaml: list types from x-kubernetes-list-type (atomic when
// unset, as the SMD conversion makes it), map types, the structural schema's facts, and the
// ObjectMeta type of metadata at the root and in embedded resources.
func TestExplainCRD(t *testing.T) {
	v := gadgetVersion(t, "v1")
	tests := []struct {
		path string
		want schema.FieldInfo
	}{
		{"", schema.FieldInfo{Type: "map", TypeName: "com.example.v1.Gadget", MapType: "granular", SchemaType: "object",
			Fields: []string{"apiVersion", "kind", "metadata", "spec", "status"}}},
		{"spec.tags", schema.FieldInfo{Type: "list", ListType: "set", Element: "scalar string", SchemaType: "array"}},
		{"spec.args", schema.FieldInfo{Type: "list", ListType: "atomic", Element: "scalar string", SchemaType: "array"}},
		{".spec.ports", schema.FieldInfo{Type: "list", ListType: "map", ListMapKeys: []string{"port", "protocol"}, Element: "map", SchemaType: "array"}},
		{"spec.ports.protocol", schema.FieldInfo{Type: "scalar", Scalar: "string", SchemaType: "string", Default: "TCP"}},
		{"spec.ports.port", schema.FieldInfo{Type: "scalar", Scalar: "numeric", SchemaType: "integer"}},
		{"spec.selector", schema.FieldInfo{Type: "map", MapType: "atomic", SchemaType: "object", Fields: []string{"matchLabels"}}},
		{"spec.selector.matchLabels", schema.FieldInfo{Type: "map", MapType: "granular", Element: "scalar string", SchemaType: "object"}},
		{"spec.selector.matchLabels.app", schema.FieldInfo{Type: "scalar", Scalar: "string", SchemaType: "string"}},
		{"spec.limits.cpu", schema.FieldInfo{Type: "untyped", IntOrString: true}},
		{"spec.window", schema.FieldInfo{Type: "map", MapType: "granular", SchemaType: "object", Nullable: true,
			Default: map[string]any{"start": "2024-01-01T00:00:00Z"}, Fields: []string{"start"}}},
		{"spec.window.start", schema.FieldInfo{Type: "scalar", Scalar: "untyped", SchemaType: "string (format date-time)"}},
		{"spec.template", schema.FieldInfo{Type: "map", MapType: "granular", Element: "untyped", SchemaType: "object",
			PreserveUnknownFields: true, EmbeddedResource: true, Fields: []string{"apiVersion", "kind", "metadata"}}},
		{"spec.template.kind", schema.FieldInfo{Type: "scalar", Scalar: "string"}},
		{"spec.template.metadata", schema.FieldInfo{Type: "map", TypeName: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", MapType: "granular"}},
		{"metadata.finalizers", schema.FieldInfo{Type: "list", ListType: "set", Element: "scalar string"}},
		{"metadata.labels.app", schema.FieldInfo{Type: "scalar", Scalar: "string"}},
		{"status", schema.FieldInfo{Type: "map", MapType: "granular", Element: "untyped", SchemaType: "object", PreserveUnknownFields: true}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := v.Explain(tt.path)
			require.NoError(t, err)
			tt.want.Path = strings.TrimPrefix(tt.path, ".")
			tt.want.CustomResource = true
			if tt.want.TypeName == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" {
				tt.want.Fields = got.Fields
				assert.Contains(t, got.Fields, "ownerReferences")
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExplainCRDErrors(t *testing.T) {
	v := gadgetVersion(t, "v1")
	for path, want := range map[string]string{
		"spec.nope":           `example.com/v1, Kind=Gadget: field "spec.nope" does not exist`,
		"spec.ports.port.x":   `example.com/v1, Kind=Gadget: "spec.ports.port" is a scalar: it has no field "x"`,
		"spec..tags":          `example.com/v1, Kind=Gadget: empty field name in path "spec..tags"`,
		"spec.template.spec":  `example.com/v1, Kind=Gadget: field "spec.template.spec" is not in the schema ("spec.template" keeps unknown fields: x-kubernetes-preserve-unknown-fields)`,
		"status.phase":        `example.com/v1, Kind=Gadget: field "status.phase" is not in the schema ("status" keeps unknown fields: x-kubernetes-preserve-unknown-fields)`,
		"spec.limits.cpu.x":   `example.com/v1, Kind=Gadget: field "spec.limits.cpu.x" does not exist`,
		"metadata.nope":       `example.com/v1, Kind=Gadget: field "metadata.nope" does not exist`,
		"spec.window.start.x": `example.com/v1, Kind=Gadget: "spec.window.start" is a scalar: it has no field "x"`,
	} {
		_, err := v.Explain(path)
		assert.EqualError(t, err, want, "path %q", path)
	}
}

// TestExplainCRDPrint pins the printed form of a custom resource's field (the custom-resource
// lines of FieldInfo.String).
func TestExplainCRDPrint(t *testing.T) {
	info, err := gadgetVersion(t, "v1").Explain("spec.window")
	require.NoError(t, err)
	assert.Equal(t, `PATH:           spec.window
TYPE:           map
MAP TYPE:       granular
SCHEMA TYPE:    object
NULLABLE:       true
DEFAULT:        {"start":"2024-01-01T00:00:00Z"}
SMP STRATEGY:   not supported (custom resources take merge or JSON patches; a strategic merge patch is a 415)
FIELDS:         start
`, info.String())
	info, err = gadgetVersion(t, "v1").Explain("spec.template")
	require.NoError(t, err)
	assert.Contains(t, info.String(), "EXTENSIONS:     x-kubernetes-preserve-unknown-fields, x-kubernetes-embedded-resource\n")
}

// FuzzExplainCRD: any path yields a FieldInfo or an error, never a panic; a path that explains
// explains the same way again, and so does every prefix of it.
func FuzzExplainCRD(f *testing.F) {
	for _, seed := range []string{"", "spec.ports.protocol", ".spec.selector.matchLabels.app", "spec..x", "spec.limits.cpu.x",
		"spec.template.metadata.labels.a", "metadata.managedFields.fieldsV1", "status.x", "spec.window.start", "."} {
		f.Add(seed)
	}
	v := gadgetVersion(f, "v1")
	f.Fuzz(func(t *testing.T, path string) {
		info, err := v.Explain(path)
		if err != nil {
			return
		}
		again, err := v.Explain(path)
		require.NoError(t, err)
		assert.Equal(t, info, again, "path %q", path)
		assert.Equal(t, strings.TrimPrefix(path, "."), info.Path)
		assert.True(t, info.CustomResource)
		if i := strings.LastIndexByte(info.Path, '.'); i > 0 {
			_, err := v.Explain(info.Path[:i])
			assert.NoError(t, err, "prefix of %q", path)
		}
	})
}
