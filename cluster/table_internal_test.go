package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// TestPrinterCellsMatchColumns: every row function gives one cell per column of its kind's
// generated definitions, on an empty object and on one with the fields it reads.
func TestPrinterCellsMatchColumns(t *testing.T) {
	cols, om := printerColumns()
	require.NotEmpty(t, om["name"])
	require.NotEmpty(t, om["creationTimestamp"])
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for key, row := range rowFuncs {
		require.NotNil(t, cols[key], "%s has a row function but no generated columns", key)
		for _, o := range []object{
			{"metadata": map[string]any{"name": "x"}},
			{"metadata": map[string]any{"name": "x", "creationTimestamp": "2026-11-30T00:00:00Z", "deletionTimestamp": "2026-11-30T00:00:00Z"},
				"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"a": "b"}}}},
		} {
			cells, _ := row(o, now)
			want := len(cols[key])
			if key == "networking.k8s.io/IPAddress" {
				want++ // the reference prints an age its columns do not name
			}
			assert.Len(t, cells, want, "%s: cells %v", key, cells)
		}
	}
}

// defaultTableKinds have a printer in the reference that their storage does not use
// (pkg/registry: rest.NewDefaultTableConvertor).
var defaultTableKinds = map[string]bool{"storage.k8s.io/CSIStorageCapacity": true}

// TestPrintedKindsServed lists the served built-in kinds whose reference printer has no row
// function here (they get the default table): the list doc.go names.
func TestPrintedKindsServed(t *testing.T) {
	cols, _ := printerColumns()
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	var missing []string
	seen := map[string]bool{}
	for _, k := range kinds {
		key := k.GVK.Group + "/" + k.GVK.Kind
		if !k.ServedByDefault || k.Resource == "" || seen[key] || cols[key] == nil {
			continue
		}
		seen[key] = true
		if _, ok := rowFuncs[key]; !ok && key != "events.k8s.io/Event" && !defaultTableKinds[key] {
			missing = append(missing, key)
		}
	}
	assert.Empty(t, missing, "served kinds with a reference printer but no row function")
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-3 * time.Second: "<invalid>", -time.Second: "0s", 0: "0s", 59 * time.Second: "59s", 119 * time.Second: "119s",
		2 * time.Minute: "2m", 150 * time.Second: "2m30s", 10 * time.Minute: "10m", 179 * time.Minute: "179m",
		3 * time.Hour: "3h", 3*time.Hour + 5*time.Minute: "3h5m", 8 * time.Hour: "8h", 47 * time.Hour: "47h",
		48 * time.Hour: "2d", 50 * time.Hour: "2d2h", 8 * 24 * time.Hour: "8d", 2 * 365 * 24 * time.Hour: "2y",
		(2*365 + 3) * 24 * time.Hour: "2y3d", 9 * 365 * 24 * time.Hour: "9y",
	} {
		assert.Equal(t, want, humanDuration(d), "%v", d)
	}
}

func TestNegotiateOutput(t *testing.T) {
	for _, c := range []struct {
		accept string
		custom bool
		want   output
		ok     bool
	}{
		{"", false, output{mediaType: jsonType}, true},
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json", false, output{jsonType, "Table", "v1"}, true},
		{"application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml", false, output{mediaType: yamlType}, true},
		{"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", false, output{}, false},
		{"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json", false, output{mediaType: jsonType}, true},
		{"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json", true, output{protobufType, "PartialObjectMetadata", "v1"}, true},
		{"application/vnd.kubernetes.protobuf", true, output{}, false},
		{"application/vnd.kubernetes.protobuf,application/json", true, output{mediaType: jsonType}, true},
		{"*/*;as=Table;v=v1beta1;g=meta.k8s.io", false, output{jsonType, "Table", "v1beta1"}, true},
		{"application/json;as=Table", false, output{}, false},
		{"application/yaml;stream=watch", false, output{}, false},
		{"application/json;stream=watch", false, output{mediaType: jsonType}, true},
		{"application/json;sv=v2,application/yaml", false, output{mediaType: yamlType}, true},
		{"text/plain;q=0.9, application/yaml;q=0.5, */*;q=0.1", false, output{mediaType: yamlType}, true},
		{"*/*;q=0.1,application/yaml", false, output{mediaType: yamlType}, true},
		{"text/plain", false, output{}, false},
	} {
		got, ok := negotiateOutput(c.accept, c.custom)
		assert.Equal(t, c.ok, ok, "%q", c.accept)
		assert.Equal(t, c.want, got, "%q", c.accept)
	}
}

// TestHPAV1PrintedAsV2: an autoscaling/v1 HPA's CPU target and current utilization print as
// the v2 Resource metric they convert to.
func TestHPAV1PrintedAsV2(t *testing.T) {
	o := object{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "web"},
		"spec":   map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web"}, "minReplicas": int64(1), "maxReplicas": int64(5), "targetCPUUtilizationPercentage": int64(60)},
		"status": map[string]any{"currentReplicas": int64(2), "currentCPUUtilizationPercentage": int64(42)}}
	cells, _ := rowHPA(o, time.Time{})
	assert.Equal(t, []any{"web", "Deployment/web", "cpu: 42%/60%", "1", int64(5), int64(2), "<unknown>"}, cells)
}
