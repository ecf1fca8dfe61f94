package defaults_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// BenchmarkDefaultBuiltin defaults the recorded Deployment (testdata/defaults/out), as Apply
// does after every merge.
func BenchmarkDefaultBuiltin(b *testing.B) {
	data, err := os.ReadFile("../../testdata/defaults/out/deployment.json")
	require.NoError(b, err)
	obj, err := codec.DecodeObject(data)
	require.NoError(b, err)
	delete(obj["metadata"].(map[string]any), "managedFields") // Apply defaults without them
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := defaults.Builtin(gvk, obj, defaults.Options{Now: now}); err != nil {
			b.Fatal(err)
		}
	}
}
