package validation

import (
	"fmt"
	"math/rand"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/resource"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
)

// ResourceClaim /status. The stored claim gets a status a scheduler and a driver would write
// (an allocation of its requests, reservations, device status); the update mutates it at one
// path. The strategy's authorization of the synthetic binding and driver subresources asks an
// authorizer that allows everything (writepath does not model authorization: the caller is
// allowed). Runs in the plain namespace, so that a new allocation granting admin access is the
// reference's Forbidden.

func claimStatusKinds() []harnessKind {
	rc := resourceclaim.NewStrategy(adminNamespaces, authorizerfactory.NewAlwaysAllowAuthorizer())
	st := resourceclaim.NewStatusStrategy(rc)
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"}, name: "ResourceClaim.status",
			resource: "resourceclaims", seed: seedResourceClaim, complete: true, updatesOnly: true, stored: storedClaimStatus,
			create: rc, updates: map[string]rest.RESTUpdateStrategy{"status": st},
			namespace: "validation-plain", options: withNamespace},
		{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"}, name: "ResourceClaim.allocate",
			resource: "resourceclaims", seed: seedResourceClaim, complete: true, updatesOnly: true, stored: storedUnallocated, next: nextAllocation,
			create: rc, updates: map[string]rest.RESTUpdateStrategy{"status": st},
			namespace: "validation-plain", options: withNamespace},
	}
}

var (
	statusDrivers = []string{"gpu.example.com", "dra.example.com"}
	statusPools   = []string{"pool-a", "node-1/gpus"}
	statusIPs     = []string{"10.0.0.1/24", "fd00::1/64", "10.0.0.0/8"}
)

func seedUID(r *rand.Rand) string {
	return fmt.Sprintf("7d6f2c1e-0000-4000-8000-%012d", r.Intn(1000))
}

// storedClaimStatus gives a created claim a valid status: three times in four an allocation of
// each of its requests (or of a subrequest), with reservations and device status.
func storedClaimStatus(r *rand.Rand, obj runtime.Object) {
	claim := obj.(*resource.ResourceClaim)
	if r.Intn(8) == 0 {
		claim.DeletionTimestamp = &metav1.Time{Time: metav1.Unix(1_700_000_100, 0).Time}
	}
	var status resourcev1.ResourceClaimStatus
	if r.Intn(4) != 0 {
		status = seedClaimStatus(r, v1Requests(claim), false)
	}
	convertStatus(claim, &status)
}

// storedUnallocated: a stored claim without allocation (sometimes deleted), which the update
// (nextAllocation) allocates.
func storedUnallocated(r *rand.Rand, obj runtime.Object) {
	claim := obj.(*resource.ResourceClaim)
	if r.Intn(8) == 0 {
		claim.DeletionTimestamp = &metav1.Time{Time: metav1.Unix(1_700_000_100, 0).Time}
	}
}

// nextAllocation: the update writes a new allocation, reservations and device status, a few of
// their values drawn bad.
func nextAllocation(r *rand.Rand, obj runtime.Object) {
	claim := obj.(*resourcev1.ResourceClaim)
	claim.Status = seedClaimStatus(r, claim.Spec.Devices.Requests, true)
}

func v1Requests(claim *resource.ResourceClaim) []resourcev1.DeviceRequest {
	out, err := legacyscheme.Scheme.ConvertToVersion(claim.DeepCopy(), resourcev1.SchemeGroupVersion)
	if err != nil {
		panic(err)
	}
	return out.(*resourcev1.ResourceClaim).Spec.Devices.Requests
}

func seedClaimStatus(r *rand.Rand, requests []resourcev1.DeviceRequest, bad bool) resourcev1.ResourceClaimStatus {
	some := func(valid, invalid []string) string {
		if bad {
			return rarely(r, valid, invalid)
		}
		return pick(r, valid)
	}
	var status resourcev1.ResourceClaimStatus
	alloc := &resourcev1.AllocationResult{}
	for i, req := range requests {
		name := req.Name
		if len(req.FirstAvailable) > 0 {
			name += "/" + req.FirstAvailable[r.Intn(len(req.FirstAvailable))].Name
		}
		name = some([]string{name}, []string{"nope", "a/b/c", "Bad_Req", req.Name + "/nope"})
		res := resourcev1.DeviceRequestAllocationResult{Request: name, Driver: some(statusDrivers, badSliceDrivers),
			Pool: some(statusPools, badSlicePools), Device: some([]string{fmt.Sprintf("dev-%d", i)}, []string{"", "Dev_0", "a.b"})}
		if req.Exactly != nil && req.Exactly.AdminAccess != nil {
			res.AdminAccess = ptr(*req.Exactly.AdminAccess)
		} else if bad && r.Intn(10) == 0 {
			res.AdminAccess = ptr(true)
		}
		if r.Intn(4) == 0 {
			res.ShareID = ptr(types.UID(some([]string{seedUID(r)}, []string{"x", "7D6F2C1E-0000-4000-8000-000000000001", "{7d6f2c1e-0000-4000-8000-000000000001}", "7d6f2c1e00004000800000000000000a"})))
		}
		if r.Intn(4) == 0 {
			res.BindingConditions = []string{some([]string{"example.com/ready"}, sliceConditions)}
			res.BindingFailureConditions = []string{some([]string{"example.com/failed"}, sliceConditions)}
		}
		if r.Intn(4) == 0 {
			res.Tolerations = []resourcev1.DeviceToleration{{Key: "example.com/unhealthy", Operator: "Exists", Effect: "NoSchedule"}}
		}
		alloc.Devices.Results = append(alloc.Devices.Results, res)
	}
	if r.Intn(3) == 0 && len(requests) > 0 {
		alloc.Devices.Config = []resourcev1.DeviceAllocationConfiguration{{
			Source:              resourcev1.AllocationConfigSource(some([]string{"FromClaim", "FromClass"}, []string{"", "FromPod"})),
			Requests:            []string{some([]string{requests[0].Name}, []string{"nope"})},
			DeviceConfiguration: resourcev1.DeviceConfiguration{Opaque: seedOpaqueConfig(r)}}}
	}
	if r.Intn(2) == 0 {
		alloc.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}}}}}
	}
	if r.Intn(2) == 0 {
		alloc.AllocationTimestamp = &metav1.Time{Time: metav1.Unix(1_700_000_050, 0).Time}
	}
	status.Allocation = alloc
	for i, n := 0, r.Intn(3); i < n; i++ {
		status.ReservedFor = append(status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: fmt.Sprintf("p%d", i), UID: types.UID(seedUID(r))})
	}
	for _, res := range alloc.Devices.Results {
		if r.Intn(2) == 0 {
			continue
		}
		ds := resourcev1.AllocatedDeviceStatus{Driver: res.Driver, Pool: res.Pool, Device: res.Device}
		if res.ShareID != nil {
			ds.ShareID = ptr(string(*res.ShareID))
		}
		if bad && r.Intn(10) == 0 {
			ds.Device = "other"
		}
		if r.Intn(2) == 0 {
			ds.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Configured", Message: "ok",
				LastTransitionTime: metav1.Unix(1_700_000_060, 0)}}
		}
		if r.Intn(3) == 0 {
			ds.Data = &runtime.RawExtension{Raw: []byte(some([]string{`{"a":"b"}`}, []string{`[1]`, `"s"`}))}
		}
		if r.Intn(2) == 0 {
			ds.NetworkData = &resourcev1.NetworkDeviceData{InterfaceName: "eth0", IPs: []string{some(statusIPs[:2], statusIPs)},
				HardwareAddress: "aa:bb:cc:dd:ee:ff"}
		}
		status.Devices = append(status.Devices, ds)
	}
	return status
}

func convertStatus(claim *resource.ResourceClaim, status *resourcev1.ResourceClaimStatus) {
	if err := legacyscheme.Scheme.Convert(status, &claim.Status, nil); err != nil {
		panic(err)
	}
}
