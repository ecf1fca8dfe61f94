package gotypes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

func TestGoPointerField(t *testing.T) {
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, tc := range []struct {
		kind schema.GroupVersionKind
		path string
		want bool
	}{
		{deployment, "spec.replicas", true},
		{deployment, "spec.strategy", false},
		{deployment, "spec.strategy.rollingUpdate", true},
		{deployment, "spec.template.spec.securityContext", true},
		{deployment, "spec.template.spec.volumes", false},
		{deployment, "spec.template.spec.volumes[0]", false},
		// promoted through the embedded VolumeSource, inside a list.
		{deployment, "spec.template.spec.volumes[0].emptyDir", true},
		{deployment, "spec.template.spec.volumes[3].emptyDir.sizeLimit", true},
		{deployment, "spec.template.spec.volumes[0].name", false},
		{deployment, "spec.template.spec.containers[0].securityContext.runAsUser", true},
		{deployment, "spec.template.spec.containers[0].livenessProbe.exec", true},
		{deployment, "spec.template.spec.containers[0].resources.limits[cpu]", false},
		{deployment, "spec.template.spec.overhead[memory]", false},
		{pod, "spec.nodeSelector[a]", false},
		{pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", true},
		{pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1]", false},
		{pod, "metadata.deletionTimestamp", true},
		{pod, "metadata.labels[a.b/c]", false},
		// nowhere the Go type has.
		{pod, "spec.bogus", false},
		{pod, "spec.volumes.emptyDir", false},
		{pod, "spec.replicas[0]", false},
		{pod, "", false},
		{pod, "spec.volumes[0", false},
	} {
		assert.Equal(t, tc.want, gotypes.PointerField(tc.kind, tc.path), "%s %s", tc.kind.Kind, tc.path)
	}
}

func TestGoTypeWalk(t *testing.T) {
	root, ok := gotypes.Of(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.True(t, ok)
	assert.Equal(t, "struct", root.Kind())
	assert.Equal(t, "v1.Pod", root.String())
	volumes := root.Field("spec").Field("volumes")
	assert.Equal(t, "[]v1.Volume", volumes.String())
	item := volumes.Elem()
	assert.False(t, item.Pointer())
	emptyDir := item.Field("emptyDir")
	assert.True(t, emptyDir.Pointer())
	assert.Equal(t, "*v1.EmptyDirVolumeSource", emptyDir.String())
	assert.Equal(t, "struct", emptyDir.Deref().Kind())
	size := emptyDir.Field("sizeLimit")
	assert.True(t, size.Pointer())
	assert.True(t, size.Custom())
	assert.False(t, size.Field("format").Valid(), "a custom-decoded type has no fields to walk")
	assert.False(t, size.Elem().Valid())
	labels := root.Field("metadata").Field("labels")
	assert.Equal(t, "map", labels.Kind())
	assert.Equal(t, "string", labels.Elem().Kind())
	assert.False(t, labels.Field("a").Valid())
	assert.False(t, root.Field("Spec").Valid(), "JSON names only, matched exactly")

	var zero gotypes.Type
	assert.False(t, zero.Valid())
	assert.False(t, zero.Pointer())
	assert.False(t, zero.Custom())
	assert.Equal(t, "", zero.Kind()+zero.String())
	assert.False(t, zero.Field("x").Valid())
	assert.False(t, zero.Elem().Valid())
	assert.False(t, zero.Deref().Valid())

	_, ok = gotypes.Of(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	assert.False(t, ok)
}

func FuzzGoPointerField(f *testing.F) {
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, s := range []string{"spec.volumes[0].emptyDir", "metadata.labels[a]]", "[", ".", "spec..x", "spec.volumes[]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		gotypes.PointerField(pod, path)
	})
}
