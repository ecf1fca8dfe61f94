package schema_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

func gvk(group, version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}

func TestBuiltinKinds(t *testing.T) {
	tests := []struct {
		gvk             schema.GroupVersionKind
		resource        string
		namespaced      bool
		servedByDefault bool
		status          bool
		scale           *schema.ScaleSubresource
		smdType         string
		other           []string
	}{
		{gvk: gvk("apps", "v1", "Deployment"), resource: "deployments", namespaced: true, servedByDefault: true, status: true,
			scale:   &schema.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", SelectorFormat: "LabelSelector"},
			smdType: "io.k8s.api.apps.v1.Deployment"},
		{gvk: gvk("", "v1", "ReplicationController"), resource: "replicationcontrollers", namespaced: true, servedByDefault: true, status: true,
			scale:   &schema.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", SelectorFormat: "MatchLabels"},
			smdType: "io.k8s.api.core.v1.ReplicationController"},
		{gvk: gvk("", "v1", "Pod"), resource: "pods", namespaced: true, servedByDefault: true, status: true, smdType: "io.k8s.api.core.v1.Pod",
			other: []string{"attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward", "proxy", "resize"}},
		{gvk: gvk("", "v1", "Namespace"), resource: "namespaces", servedByDefault: true, status: true, smdType: "io.k8s.api.core.v1.Namespace", other: []string{"finalize"}},
		{gvk: gvk("", "v1", "ConfigMap"), resource: "configmaps", namespaced: true, servedByDefault: true, smdType: "io.k8s.api.core.v1.ConfigMap"},
		{gvk: gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"), resource: "customresourcedefinitions", servedByDefault: true, status: true,
			smdType: "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"},
		{gvk: gvk("apiregistration.k8s.io", "v1", "APIService"), resource: "apiservices", servedByDefault: true, status: true,
			smdType: "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"},
		{gvk: gvk("autoscaling", "v1", "Scale"), namespaced: true, servedByDefault: true, smdType: "io.k8s.api.autoscaling.v1.Scale"},
		{gvk: gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"), resource: "clusterroles", servedByDefault: true, smdType: "io.k8s.api.rbac.v1.ClusterRole"},
		{gvk: gvk("authentication.k8s.io", "v1", "TokenReview"), resource: "tokenreviews", servedByDefault: true, smdType: "io.k8s.api.authentication.v1.TokenReview"},
		{gvk: gvk("policy", "v1", "Eviction"), namespaced: true, servedByDefault: true, smdType: "io.k8s.api.policy.v1.Eviction"},
		{gvk: gvk("admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy"), resource: "mutatingadmissionpolicies",
			smdType: "io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicy"},
	}
	for _, tt := range tests {
		t.Run(tt.gvk.String(), func(t *testing.T) {
			k, err := schema.Builtin(tt.gvk)
			require.NoError(t, err)
			assert.Equal(t, tt.gvk, k.GVK)
			assert.Equal(t, tt.resource, k.Resource, "resource")
			assert.Equal(t, tt.namespaced, k.Namespaced, "namespaced")
			assert.Equal(t, tt.servedByDefault, k.ServedByDefault, "served by default")
			assert.Equal(t, tt.status, k.Subresources.Status, "status subresource")
			assert.Equal(t, tt.scale, k.Subresources.Scale, "scale subresource")
			assert.Equal(t, tt.other, k.Subresources.Other, "other subresources")
			assert.Equal(t, tt.smdType, k.SMDTypeName(), "smd type")
			if tt.resource != "" {
				byResource, err := schema.BuiltinForResource(k.GVR())
				require.NoError(t, err)
				assert.Same(t, k, byResource)
			}
			_, err = k.SMDType()
			assert.Equal(t, tt.smdType == "", err != nil, "SMDType error: %v", err)
			pm, err := k.PatchMeta()
			require.NoError(t, err)
			assert.Equal(t, "struct", pm.Name())
			assert.Equal(t, tt.gvk.Kind, pm.TypeName())
		})
	}
}

func TestBuiltinNotFound(t *testing.T) {
	_, err := schema.Builtin(gvk("apps", "v1", "Deploymentt"))
	var nf *schema.NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, `no matches for kind "Deploymentt" in version "apps/v1"`, err.Error())
	assert.Equal(t, 404, nf.StatusCode())
	assert.Equal(t, "NotFound", nf.Reason())

	_, err = schema.BuiltinForResource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments/scale"})
	require.True(t, errors.As(err, &nf))
	assert.Equal(t, "no matches for apps/v1, Resource=deployments/scale", err.Error())
}

// TestBuiltinCatalogueInvariants checks facts that hold for every kind.
func TestBuiltinCatalogueInvariants(t *testing.T) {
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	require.Greater(t, len(kinds), 90)
	seen := map[schema.GroupVersionKind]bool{}
	for _, k := range kinds {
		assert.False(t, seen[k.GVK], "duplicate %s", k.GVK)
		seen[k.GVK] = true
		assert.True(t, k.Resource != "" || len(k.SubresourceOf) > 0, "%s is neither a resource nor a subresource body", k.GVK)
		pm, err := k.PatchMeta()
		require.NoError(t, err, "%s", k.GVK)
		_, _, err = pm.LookupField("metadata")
		assert.NoError(t, err, "%s has no metadata field", k.GVK)
		require.NotEmpty(t, k.SMDTypeName(), "%s lacks an SMD type", k.GVK)
		info, err := k.Explain("")
		require.NoError(t, err, "%s", k.GVK)
		assert.Contains(t, info.Fields, "metadata", "%s", k.GVK)
		assert.Equal(t, "granular", info.MapType, "%s", k.GVK)
	}
}

func TestExplainBuiltin(t *testing.T) {
	tests := []struct {
		gvk  schema.GroupVersionKind
		path string
		want schema.FieldInfo
	}{
		{gvk("apps", "v1", "Deployment"), "spec.template.spec.containers", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"name"}, Element: "map", ElementName: "io.k8s.api.core.v1.Container",
			PatchStrategy: "merge", PatchMergeKey: "name", GoType: "slice"}},
		{gvk("apps", "v1", "Deployment"), "spec.template.spec.containers.ports", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"containerPort", "protocol"}, Element: "map", ElementName: "io.k8s.api.core.v1.ContainerPort",
			PatchStrategy: "merge", PatchMergeKey: "containerPort", GoType: "slice"}},
		{gvk("apps", "v1", "Deployment"), "spec.template.spec.tolerations", schema.FieldInfo{
			Type: "list", ListType: "atomic", Element: "map", ElementName: "io.k8s.api.core.v1.Toleration", GoType: "slice"}},
		{gvk("apps", "v1", "Deployment"), "spec.template.spec.topologySpreadConstraints", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"topologyKey", "whenUnsatisfiable"}, Element: "map", ElementName: "io.k8s.api.core.v1.TopologySpreadConstraint",
			PatchStrategy: "merge", PatchMergeKey: "topologyKey", GoType: "slice"}},
		{gvk("apps", "v1", "Deployment"), "spec.template.spec.volumes", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"name"}, Element: "map", ElementName: "io.k8s.api.core.v1.Volume",
			PatchStrategy: "merge,retainKeys", PatchMergeKey: "name", GoType: "slice"}},
		{gvk("apps", "v1", "Deployment"), "spec.strategy", schema.FieldInfo{
			Type: "map", MapType: "granular", TypeName: "io.k8s.api.apps.v1.DeploymentStrategy", Fields: []string{"rollingUpdate", "type"},
			PatchStrategy: "retainKeys", GoType: "struct"}},
		{gvk("apps", "v1", "Deployment"), "spec.selector", schema.FieldInfo{
			Type: "map", MapType: "atomic", TypeName: "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector", Fields: []string{"matchExpressions", "matchLabels"},
			GoType: "ptr"}},
		{gvk("apps", "v1", "Deployment"), "spec.replicas", schema.FieldInfo{Type: "scalar", Scalar: "numeric", GoType: "ptr"}},
		{gvk("", "v1", "Service"), "spec.ports", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"port", "protocol"}, Element: "map", ElementName: "io.k8s.api.core.v1.ServicePort",
			PatchStrategy: "merge", PatchMergeKey: "port", GoType: "slice"}},
		{gvk("", "v1", "Pod"), "metadata.finalizers", schema.FieldInfo{
			Type: "list", ListType: "set", Element: "scalar string", PatchStrategy: "merge", GoType: "slice"}},
		{gvk("", "v1", "Pod"), "metadata.ownerReferences", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"uid"}, Element: "map", ElementName: "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
			PatchStrategy: "merge", PatchMergeKey: "uid", GoType: "slice"}},
		{gvk("", "v1", "Pod"), "metadata.labels", schema.FieldInfo{Type: "map", MapType: "granular", Element: "scalar string", GoType: "map"}},
		{gvk("", "v1", "ServiceAccount"), "imagePullSecrets", schema.FieldInfo{
			Type: "list", ListType: "atomic", Element: "map", ElementName: "io.k8s.api.core.v1.LocalObjectReference", GoType: "slice"}},
		{gvk("", "v1", "Pod"), ".spec.containers.env", schema.FieldInfo{
			Type: "list", ListType: "map", ListMapKeys: []string{"name"}, Element: "map", ElementName: "io.k8s.api.core.v1.EnvVar",
			PatchStrategy: "merge", PatchMergeKey: "name", GoType: "slice"}},
		{gvk("autoscaling", "v1", "Scale"), "spec.replicas", schema.FieldInfo{Type: "scalar", Scalar: "numeric", GoType: "int32"}},
	}
	for _, tt := range tests {
		t.Run(tt.gvk.Kind+"/"+tt.path, func(t *testing.T) {
			k, err := schema.Builtin(tt.gvk)
			require.NoError(t, err)
			got, err := k.Explain(tt.path)
			require.NoError(t, err)
			tt.want.Path = strings.TrimPrefix(tt.path, ".")
			if tt.want.Type == "map" && tt.want.Fields == nil {
				tt.want.Fields = got.Fields
			}
			assert.Equal(t, tt.want, got, "%s %s", tt.gvk, tt.path)
		})
	}
}

func TestExplainErrors(t *testing.T) {
	k, err := schema.Builtin(gvk("apps", "v1", "Deployment"))
	require.NoError(t, err)
	for path, want := range map[string]string{
		"spec.nope":               `apps/v1, Kind=Deployment: field "spec.nope" does not exist`,
		"spec.replicas.x":         `apps/v1, Kind=Deployment: "spec.replicas" is a scalar: it has no field "x"`,
		"spec..replicas":          `apps/v1, Kind=Deployment: empty field name in path "spec..replicas"`,
		"metadata.labels.app.sub": `apps/v1, Kind=Deployment: "metadata.labels.app" is a scalar: it has no field "sub"`,
	} {
		_, err := k.Explain(path)
		assert.EqualError(t, err, want, "path %q", path)
	}
}

func TestPatchMetaLookup(t *testing.T) {
	k, err := schema.Builtin(gvk("", "v1", "Pod"))
	require.NoError(t, err)
	root, err := k.PatchMeta()
	require.NoError(t, err)

	spec, info, err := root.LookupField("spec")
	require.NoError(t, err)
	assert.Equal(t, schema.PatchInfo{}, info)
	assert.Equal(t, []string{""}, info.Strategies(), "strategicpatch splits an empty tag into one empty strategy")

	containers, info, err := spec.LookupSlice("containers")
	require.NoError(t, err)
	assert.Equal(t, schema.PatchInfo{Strategy: "merge", MergeKey: "name"}, info)
	assert.Equal(t, "struct", containers.Name())
	assert.Equal(t, "Container", containers.TypeName())

	volumes, info, err := spec.LookupSlice("volumes")
	require.NoError(t, err)
	assert.Equal(t, []string{"merge", "retainKeys"}, info.Strategies())
	assert.True(t, info.Has("retainKeys"))
	assert.False(t, info.Has("replace"))
	assert.Equal(t, "Volume", volumes.TypeName())

	// Case-insensitive fallback, as encoding/json and strategicpatch resolve field names.
	_, info, err = spec.LookupField("Containers")
	require.NoError(t, err)
	assert.Equal(t, "name", info.MergeKey)

	// strategicpatch's errors, word for word.
	_, _, err = spec.LookupField("nope")
	assert.EqualError(t, err, `unable to find api field in struct PodSpec for the json field "nope"`)
	_, _, err = spec.LookupSlice("nodeName")
	assert.EqualError(t, err, "expected slice or array type, but got: struct")
	labels, _, err := root.LookupField("metadata")
	require.NoError(t, err)
	labels, _, err = labels.LookupField("labels")
	require.NoError(t, err)
	_, _, err = labels.LookupField("app")
	assert.EqualError(t, err, "merging an object in json but data type is not struct, instead is: map")
	_, _, err = schema.PatchMeta{}.LookupField("x")
	assert.Error(t, err)
	assert.False(t, schema.PatchMeta{}.Valid())
}

func TestDeducedType(t *testing.T) {
	tv, err := schema.DeducedType().FromUnstructured(map[string]any{"a": []any{int64(1)}, "b": map[string]any{"c": "d"}})
	require.NoError(t, err)
	set, err := tv.ToFieldSet()
	require.NoError(t, err)
	assert.Equal(t, ".a\n.b\n.b.c", set.String())
}

// TestGeneratedCatalogueUpToDate regenerates the catalogue with internal/gen and fails if the
// committed schema/data differs: the catalogue must be what the generator produces today.
func TestGeneratedCatalogueUpToDate(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go toolchain not found: cannot run internal/gen to check schema/data is up to date")
	}
	cmd := exec.Command(goBin, "run", "-C", "../internal/gen", ".", "-verify", "-out", "../../schema/data")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "schema/data is stale or the generator failed:\n%s", out)
}

func TestKindSubresourcesHas(t *testing.T) {
	deploy, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pod, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.NoError(t, err)
	for _, tc := range []struct {
		k    *schema.Kind
		sub  string
		want bool
	}{
		{deploy, "status", true}, {deploy, "scale", true}, {deploy, "eviction", false},
		{pod, "status", true}, {pod, "scale", false}, {pod, "eviction", true}, {pod, "log", true}, {pod, "", false},
	} {
		assert.Equal(t, tc.want, tc.k.Subresources.Has(tc.sub), "%s %q", tc.k.GVK.Kind, tc.sub)
	}
}
