package validation

import (
	"fmt"
	"path"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// PersistentVolume: pkg/registry/core/persistentvolume over ValidatePersistentVolume(Update)
// and ValidatePersistentVolumeStatusUpdate, the volume plugins' mount-option check
// (pkg/volume/validation) and GetWarningsForPersistentVolume. Feature gates at their 1.37
// defaults: VolumeAttributesClass GA (volumeAttributesClassName always checked, never dropped),
// MutablePVNodeAffinity alpha and off (a stored node affinity may only change a beta node label
// to its GA one). The strategy validates no metadata on update beyond the generic check the
// registry runs; it validates the whole volume twice there (ValidatePersistentVolumeUpdate
// calls ValidatePersistentVolume again), which the declarative merge lists once.

// pvSources are the PersistentVolumeSource fields in the order ValidatePersistentVolumeSpec
// checks them, with the path of the "more than 1 volume type" error and the one the source is
// checked under (the apiserver's spellings: gcePersistentDisk checked at persistentDisk, cephfs
// refused at cephFS). flexVolume is never refused as a second source.
var pvSources = []struct{ key, forbidPath, checkPath string }{
	{"hostPath", "hostPath", "hostPath"}, {"gcePersistentDisk", "gcePersistentDisk", "persistentDisk"},
	{"awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore"}, {"glusterfs", "glusterfs", "glusterfs"},
	{"flocker", "flocker", "flocker"}, {"nfs", "nfs", "nfs"}, {"rbd", "rbd", "rbd"}, {"quobyte", "quobyte", "quobyte"},
	{"cephfs", "cephFS", "cephfs"}, {"iscsi", "iscsi", "iscsi"}, {"cinder", "cinder", "cinder"}, {"fc", "fc", "fc"},
	{"flexVolume", "", "flexVolume"}, {"azureFile", "azureFile", "azureFile"}, {"vsphereVolume", "vsphereVolume", "vsphereVolume"},
	{"photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk"}, {"portworxVolume", "portworxVolume", "portworxVolume"},
	{"azureDisk", "azureDisk", "azureDisk"}, {"scaleIO", "scaleIO", "scaleIO"}, {"local", "local", "local"},
	{"storageos", "storageos", "storageos"}, {"csi", "csi", "csi"},
}

// mountOptionSources are the sources whose plugins take the mount-options annotation.
var mountOptionSources = []string{"gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte",
	"iscsi", "cinder", "cephfs", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk"}

const mountOptionsAnnotation = "volume.beta.kubernetes.io/mount-options"

// betaToGANodeLabels are the deprecated node labels a stored volume's node affinity may move to
// their GA names.
var betaToGANodeLabels = map[string]string{
	"failure-domain.beta.kubernetes.io/zone":   "topology.kubernetes.io/zone",
	"failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
	"beta.kubernetes.io/os":                    "kubernetes.io/os",
	"beta.kubernetes.io/arch":                  "kubernetes.io/arch",
	"beta.kubernetes.io/instance-type":         "node.kubernetes.io/instance-type",
}

func validatePersistentVolume(obj map[string]any, _ Options) field.ErrorList {
	errs := persistentVolume(obj, false)
	return distinct(append(errs, pvMountOptions(obj)...))
}

// persistentVolume is ValidatePersistentVolume: metadata (cluster-scoped, DNS subdomain names)
// and the spec.
func persistentVolume(obj map[string]any, allowInvalidNodeAffinity bool) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	name := str(mapOf(obj["metadata"]), "name")
	return append(errs, pvSpec(field.NewPath("spec"), mapOf(obj["spec"]), name, pvSpecOptions{allowInvalidNodeAffinity: allowInvalidNodeAffinity, volumeAttributesClass: true})...)
}

func validatePersistentVolumeUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		errs := coreObjectMetaUpdate(obj, old)
		if str(mapOf(obj["metadata"]), "resourceVersion") == "" {
			errs = append(errs, field.Required(field.NewPath("resourceVersion"), ""))
		}
		return distinct(errs)
	case "":
	default:
		return nil
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	allow := termsHaveInvalidLabelValue(listOf(mapOf(mapOf(oldSpec["nodeAffinity"])["required"])["nodeSelectorTerms"]))
	errs := persistentVolume(obj, allow)
	errs = append(errs, pvMountOptions(obj)...)
	errs = append(errs, persistentVolume(obj, allow)...)

	// The source is immutable, but for a controllerExpandSecretRef set where there was none.
	src, oldSrc := pvSource(spec), pvSource(oldSpec)
	if csi, ok := src["csi"].(map[string]any); ok && has(csi, "controllerExpandSecretRef") {
		if oldCSI, ok := oldSrc["csi"].(map[string]any); ok && !has(oldCSI, "controllerExpandSecretRef") {
			csi = copyMap(csi)
			delete(csi, "controllerExpandSecretRef")
			src["csi"] = csi
		}
	}
	if !goSemanticEqual(goTypeAt("", "PersistentVolume", "spec"), src, oldSrc) {
		// The apiserver appends a diff of the internal sources (go-cmp's, whose spacing is
		// randomised on purpose); its first line is the contract.
		errs = append(errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), "spec.persistentvolumesource is immutable after creation\n"+pvSourceDiff(oldSrc, src)))
	}
	vm, hasVM := spec["volumeMode"].(string)
	ovm, hasOVM := oldSpec["volumeMode"].(string)
	if hasVM != hasOVM || vm != ovm {
		var bad any
		if hasVM {
			bad = vm
		}
		errs = append(errs, field.Invalid(field.NewPath("volumeMode"), bad, "field is immutable"))
	}
	if oldNA, ok := oldSpec["nodeAffinity"].(map[string]any); ok {
		na, hasNA := spec["nodeAffinity"].(map[string]any)
		t := goTypeAt("", "PersistentVolume", "spec", "nodeAffinity")
		if !hasNA || !goSemanticEqual(t.Deref(), na, maskBetaNodeLabels(oldNA, na)) {
			var bad any
			if hasNA {
				bad = internalGo(t.Deref(), na)
			}
			errs = append(errs, field.Invalid(field.NewPath("nodeAffinity"), bad, "field is immutable, except for updating from beta label to GA"))
		}
	}
	_, hasVAC := spec["volumeAttributesClassName"].(string)
	_, hadVAC := oldSpec["volumeAttributesClassName"].(string)
	if hadVAC && !hasVAC {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return distinct(errs)
}

// pvSource is the PersistentVolumeSource of spec: its inline source fields only.
func pvSource(spec map[string]any) map[string]any {
	out := map[string]any{}
	for _, s := range pvSources {
		if v, ok := spec[s.key]; ok && v != nil {
			out[s.key] = v
		}
	}
	return out
}

// pvSourceFields are the internal PersistentVolumeSource's fields in declaration order: v1
// name and Go name.
var pvSourceFields = [][2]string{{"gcePersistentDisk", "GCEPersistentDisk"}, {"awsElasticBlockStore", "AWSElasticBlockStore"},
	{"hostPath", "HostPath"}, {"glusterfs", "Glusterfs"}, {"nfs", "NFS"}, {"rbd", "RBD"}, {"iscsi", "ISCSI"}, {"cinder", "Cinder"},
	{"cephfs", "CephFS"}, {"fc", "FC"}, {"flocker", "Flocker"}, {"flexVolume", "FlexVolume"}, {"azureFile", "AzureFile"},
	{"vsphereVolume", "VsphereVolume"}, {"quobyte", "Quobyte"}, {"azureDisk", "AzureDisk"}, {"photonPersistentDisk", "PhotonPersistentDisk"},
	{"portworxVolume", "PortworxVolume"}, {"scaleIO", "ScaleIO"}, {"local", "Local"}, {"storageos", "StorageOS"}, {"csi", "CSI"}}

// pvSourceDiff is apimachinery's diff.Diff of the two internal PersistentVolumeSource values:
// a unified diff of their JSON (Go field names, every field present) indented by one space.
func pvSourceDiff(old, new map[string]any) string {
	render := func(src map[string]any) []string {
		t := goTypeAt("", "PersistentVolume", "spec")
		b := []byte{'{'}
		for i, f := range pvSourceFields {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, f[1]...)
			b = append(b, '"', ':')
			b = append(b, internalGo(t.Field(f[0]), src[f[0]])...)
		}
		return difflib.SplitLines(indentedJSON(append(b, '}')))
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: render(old), B: render(new), Context: 3})
	if err != nil {
		return fmt.Sprintf("error generating diff: %v", err)
	}
	return d
}

// maskBetaNodeLabels is old with each node selector requirement key that is a beta node label
// replaced by the GA label the new requirement at the same place has: the apiserver's equality
// of the two affinities ignores such a change.
func maskBetaNodeLabels(old, new map[string]any) map[string]any {
	oldReq, ok := old["required"].(map[string]any)
	newReq, ok2 := new["required"].(map[string]any)
	if !ok || !ok2 {
		return old
	}
	oldTerms, newTerms := listOf(oldReq["nodeSelectorTerms"]), listOf(newReq["nodeSelectorTerms"])
	if len(oldTerms) != len(newTerms) {
		return old
	}
	terms := make([]any, len(oldTerms))
	for i, t := range oldTerms {
		ot, nt := mapOf(t), mapOf(newTerms[i])
		if ot == nil {
			terms[i] = t
			continue
		}
		term := copyMap(ot)
		for _, k := range []string{"matchExpressions", "matchFields"} {
			ol, nl := listOf(ot[k]), listOf(nt[k])
			if len(ol) != len(nl) || len(ol) == 0 {
				continue
			}
			reqs := make([]any, len(ol))
			for j, r := range ol {
				or, nr := mapOf(r), mapOf(nl[j])
				reqs[j] = r
				if or != nil && str(or, "key") != str(nr, "key") && betaToGANodeLabels[str(or, "key")] == str(nr, "key") {
					m := copyMap(or)
					m["key"] = str(nr, "key")
					reqs[j] = m
				}
			}
			term[k] = reqs
		}
		terms[i] = term
	}
	req := copyMap(oldReq)
	req["nodeSelectorTerms"] = terms
	out := copyMap(old)
	out["required"] = req
	return out
}

// termsHaveInvalidLabelValue is helper.HasInvalidLabelValueInNodeSelectorTerms: a value of a
// match expression that is not a label value (a stored object keeps such values valid).
func termsHaveInvalidLabelValue(terms []any) bool {
	for _, t := range terms {
		for _, e := range listOf(mapOf(t)["matchExpressions"]) {
			for _, v := range stringList(mapOf(e)["values"]) {
				if len(validation.IsValidLabelValue(v)) != 0 {
					return true
				}
			}
		}
	}
	return false
}

// pvMountOptions is pkg/volume/validation's ValidatePersistentVolume: the mount-options
// annotation only on sources whose plugins take it.
func pvMountOptions(obj map[string]any) field.ErrorList {
	spec := mapOf(obj["spec"])
	for _, k := range mountOptionSources {
		if has(spec, k) {
			return nil
		}
	}
	if _, ok := mapOf(mapOf(obj["metadata"])["annotations"])[mountOptionsAnnotation]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath("metadata").Child("annotations", mountOptionsAnnotation), "may not specify mount options for this volume type")}
	}
	return nil
}

// pvSpecOptions are ValidatePersistentVolumeSpec's switches: inline for a spec inside another
// object (a VolumeAttachment's inlineVolumeSpec), and the PersistentVolumeSpecValidationOptions.
type pvSpecOptions struct {
	inline                   bool
	allowInvalidNodeAffinity bool
	volumeAttributesClass    bool // EnableVolumeAttributesClass
}

// pvSpec is ValidatePersistentVolumeSpec.
func pvSpec(p field.Path, spec map[string]any, pvName string, o pvSpecOptions) field.ErrorList {
	var errs field.ErrorList
	if o.inline {
		if has(spec, "claimRef") {
			errs = append(errs, field.Forbidden(p.Child("claimRef"), "may not be specified in the context of inline volumes"))
		}
		if len(mapOf(spec["capacity"])) != 0 {
			errs = append(errs, field.Forbidden(p.Child("capacity"), "may not be specified in the context of inline volumes"))
		}
		if !has(spec, "csi") {
			errs = append(errs, field.Required(p.Child("csi"), "has to be specified in the context of inline volumes"))
		}
	}
	modes := stringList(spec["accessModes"])
	if len(modes) == 0 {
		errs = append(errs, field.Required(p.Child("accessModes"), ""))
	}
	supported := []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	rwop, other := false, false
	for _, m := range modes {
		if !contains(supported, m) {
			errs = append(errs, field.NotSupported(p.Child("accessModes"), m, supported))
		}
		if m == "ReadWriteOncePod" {
			rwop = true
		} else if contains(supported, m) {
			other = true
		}
	}
	if rwop && other {
		errs = append(errs, field.Forbidden(p.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	if !o.inline {
		capacity := mapOf(spec["capacity"])
		cp := p.Child("capacity")
		if len(capacity) == 0 {
			errs = append(errs, field.Required(cp, ""))
		}
		if _, ok := capacity["storage"]; !ok || len(capacity) > 1 {
			errs = append(errs, field.NotSupported(cp, quantityMap(capacity), []string{"storage"}))
		}
		for _, k := range sortedKeys(capacity) {
			errs = append(errs, basicResource(cp.Key(k), capacity[k])...)
			if q, ok := qtyOrZero(capacity[k]); ok && q.Sign() <= 0 {
				errs = append(errs, field.Invalid(cp.Key(k), q.String(), "must be greater than zero"))
			}
		}
	}
	policy, _ := spec["persistentVolumeReclaimPolicy"].(string)
	switch {
	case policy == "":
	case o.inline:
		if policy != "Retain" {
			errs = append(errs, field.Forbidden(p.Child("persistentVolumeReclaimPolicy"), "may only be Retain in the context of inline volumes"))
		}
	case policy != "Delete" && policy != "Recycle" && policy != "Retain":
		errs = append(errs, field.NotSupported(p.Child("persistentVolumeReclaimPolicy"), policy, []string{"Delete", "Recycle", "Retain"}))
	}
	na, hasNA := spec["nodeAffinity"].(map[string]any)
	switch {
	case hasNA && o.inline:
		errs = append(errs, field.Forbidden(p.Child("nodeAffinity"), "may not be specified in the context of inline volumes"))
		hasNA = false // not "specified" for the local volume's requirement
	case hasNA:
		if req, ok := na["required"].(map[string]any); ok {
			errs = append(errs, NodeSelector(p.Child("nodeAffinity", "required"), req, o.allowInvalidNodeAffinity)...)
		} else {
			errs = append(errs, field.Required(p.Child("nodeAffinity", "required"), "must specify required node constraints"))
		}
	}
	n := 0
	for _, s := range pvSources {
		src, ok := spec[s.key].(map[string]any)
		if !ok {
			continue
		}
		if n > 0 && s.forbidPath != "" {
			errs = append(errs, field.Forbidden(p.Child(s.forbidPath), "may not specify more than 1 volume type"))
			continue
		}
		n++
		errs = append(errs, pvSourceChecks(p.Child(s.checkPath), s.key, src, pvName)...)
		if s.key == "local" && !hasNA {
			errs = append(errs, field.Required(p.Child("nodeAffinity"), "Local volume requires node affinity"))
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a volume type"))
	}
	if hp, ok := spec["hostPath"].(map[string]any); ok && path.Clean(str(hp, "path")) == "/" && policy == "Recycle" {
		errs = append(errs, field.Forbidden(p.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if sc := str(spec, "storageClassName"); sc != "" {
		if o.inline {
			errs = append(errs, field.Forbidden(p.Child("storageClassName"), "may not be specified in the context of inline volumes"))
		} else {
			errs = append(errs, invalids(p.Child("storageClassName"), sc, validation.NameIsDNSSubdomain(sc, false))...)
		}
	}
	if vm, ok := spec["volumeMode"].(string); ok {
		if o.inline && vm != "Filesystem" {
			errs = append(errs, field.Forbidden(p.Child("volumeMode"), "may not specify volumeMode other than Filesystem in the context of inline volumes"))
		} else if !o.inline && vm != "Block" && vm != "Filesystem" {
			errs = append(errs, field.NotSupported(p.Child("volumeMode"), vm, []string{"Block", "Filesystem"}))
		}
	}
	if vac, ok := spec["volumeAttributesClassName"].(string); ok && o.volumeAttributesClass {
		if vac == "" {
			errs = append(errs, field.Required(p.Child("volumeAttributesClassName"), "an empty string is disallowed"))
		} else {
			errs = append(errs, invalids(p.Child("volumeAttributesClassName"), vac, validation.NameIsDNSSubdomain(vac, false))...)
		}
		if !has(spec, "csi") {
			errs = append(errs, field.Required(p.Child("csi"), "has to be specified when using volumeAttributesClassName"))
		}
	}
	return errs
}

// pvSourceChecks are the checks of one PersistentVolumeSource: the pod volume's where the
// source types are the same, the PersistentVolume ones (secret references with namespaces,
// the iSCSI name rule on the volume's name) otherwise.
func pvSourceChecks(p field.Path, key string, src map[string]any, pvName string) field.ErrorList {
	var errs field.ErrorList
	switch key {
	case "glusterfs":
		errs = sourceChecks(p, key, src)
		if ns, ok := src["endpointsNamespace"].(string); ok {
			if ns == "" {
				errs = append(errs, field.Invalid(p.Child("endpointsNamespace"), ns, "if the endpointnamespace is set, it must be a valid namespace name"))
			} else {
				errs = append(errs, invalids(p.Child("endpointsNamespace"), ns, validation.NameIsDNSLabel(ns, false))...)
			}
		}
	case "iscsi":
		errs = pvISCSI(p, src, pvName)
	case "cinder", "storageos":
		errs = sourceChecks(p, key, src)
		if ref, ok := src["secretRef"].(map[string]any); ok && str(ref, "namespace") == "" {
			errs = append(errs, field.Required(p.Child("secretRef", "namespace"), ""))
		}
	case "azureFile":
		errs = sourceChecks(p, key, src)
		if ns, ok := src["secretNamespace"].(string); ok && ns == "" {
			errs = append(errs, field.Required(p.Child("secretNamespace"), ""))
		}
	case "local":
		lp := str(src, "path")
		if lp == "" {
			return field.ErrorList{field.Required(p.Child("path"), "")}
		}
		errs = noBacksteps(p.Child("path"), lp)
	case "csi":
		errs = csiDriverName(p.Child("driver"), str(src, "driver"))
		if str(src, "volumeHandle") == "" {
			errs = append(errs, field.Required(p.Child("volumeHandle"), ""))
		}
		for _, k := range []string{"controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef", "nodeExpandSecretRef"} {
			if ref, ok := src[k].(map[string]any); ok {
				errs = append(errs, pvSecretReference(p.Child(k), ref)...)
			}
		}
	default:
		errs = sourceChecks(p, key, src)
	}
	return errs
}

// pvSecretReference is validatePVSecretReference.
func pvSecretReference(p field.Path, ref map[string]any) field.ErrorList {
	var errs field.ErrorList
	if n := str(ref, "name"); n == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, invalids(p.Child("name"), n, validation.IsDNS1123Subdomain(n))...)
	}
	if ns := str(ref, "namespace"); ns == "" {
		errs = append(errs, field.Required(p.Child("namespace"), ""))
	} else {
		errs = append(errs, dns1123Label(p.Child("namespace"), ns)...)
	}
	return errs
}

// pvISCSI is validateISCSIPersistentVolumeSource.
func pvISCSI(p field.Path, src map[string]any, pvName string) field.ErrorList {
	var errs field.ErrorList
	portal := str(src, "targetPortal")
	if portal == "" {
		errs = append(errs, field.Required(p.Child("targetPortal"), ""))
	}
	_, hasInitiator := src["initiatorName"].(string)
	if hasInitiator && len(pvName+":"+portal) > 64 {
		errs = append(errs, field.Invalid(p.Child("targetportal"), portal, "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
	}
	iqn := str(src, "iqn")
	if iqn == "" {
		errs = append(errs, field.Required(p.Child("iqn"), ""))
	} else if e := iscsiName(p.Child("iqn"), iqn, false); e != nil {
		errs = append(errs, e)
	} else if !iscsiPrefixed(iqn) {
		errs = append(errs, field.Invalid(p.Child("iqn"), iqn, "must be valid format"))
	}
	if lun, _ := integer(src, "lun"); lun < 0 || lun > 255 {
		errs = append(errs, field.Invalid(p.Child("lun"), lun, inclusiveRange(0, 255)))
	}
	d, _ := boolean(src, "chapAuthDiscovery")
	sess, _ := boolean(src, "chapAuthSession")
	if (d || sess) && !has(src, "secretRef") {
		errs = append(errs, field.Required(p.Child("secretRef"), ""))
	}
	if ref, ok := src["secretRef"].(map[string]any); ok && str(ref, "name") == "" {
		errs = append(errs, field.Required(p.Child("secretRef", "name"), ""))
	}
	if in, ok := src["initiatorName"].(string); ok {
		ip := p.Child("initiatorname")
		if !iscsiPrefixed(in) {
			errs = append(errs, field.Invalid(ip, in, "must be valid format"))
		}
		if e := iscsiName(ip, in, false); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

func iscsiPrefixed(v string) bool {
	return len(v) >= 3 && (v[:3] == "iqn" || v[:3] == "eui" || v[:3] == "naa")
}

// pvWarnings is GetWarningsForPersistentVolume (create and update; /status warns of nothing).
func pvWarnings(obj, _ map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	var out []string
	ann := mapOf(mapOf(obj["metadata"])["annotations"])
	ap := field.NewPath("metadata", "annotations")
	if _, ok := ann[betaStorageClassAnnotation]; ok {
		out = append(out, fmt.Sprintf("%s: deprecated since v1.8; use \"storageClassName\" attribute instead", ap.Key(betaStorageClassAnnotation)))
	}
	if _, ok := ann[mountOptionsAnnotation]; ok {
		out = append(out, fmt.Sprintf("%s: deprecated since v1.31; use \"mountOptions\" attribute instead", ap.Key(mountOptionsAnnotation)))
	}
	spec := mapOf(obj["spec"])
	if str(spec, "persistentVolumeReclaimPolicy") == "Recycle" {
		out = append(out, "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.")
	}
	if req, ok := mapOf(spec["nodeAffinity"])["required"].(map[string]any); ok {
		tp := field.NewPath("spec", "nodeAffinity", "required", "nodeSelectorTerms")
		for i, t := range listOf(req["nodeSelectorTerms"]) {
			out = append(out, nodeSelectorTermWarnings(tp.Index(i), mapOf(t), false)...)
		}
	}
	for _, d := range []struct{ key, path, msg string }{
		{"cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"},
		{"photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
		{"scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
		{"storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
		{"glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
		{"rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"},
	} {
		if has(spec, d.key) {
			out = append(out, "spec."+d.path+": "+d.msg)
		}
	}
	return out
}

// preparePVCreate is the strategy's PrepareForCreate beyond the status reset: the phase is
// Pending since now.
func preparePVCreate(obj map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	out := copyMap(obj)
	out["status"] = map[string]any{"phase": "Pending", "lastPhaseTransitionTime": rfc3339(opts.Now)}
	return out
}

// preparePVUpdate is the /status strategy's PrepareForUpdate beyond the spec reset: a phase
// change without a new transition time gets now; an unchanged phase without one keeps the
// stored one.
func preparePVUpdate(obj, old map[string]any, opts Options) map[string]any {
	if opts.Subresource != "status" {
		return obj
	}
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	t, hasT := st["lastPhaseTransitionTime"].(string)
	oldT, hasOldT := oldSt["lastPhaseTransitionTime"].(string)
	var set any
	switch {
	case str(st, "phase") == str(oldSt, "phase") && !hasT:
		if !hasOldT {
			return obj
		}
		set = oldT
	case str(st, "phase") != str(oldSt, "phase") && (!hasT || hasOldT && sameTime(t, oldT)):
		set = rfc3339(opts.Now)
	default:
		return obj
	}
	ns := copyMap(st)
	ns["lastPhaseTransitionTime"] = set
	out := copyMap(obj)
	out["status"] = ns
	return out
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func sameTime(a, b string) bool {
	ta, ok1 := timeOrZero(a)
	tb, ok2 := timeOrZero(b)
	return ok1 && ok2 && ta.Equal(tb)
}
