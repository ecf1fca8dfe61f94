package validation_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/schema/validation"
)

// fuzzKinds are the kinds each fuzz input is validated as.
var fuzzKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "Pod"},
	{Version: "v1", Kind: "PodTemplate"},
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Version: "v1", Kind: "Namespace"},
	{Version: "v1", Kind: "Service"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"},
	{Version: "v1", Kind: "Endpoints"},
	{Version: "v1", Kind: "PersistentVolumeClaim"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"},
	{Version: "v1", Kind: "PersistentVolume"},
	{Version: "v1", Kind: "ResourceQuota"},
	{Version: "v1", Kind: "LimitRange"},
	{Version: "v1", Kind: "ReplicationController"},
	{Group: "apps", Version: "v1", Kind: "ControllerRevision"},
	{Version: "v1", Kind: "Event"},
	{Group: "events.k8s.io", Version: "v1", Kind: "Event"},
	{Version: "v1", Kind: "Node"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicyBinding"},
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaimTemplate"},
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"},
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice"},
}

var fuzzSubresources = []string{"", "status", "resize", "ephemeralcontainers", "finalize"}

// FuzzValidate feeds any JSON body through the typed round trip (as the registry does) and then
// every entry point: no panic on any shape, and neither object is modified. The raw decoded
// body (not round-tripped) is validated too, since the functions must not panic on any shape.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c","image":"i"}]}}`), []byte(`{}`))
	f.Add([]byte(`{"spec":{"containers":[{"ports":[{"containerPort":-1}],"env":[{"name":""}]}],"volumes":[{"name":"v","emptyDir":{}}]}}`),
		[]byte(`{"spec":{"containers":[{"name":"c"}]}}`))
	f.Add([]byte(`{"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":null}}}`), []byte(`{"template":7}`))
	f.Add([]byte(`{"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"In"}]},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"x%"}},"ports":[{"port":1},{"port":1}],"clusterIPs":["None","1.2.3.4"]},"rules":[{}],"subjects":[{}],"roleRef":{},"data":{"..":"x"},"type":"kubernetes.io/tls"}`),
		[]byte(`{"spec":{"clusterIPs":["10.0.0.1","fd00::1"],"ipFamilies":["IPv4","IPv6"],"type":"LoadBalancer"},"immutable":true,"status":{"collisionCount":3}}`))
	f.Add([]byte(`{"spec":{"capacity":{"storage":"-1"},"local":{"path":"/a/../b"},"csi":{"driver":"x","nodePublishSecretRef":{}},"nodeAffinity":{"required":{"nodeSelectorTerms":[{}]}},"hard":{"pods":"1.5"},"scopes":["BestEffort","NotBestEffort"],"scopeSelector":{"matchExpressions":[{"scopeName":"x","operator":"In"}]},"limits":[{"type":"Container","max":{"cpu":"1"},"min":{"cpu":"2"},"maxLimitRequestRatio":{"cpu":"0"}}],"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"c"}}}}}`),
		[]byte(`{"metadata":{"annotations":{"non-convertible.kubernetes.io/spec.selector":"x"}},"spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"beta.kubernetes.io/os","operator":"In","values":["%"]}]}]}},"csi":{"driver":"y"}},"status":{"phase":"Bound","lastPhaseTransitionTime":"x"}}`))
	f.Add([]byte(`{"metadata":{"name":"c"},"spec":{"metadata":{"name":"x","uid":"u"},"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c","derivedAttributes":[{"name":"n"}],"tolerations":[{"operator":"Maybe"}]}},{"name":"a","firstAvailable":[{"name":"s"},{"name":"s"}]}],"constraints":[{"requests":["a","a/s","a/b/c"],"matchAttribute":"x/"}],"config":[{"opaque":{"driver":"D","parameters":[1]}}]}},"devices":{"requests":[{"name":"r"}]}}}`),
		[]byte(`{"spec":{"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c"}}]}},"devices":{"requests":7}}}`))
	f.Add([]byte(`{"metadata":{"name":"s"},"spec":{"driver":"D","pool":{"name":"a//b","resourceSliceCount":0,"generation":-1},"nodeName":"","nodeSelector":{"nodeSelectorTerms":[{},{}]},"allNodes":false,"perDeviceNodeSelection":true,"partitionTypeAttribute":"x/y","skipNodeOperations":["NodePrepareResources"],"sharedCounters":[{"name":"c","counters":{"Bad":{"value":"1"}}},{"name":"c"}],"devices":[{"name":"d","attributes":{"a/b/c":{"int":1,"string":"s"},"x":{"ints":[]},"v":{"version":"01.0"}},"capacity":{"m":{"value":"8","requestPolicy":{"default":"3","validValues":["4","2","2"],"validRange":{"min":"10000Ei","step":"0"}}}},"allowMultipleAllocations":true,"consumesCounters":[{"counterSet":"c","counters":{},"compatibilityGroups":["g"]},{"counterSet":"c"},{"counterSet":"x"}],"taints":[{"key":"bad key","effect":"Evict"}],"bindingConditions":["a","a"],"bindingFailureConditions":["a"],"nodeAllocatableResources":{"cpu":{}}},{"name":"d","nodeName":"n","allNodes":true}]}}`),
		[]byte(`{"spec":{"driver":"d","pool":{"name":"p"},"nodeName":"n","devices":[{"name":"d","capacity":{"m":{"value":"1","requestPolicy":{"default":"1","validRange":{"min":"1","max":"x","step":"1"}}}},"taints":7}],"skipNodeOperations":["*"]}}`))
	f.Add([]byte(`{"metadata":{"name":"c","namespace":"n","deletionTimestamp":"2026-01-01T00:00:00Z"},"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c","adminAccess":true}}]}},"status":{"allocation":{"devices":{"results":[{"request":"a/b/c","driver":"D","pool":"","device":"X","adminAccess":true,"shareID":"{7d6f2c1e-0000-4000-8000-000000000001}","skipNodeOperations":["*"],"tolerations":[{"operator":"Maybe"}],"bindingConditions":["a"]}],"config":[{"source":"FromPod","requests":["a","a"],"opaque":{"driver":"d","parameters":[]}}]},"nodeSelector":{"nodeSelectorTerms":[]}},"reservedFor":[{"uid":"u"},{"uid":"u"}],"devices":[{"driver":"d","pool":"p","device":"x","shareID":"X","conditions":[{}],"data":"s","networkData":{"ips":["10.0.0.0/8","::ffff:1.2.3.4/120","x"],"interfaceName":"e"}},{"driver":"d","pool":"p","device":"x","shareID":"X"}]}}`),
		[]byte(`{"metadata":{"name":"c","namespace":"n"},"status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p","device":"x","skipNodeOperations":["*"]}]}},"reservedFor":[{"uid":"v"}],"devices":[{"driver":"d","pool":"p","device":"x"}]}}`))
	f.Fuzz(func(t *testing.T, body, oldBody []byte) {
		obj, err := codec.DecodeObject(body)
		if err != nil {
			return
		}
		old, err := codec.DecodeObject(oldBody)
		if err != nil {
			return
		}
		for _, gvk := range append(append(fuzzKinds, fuzzKindsB...), fuzzKindsC...) {
			run(t, gvk, obj, old)
			typed, err := defaults.Builtin(gvk, obj, defaults.Options{Now: time.Unix(0, 0)})
			if err != nil {
				continue
			}
			typedOld, err := defaults.Builtin(gvk, old, defaults.Options{Now: time.Unix(0, 0)})
			if err != nil {
				typedOld = typed
			}
			run(t, gvk, typed, typedOld)
		}
	})
}

func run(t *testing.T, gvk schema.GroupVersionKind, obj, old map[string]any) {
	objCopy, err := value.DeepCopyMap(obj)
	if err != nil {
		return
	}
	oldCopy, err := value.DeepCopyMap(old)
	if err != nil {
		return
	}
	validation.PrepareForCreate(gvk, obj, validation.Options{})
	validation.Validate(gvk, obj, validation.Options{})
	validation.Warnings(gvk, obj, nil, validation.Options{})
	for _, sub := range fuzzSubresources {
		validation.PrepareForUpdate(gvk, obj, old, validation.Options{Subresource: sub})
		validation.ValidateUpdate(gvk, obj, old, validation.Options{Subresource: sub})
		validation.Warnings(gvk, obj, old, validation.Options{Subresource: sub})
	}
	assert.True(t, value.Equal(obj, objCopy), "%s: the object was modified", gvk)
	assert.True(t, value.Equal(old, oldCopy), "%s: the old object was modified", gvk)
}
