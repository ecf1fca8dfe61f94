package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// A created claim carries kubernetes.io/pvc-protection (the StorageObjectInUseProtection
// admission plugin, recorded: kinds/pvc-create); deleted while a running Pod mounts it, it waits
// with its deletionTimestamp, and goes once the Pod is gone (the pvc-protection controller). A
// volume's pv-protection goes once it is not Bound.
func TestStorageProtection(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	code, _, _ = c.do("POST", "/api/v1/namespaces/demo/serviceaccounts", "application/json", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`)
	require.Contains(t, []int{201, 409}, code)
	code, pvc, _ := c.do("POST", "/api/v1/namespaces/demo/persistentvolumeclaims", "application/json",
		`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`)
	require.Equal(t, 201, code)
	assert.Equal(t, []any{"kubernetes.io/pvc-protection"}, meta(pvc)["finalizers"])
	assert.Equal(t, "Pending", pvc["status"].(map[string]any)["phase"])
	code, _, _ = c.do("POST", "/api/v1/namespaces/demo/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"app"},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","image":"x"}],"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]}}`)
	require.Equal(t, 201, code)

	code, _, _ = c.do("DELETE", "/api/v1/namespaces/demo/persistentvolumeclaims/data", "", "")
	require.Equal(t, 200, code)
	code, got, _ := c.do("GET", "/api/v1/namespaces/demo/persistentvolumeclaims/data", "", "")
	require.Equal(t, 200, code, "a claim in use waits")
	assert.NotNil(t, meta(got)["deletionTimestamp"])

	code, _, _ = c.do("DELETE", "/api/v1/namespaces/demo/pods/app?gracePeriodSeconds=0", "", "")
	require.Equal(t, 200, code)
	code, _, _ = c.do("GET", "/api/v1/namespaces/demo/persistentvolumeclaims/data", "", "")
	assert.Equal(t, 404, code, "released once no Pod uses it")

	code, pv, _ := c.do("POST", "/api/v1/persistentvolumes", "application/json",
		`{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv1"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/pv1"}}}`)
	require.Equal(t, 201, code)
	assert.Equal(t, []any{"kubernetes.io/pv-protection"}, meta(pv)["finalizers"])
	code, _, _ = c.do("DELETE", "/api/v1/persistentvolumes/pv1", "", "")
	require.Equal(t, 200, code)
	code, _, _ = c.do("GET", "/api/v1/persistentvolumes/pv1", "", "")
	assert.Equal(t, 404, code, "an unbound volume is released")
}
