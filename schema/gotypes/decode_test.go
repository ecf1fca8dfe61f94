package gotypes_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

var (
	gtDeployGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gtCRDGVK    = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	podGVK      = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
)

// TestGoDecodeError: the decoder's rule, case by case (conformance/defaults' TestGoDecodeErrors
// compares 100,000 random cases with the reference decoder).
func TestGoDecodeError(t *testing.T) {
	secretGVK := schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	svcGVK := schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	pvGVK := schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}
	ingGVK := schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
	const c0 = "spec.template.spec.containers[0]."
	tests := []struct {
		name  string
		gvk   schema.GroupVersionKind
		path  string
		value any
		want  string // "" when the decoder takes the value
	}{
		{"string for a *int32", gtDeployGVK, "spec.replicas", "3",
			"json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"int32 overflow quotes the number", gtDeployGVK, "spec.replicas", int64(4294967297),
			"json: cannot unmarshal number 4294967297 into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"a fraction as written", gtDeployGVK, "spec.replicas", json.Number("1.0"),
			"json: cannot unmarshal number 1.0 into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"a float64 as encoding/json writes it", gtDeployGVK, "spec.replicas", 2.5,
			"json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"an int32 in range", gtDeployGVK, "spec.replicas", int64(3), ""},
		{"null is taken", gtDeployGVK, "spec.replicas", nil, ""},
		{"list indices are left out", gtDeployGVK, c0 + "ports[1].containerPort", true,
			"json: cannot unmarshal bool into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32"},
		{"a number for a named string", gtDeployGVK, c0 + "ports[0].protocol", int64(6),
			"json: cannot unmarshal number into Go struct field ContainerPort.spec.template.spec.containers.ports.protocol of type v1.Protocol"},
		{"a string for a slice", gtDeployGVK, "spec.template.spec.containers", "c",
			"json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container"},
		{"a string for a pointer to a struct", gtDeployGVK, "spec.selector", "app=x",
			"json: cannot unmarshal string into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector"},
		{"a list for a struct", gtDeployGVK, "spec.strategy", []any{},
			"json: cannot unmarshal array into Go struct field DeploymentSpec.spec.strategy of type v1.DeploymentStrategy"},
		{"a map value names the map's field", gtDeployGVK, "metadata.labels[app]", int64(1),
			"json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"},
		{"a key holding ']' and '.'", gtDeployGVK, "metadata.labels[a].b]", false,
			"json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"},
		{"a number for a map", gtDeployGVK, "metadata.annotations", int64(1),
			"json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type map[string]string"},
		{"an embedded struct's Go name (Probe embeds ProbeHandler)", gtDeployGVK, c0 + "livenessProbe.exec.command", "ls",
			"json: cannot unmarshal string into Go struct field ExecAction.spec.template.spec.containers.livenessProbe.ProbeHandler.exec.command of type []string"},
		{"the struct that embeds, for the promoted field itself", gtDeployGVK, c0 + "readinessProbe.httpGet", "x",
			"json: cannot unmarshal string into Go struct field Probe.spec.template.spec.containers.readinessProbe.ProbeHandler.httpGet of type v1.HTTPGetAction"},
		{"Volume embeds VolumeSource", gtDeployGVK, "spec.template.spec.volumes[0].emptyDir", int64(1),
			"json: cannot unmarshal number into Go struct field Volume.spec.template.spec.volumes.VolumeSource.emptyDir of type v1.EmptyDirVolumeSource"},
		{"EphemeralContainer embeds EphemeralContainerCommon", podGVK, "spec.ephemeralContainers[0].name", int64(1),
			"json: cannot unmarshal number into Go struct field EphemeralContainer.spec.ephemeralContainers.EphemeralContainerCommon.name of type string"},
		{"PersistentVolumeSpec embeds PersistentVolumeSource", pvGVK, "spec.hostPath.path", int64(1),
			"json: cannot unmarshal number into Go struct field HostPathVolumeSource.spec.PersistentVolumeSource.hostPath.path of type string"},
		{"IngressRule embeds IngressRuleValue", ingGVK, "spec.rules[0].http.paths", "/",
			"json: cannot unmarshal string into Go struct field HTTPIngressRuleValue.spec.rules.IngressRuleValue.http.paths of type []v1.HTTPIngressPath"},
		{"an embedded ObjectReference in a named struct", podGVK, "spec.volumes[0].configMap.name", int64(1),
			"json: cannot unmarshal number into Go struct field ConfigMapVolumeSource.spec.volumes.VolumeSource.configMap.LocalObjectReference.name of type string"},
		{"a quantity's own error", podGVK, "spec.containers[0].resources.limits[cpu]", true,
			"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		{"a quantity from a number", podGVK, "spec.containers[0].resources.limits[cpu]", int64(2), ""},
		{"int-or-string: decoding an int32, with the field's context", svcGVK, "spec.ports[0].targetPort", map[string]any{},
			"json: cannot unmarshal object into Go struct field ServicePort.spec.ports.targetPort of type int32"},
		{"int-or-string out of range", svcGVK, "spec.ports[0].targetPort", json.Number("8080.5"),
			"json: cannot unmarshal number 8080.5 into Go struct field ServicePort.spec.ports.targetPort of type int32"},
		{"int-or-string string", svcGVK, "spec.ports[0].targetPort", "http", ""},
		{"a time: decoding a string", gtDeployGVK, "metadata.creationTimestamp", int64(1),
			"json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"},
		{"a time's parse error", gtDeployGVK, "metadata.creationTimestamp", "yesterday",
			`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"[]byte: the base64 decoder's error", secretGVK, "data[k]", "!!",
			"illegal base64 data at input byte 0"},
		{"[]byte from a list of bytes", secretGVK, "data[k][1]", int64(256),
			"json: cannot unmarshal number 256 into Go struct field Secret.data of type uint8"},
		{"the meta factory reads kind first", gtDeployGVK, "kind", int64(1),
			"couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"},
		{"a free-form value takes anything", gtCRDGVK, "spec.versions[0].schema.openAPIV3Schema.default.x", true, ""},
		{"inside a schema union: encoding/json, named after the struct holding it", gtCRDGVK,
			"spec.versions[0].schema.openAPIV3Schema.properties[a].items.type", int64(1),
			"json: cannot unmarshal number into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.items.type of type string"},
		{"a schema union's own error", gtCRDGVK, "spec.versions[0].schema.openAPIV3Schema.additionalProperties", "yes",
			"boolean or JSON schema expected"},
		{"an unknown field is dropped", gtDeployGVK, "spec.bogus", "x", ""},
		{"below a scalar: no such path", gtDeployGVK, "spec.replicas.x", "x", ""},
		{"an index on a map: no such path", gtDeployGVK, "metadata.labels[0", "x", ""},
		{"the whole object", gtDeployGVK, "", map[string]any{"spec": map[string]any{"paused": "yes", "replicas": "2"}},
			"json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool"},
		{"the whole object: a custom unmarshaler's error stops the decoder and wins", gtDeployGVK, "<nil>",
			map[string]any{"metadata": map[string]any{"creationTimestamp": "x", "annotations": int64(1)}},
			`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`},
		{"the whole object of the wrong type", gtDeployGVK, "", "x",
			"json: cannot unmarshal string into Go value of type v1.Deployment"},
		{"a kind not in the catalogue", schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, "spec", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := gotypes.DecodeError(tt.gvk, tt.path, tt.value)
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, got)
		})
	}
	got, ok := gotypes.DecodeError(gtDeployGVK, "spec.paused", int64(1))
	assert.True(t, ok)
	assert.Equal(t, "json: cannot unmarshal number into Go struct field DeploymentSpec.spec.paused of type bool", got)
}

// TestGoDecodeErrorRecorded replays what kube-apiserver 1.37 answered to a PUT body, a merge
// patch and a JSON patch whose Deployment does not decode (testdata/apply/realcluster-numbers):
// the message ends with the decoder's error.
func TestGoDecodeErrorRecorded(t *testing.T) {
	dir := "../../testdata/apply/realcluster-numbers/deployment"
	for _, name := range []string{"15-put-4294967297", "16-put-2.5", "17-put-1.0", "18-merge-patch-4294967297", "19-merge-patch-1.0", "20-json-patch-2147483648"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
			require.NoError(t, err)
			var rec struct {
				Method   string `json:"method"`
				Body     string `json:"body"`
				Response struct {
					Message string `json:"message"`
				} `json:"response"`
			}
			require.NoError(t, json.Unmarshal(raw, &rec))
			dec := json.NewDecoder(strings.NewReader(rec.Body))
			dec.UseNumber()
			var body any
			require.NoError(t, dec.Decode(&body))
			var got string
			var ok bool
			switch b := body.(type) {
			case []any: // a JSON patch replacing spec.replicas
				got, ok = gotypes.DecodeError(gtDeployGVK, "spec.replicas", b[0].(map[string]any)["value"])
			case map[string]any:
				if rec.Method == "PUT" {
					// the whole body, as the handler decodes it
					got, ok = gotypes.DecodeError(gtDeployGVK, "", b)
					require.True(t, ok)
					assert.Equal(t, `Deployment in version "v1" cannot be handled as a Deployment: `+got, rec.Response.Message)
					return
				}
				got, ok = gotypes.DecodeError(gtDeployGVK, "spec.replicas", b["spec"].(map[string]any)["replicas"])
			}
			require.True(t, ok)
			assert.True(t, strings.HasSuffix(rec.Response.Message, `": `+got), "%s\ndoes not end with %s", rec.Response.Message, got)
		})
	}
}

// TestGeneratedGoTypesUpToDate regenerates data/gotypes.json.gz with internal/gen/gotypes and
// fails if the committed file differs.
func TestGeneratedGoTypesUpToDate(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go toolchain not found: cannot run internal/gen/gotypes to check schema/gotypes/data is up to date")
	}
	cmd := exec.Command(goBin, "run", "-C", "../../internal/gen", "./gotypes", "-verify", "-out", "../../schema/gotypes/data")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "schema/gotypes/data/gotypes.json.gz is stale or the generator failed:\n%s", out)
}

func FuzzGoDecodeError(f *testing.F) {
	f.Add("apps", "v1", "Deployment", "spec.template.spec.containers[0].ports[0].containerPort", `"80"`)
	f.Add("", "v1", "Pod", "spec.containers[0].livenessProbe.exec.command", `[1]`)
	f.Add("", "v1", "Secret", "data[a]][0]", `256`)
	f.Add("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "spec.versions[0].schema.openAPIV3Schema.properties[a].items[0].properties[b].type", `{"x":1}`)
	f.Add("", "v1", "Service", "", `{"spec":{"ports":[{"targetPort":1.5}]}}`)
	f.Fuzz(func(t *testing.T, group, version, kind, path, value string) {
		dec := json.NewDecoder(strings.NewReader(value))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		before, _ := json.Marshal(v)
		msg, ok := gotypes.DecodeError(schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, path, v)
		if ok == (msg == "") {
			t.Fatalf("ok %v with message %q", ok, msg)
		}
		after, _ := json.Marshal(v)
		if !bytes.Equal(before, after) {
			t.Fatalf("value mutated: %s -> %s", before, after)
		}
	})
}
