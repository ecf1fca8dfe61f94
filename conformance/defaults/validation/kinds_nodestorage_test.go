package validation

import (
	"math/rand"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	"k8s.io/kubernetes/pkg/apis/storage"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/csinode"
	"k8s.io/kubernetes/pkg/registry/storage/csistoragecapacity"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"
)

// kindsBKinds are the kinds a default 1.37 apiserver serves beyond the workloads, core and
// policy kinds: node.k8s.io, the CSI and volume kinds of storage.k8s.io, networking's
// IPAddress and ServiceCIDR, flowcontrol and resource.k8s.io.
func kindsBKinds() []harnessKind {
	return append(append([]harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}, resource: "runtimeclasses", seed: seedRuntimeClass,
			complete: true, unordered: func(l string) bool { return strings.Contains(l, " overhead.limits[") },
			create: runtimeclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": runtimeclass.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"}, resource: "csidrivers", seed: seedCSIDriver, complete: true,
			create: csidriver.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": csidriver.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSINode"}, resource: "csinodes", seed: seedCSINode, complete: true,
			stored: csiNodeHealth,
			create: csinode.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": csinode.Strategy, "status": csinode.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity"}, resource: "csistoragecapacities", seed: seedCSIStorageCapacity,
			complete: true, create: csistoragecapacity.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": csistoragecapacity.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttachment"}, resource: "volumeattachments", seed: seedVolumeAttachment,
			complete: true, stored: attachedVolume, unordered: func(l string) bool { return strings.Contains(l, "inlineVolumeSpec.capacity[") },
			create: volumeattachment.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": volumeattachment.Strategy, "status": volumeattachment.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttributesClass"}, resource: "volumeattributesclasses",
			seed: seedVolumeAttributesClass, complete: true,
			create: volumeattributesclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": volumeattributesclass.Strategy}},
	}, ipKinds()...), flowcontrolKinds()...)
}

func seedCSIDriver(r *rand.Rand) runtime.Object {
	d := &storagev1.CSIDriver{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIDriver"}, ObjectMeta: seedMeta(r)}
	d.Name = pick(r, []string{"ebs.csi.aws.com", "pd.csi.storage.gke.io", "hostpath"})
	if r.Intn(2) == 0 {
		d.Spec.AttachRequired = ptr(false)
		d.Spec.FSGroupPolicy = ptr(pick(r, []storagev1.FSGroupPolicy{storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy}))
		d.Spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral}
	}
	if r.Intn(2) == 0 {
		d.Spec.TokenRequests = []storagev1.TokenRequest{{Audience: "vault"}, {Audience: "", ExpirationSeconds: ptr(int64(3600))}}
		if r.Intn(2) == 0 {
			d.Spec.ServiceAccountTokenInSecrets = ptr(true)
		}
	}
	if r.Intn(3) == 0 {
		d.Spec.NodeAllocatableUpdatePeriodSeconds = ptr(int64(60))
		d.Spec.PreventPodSchedulingIfMissing = ptr(true)
	}
	return d
}

func seedCSINode(r *rand.Rand) runtime.Object {
	n := &storagev1.CSINode{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSINode"}, ObjectMeta: seedMeta(r)}
	n.Spec.Drivers = []storagev1.CSINodeDriver{{Name: "ebs.csi.aws.com", NodeID: "i-0123", TopologyKeys: []string{"topology.ebs.csi.aws.com/zone"},
		Allocatable: &storagev1.VolumeNodeResources{Count: ptr(int32(25))}}}
	if r.Intn(2) == 0 {
		n.Spec.Drivers = append(n.Spec.Drivers, storagev1.CSINodeDriver{Name: "hostpath.csi.k8s.io", NodeID: "node-1"})
	}
	return n
}

// csiNodeHealth gives some stored CSINodes the storage health the gate once let in, so that the
// /status rules are reached (PrepareForUpdate keeps it only then).
func csiNodeHealth(r *rand.Rand, obj runtime.Object) {
	n := obj.(*storage.CSINode)
	if r.Intn(2) == 0 {
		return
	}
	n.Status.StorageHealth = []storage.StorageHealth{{Name: "ebs.csi.aws.com", HealthConditions: []storage.StorageHealthCondition{
		{Status: storage.StorageDegraded, Reason: "SlowIO", Message: "m", LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}}}
}

func seedCSIStorageCapacity(r *rand.Rand) runtime.Object {
	c := &storagev1.CSIStorageCapacity{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIStorageCapacity"}, ObjectMeta: seedMeta(r),
		StorageClassName: pick(r, []string{"standard", "fast.ssd"})}
	if r.Intn(4) != 0 {
		c.NodeTopology = &metav1.LabelSelector{MatchLabels: map[string]string{pick(r, []string{"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}): "a"}}
		if r.Intn(2) == 0 {
			c.NodeTopology.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: pick(r, []string{"kubernetes.io/hostname", "beta.kubernetes.io/os"}),
				Operator: metav1.LabelSelectorOpIn, Values: []string{"n1"}}}
		}
	}
	if r.Intn(2) == 0 {
		c.Capacity = ptr(resource.MustParse("100Gi"))
		c.MaximumVolumeSize = ptr(resource.MustParse("10Gi"))
	}
	return c
}

func seedVolumeAttachment(r *rand.Rand) runtime.Object {
	a := &storagev1.VolumeAttachment{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "VolumeAttachment"}, ObjectMeta: seedMeta(r),
		Spec: storagev1.VolumeAttachmentSpec{Attacher: pick(r, []string{"ebs.csi.aws.com", "Example.COM"}), NodeName: "node-1"}}
	if r.Intn(3) == 0 {
		a.Spec.Source.InlineVolumeSpec = &v1.PersistentVolumeSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1"}}}
	} else {
		a.Spec.Source.PersistentVolumeName = ptr("pv-1")
	}
	return a
}

// attachedVolume gives most stored attachments the status the attacher writes.
func attachedVolume(r *rand.Rand, obj runtime.Object) {
	a := obj.(*storage.VolumeAttachment)
	if r.Intn(4) == 0 {
		return
	}
	a.Status = storage.VolumeAttachmentStatus{Attached: true, AttachmentMetadata: map[string]string{"devicePath": "/dev/xvdba"}}
	if r.Intn(2) == 0 {
		a.Status.DetachError = &storage.VolumeError{Message: "busy", ErrorCode: ptr(int32(3)), Time: metav1.Unix(1_700_000_000, 0)}
	}
}

func seedVolumeAttributesClass(r *rand.Rand) runtime.Object {
	return &storagev1.VolumeAttributesClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "VolumeAttributesClass"}, ObjectMeta: seedMeta(r),
		DriverName: pick(r, []string{"ebs.csi.aws.com", "Example.COM/Disk"}), Parameters: map[string]string{"iops": "3000", "throughput": "125"}}
}

func seedRuntimeClass(r *rand.Rand) runtime.Object {
	rc := &nodev1.RuntimeClass{TypeMeta: metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"}, ObjectMeta: seedMeta(r),
		Handler: pick(r, []string{"runc", "kata", "gvisor-1"})}
	if r.Intn(2) == 0 {
		rc.Overhead = &nodev1.Overhead{PodFixed: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m"), v1.ResourceMemory: resource.MustParse("64Mi")}}
		if r.Intn(3) == 0 {
			rc.Overhead.PodFixed["hugepages-2Mi"] = resource.MustParse("2Mi")
		}
	}
	if r.Intn(2) == 0 {
		rc.Scheduling = &nodev1.Scheduling{NodeSelector: map[string]string{pick(r, []string{"kubernetes.io/os", "beta.kubernetes.io/os", "sandbox"}): "linux"}}
		if r.Intn(2) == 0 {
			rc.Scheduling.Tolerations = []v1.Toleration{{Key: "sandbox", Operator: v1.TolerationOpEqual, Value: "kata", Effect: v1.TaintEffectNoSchedule},
				{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(30))}}
		}
	}
	return rc
}
