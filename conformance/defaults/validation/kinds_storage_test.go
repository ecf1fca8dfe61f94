package validation

import (
	"math/rand"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
)

// Seeds of the storage kinds: PersistentVolumeClaim, StorageClass, PersistentVolume.

func storageKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, resource: "persistentvolumeclaims", seed: seedClaim,
			complete: true, prepare: true, stored: boundClaim,
			create: persistentvolumeclaim.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": persistentvolumeclaim.Strategy, "status": persistentvolumeclaim.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}, resource: "storageclasses", seed: seedStorageClass, complete: true,
			create: storageclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": storageclass.Strategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, resource: "persistentvolumes", seed: seedPV, complete: true,
			unordered: func(l string) bool { return strings.Contains(l, " spec.capacity[") },
			create:    persistentvolume.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": persistentvolume.Strategy, "status": persistentvolume.StatusStrategy}},
	}
}

// seedPV is a volume of one of the source types (a few of each family: network disks, CSI with
// secret references, local with node affinity), with the optional fields the rules read.
func seedPV(r *rand.Rand) runtime.Object {
	pv := &v1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"}, ObjectMeta: seedMeta(r),
		Spec: v1.PersistentVolumeSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse(pick(r, []string{"1Gi", "10Gi", "500Mi"}))}}}
	affinity := func(key string) *v1.VolumeNodeAffinity {
		return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}
	}
	secret := func() *v1.SecretReference { return &v1.SecretReference{Name: "s", Namespace: "default"} }
	switch r.Intn(12) {
	case 0:
		pv.Spec.HostPath = &v1.HostPathVolumeSource{Path: pick(r, []string{"/data", "/"}), Type: ptr(v1.HostPathDirectoryOrCreate)}
	case 1:
		pv.Spec.NFS = &v1.NFSVolumeSource{Server: "nfs.example.com", Path: "/exports"}
		pv.Spec.MountOptions = []string{"hard"}
	case 2:
		pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1", FSType: "ext4",
			VolumeAttributes: map[string]string{"a": "b"}}
		if r.Intn(2) == 0 {
			pv.Spec.CSI.NodePublishSecretRef, pv.Spec.CSI.ControllerPublishSecretRef = secret(), secret()
		}
		if r.Intn(2) == 0 {
			pv.Spec.VolumeAttributesClassName = ptr("gold")
		}
	case 3:
		pv.Spec.Local = &v1.LocalVolumeSource{Path: "/mnt/disks/a"}
		pv.Spec.NodeAffinity = affinity(pick(r, []string{"kubernetes.io/hostname", "failure-domain.beta.kubernetes.io/zone", "beta.kubernetes.io/os"}))
	case 4:
		pv.Spec.ISCSI = &v1.ISCSIPersistentVolumeSource{TargetPortal: "10.0.0.1:3260", IQN: "iqn.2001-04.com.example:storage", Lun: 1}
		if r.Intn(2) == 0 {
			pv.Spec.ISCSI.InitiatorName = ptr("iqn.2001-04.com.example:node")
			pv.Spec.ISCSI.SessionCHAPAuth = true
			pv.Spec.ISCSI.SecretRef = secret()
		}
	case 5:
		pv.Spec.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: "disk-1", FSType: "ext4"}
	case 6:
		pv.Spec.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1", Partition: 1}
	case 7:
		pv.Spec.Glusterfs = &v1.GlusterfsPersistentVolumeSource{EndpointsName: "ep", Path: "vol", EndpointsNamespace: ptr("default")}
	case 8:
		pv.Spec.CephFS = &v1.CephFSPersistentVolumeSource{Monitors: []string{"10.0.0.1:6789"}, SecretRef: secret()}
	case 9:
		pv.Spec.FlexVolume = &v1.FlexPersistentVolumeSource{Driver: "example.com/flex", Options: map[string]string{"a": "b"}}
	case 10:
		pv.Spec.AzureFile = &v1.AzureFilePersistentVolumeSource{SecretName: "s", ShareName: "share", SecretNamespace: ptr("default")}
	default:
		pv.Spec.RBD = &v1.RBDPersistentVolumeSource{CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img", SecretRef: secret()}
	}
	if pv.Spec.NodeAffinity == nil && r.Intn(4) == 0 {
		pv.Spec.NodeAffinity = affinity(pick(r, []string{"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}))
	}
	if r.Intn(3) == 0 {
		pv.Spec.PersistentVolumeReclaimPolicy = pick(r, []v1.PersistentVolumeReclaimPolicy{v1.PersistentVolumeReclaimRetain, v1.PersistentVolumeReclaimRecycle})
	}
	if r.Intn(3) == 0 {
		pv.Spec.StorageClassName = "standard"
		pv.Spec.VolumeMode = ptr(pick(r, []v1.PersistentVolumeMode{v1.PersistentVolumeFilesystem, v1.PersistentVolumeBlock}))
	}
	if r.Intn(4) == 0 {
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "data"}
	}
	if r.Intn(5) == 0 {
		if pv.Annotations == nil {
			pv.Annotations = map[string]string{}
		}
		pv.Annotations[pick(r, []string{"volume.beta.kubernetes.io/mount-options", "volume.beta.kubernetes.io/storage-class"})] = "x"
	}
	return pv
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
