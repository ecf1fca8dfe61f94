package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
)

// Seeds of the storage kinds: PersistentVolumeClaim.

func storageKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, resource: "persistentvolumeclaims", seed: seedClaim,
			complete: true, prepare: true, stored: boundClaim,
			create: persistentvolumeclaim.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": persistentvolumeclaim.Strategy, "status": persistentvolumeclaim.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}, resource: "storageclasses", seed: seedStorageClass, complete: true,
			create: storageclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": storageclass.Strategy}},
	}
}

func seedClaim(r *rand.Rand) runtime.Object {
	c := &v1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: seedMeta(r),
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(pick(r, []string{"1Gi", "10Gi", "500Mi"}))}}}}
	switch r.Intn(5) {
	case 0:
		c.Spec.StorageClassName = ptr("standard")
		c.Spec.VolumeMode = ptr(v1.PersistentVolumeFilesystem)
	case 1:
		c.Spec.DataSource = &v1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "source"}
	case 2:
		c.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: ptr("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "snap"}
	case 3:
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations["volume.beta.kubernetes.io/storage-class"] = "standard"
	}
	if r.Intn(3) == 0 {
		c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}}
	}
	if r.Intn(3) == 0 {
		c.Spec.VolumeAttributesClassName = ptr("gold")
	}
	if r.Intn(4) == 0 {
		c.Spec.VolumeName = "pv-1"
	}
	return c
}

// boundClaim gives most stored claims the status the persistent volume controller writes.
func boundClaim(r *rand.Rand, obj runtime.Object) {
	c := obj.(*api.PersistentVolumeClaim)
	if r.Intn(4) == 0 {
		return
	}
	c.Spec.VolumeName = "pv-1"
	c.Status.Phase = api.ClaimBound
	c.Status.AccessModes = c.Spec.AccessModes
	c.Status.Capacity = api.ResourceList{api.ResourceStorage: resource.MustParse(pick(r, []string{"1Gi", "512Mi", "20Gi"}))}
	if r.Intn(2) == 0 {
		c.Status.AllocatedResources = api.ResourceList{api.ResourceStorage: c.Status.Capacity[api.ResourceStorage]}
		c.Status.AllocatedResourceStatuses = map[api.ResourceName]api.ClaimResourceStatus{api.ResourceStorage: api.PersistentVolumeClaimControllerResizeInProgress}
	}
	if c.Spec.VolumeAttributesClassName != nil && r.Intn(2) == 0 {
		c.Status.CurrentVolumeAttributesClassName = c.Spec.VolumeAttributesClassName
	}
}

func seedStorageClass(r *rand.Rand) runtime.Object {
	sc := &storagev1.StorageClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"}, ObjectMeta: seedMeta(r),
		Provisioner: pick(r, []string{"ebs.csi.aws.com", "kubernetes.io/no-provisioner", "Example.COM/Disk"})}
	if r.Intn(2) == 0 {
		sc.Parameters = map[string]string{"type": "gp3", "fsType": "ext4"}
	}
	if r.Intn(2) == 0 {
		sc.ReclaimPolicy = ptr(v1.PersistentVolumeReclaimRetain)
		sc.VolumeBindingMode = ptr(storagev1.VolumeBindingWaitForFirstConsumer)
		sc.AllowVolumeExpansion = ptr(true)
	}
	if r.Intn(2) == 0 {
		sc.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
			{Key: pick(r, []string{"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}), Values: []string{"a", "b"}}}}}
	}
	if r.Intn(3) == 0 {
		sc.MountOptions = []string{"debug"}
	}
	return sc
}
