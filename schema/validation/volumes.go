package validation

import (
	"fmt"
	"net"
	"path"
	"regexp"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// Volumes: ValidateVolumes and validateVolumeSource. A volume whose checks all pass is one a
// container may mount; the others are not found (as in the apiserver).

// volumeSources are the VolumeSource fields in the order validateVolumeSource checks them, with
// the path the apiserver names in the "more than 1 volume type" error (its own spellings kept:
// downwarAPI, cephFS) and the path it validates the source under (gcePersistentDisk's checks run
// at persistentDisk, cephfs's at cephfs).
var volumeSources = []struct{ key, forbidPath, checkPath string }{
	{"emptyDir", "emptyDir", "emptyDir"}, {"hostPath", "hostPath", "hostPath"}, {"gitRepo", "gitRepo", "gitRepo"},
	{"gcePersistentDisk", "gcePersistentDisk", "persistentDisk"}, {"awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore"},
	{"secret", "secret", "secret"}, {"nfs", "nfs", "nfs"}, {"iscsi", "iscsi", "iscsi"}, {"glusterfs", "glusterfs", "glusterfs"},
	{"flocker", "flocker", "flocker"}, {"persistentVolumeClaim", "persistentVolumeClaim", "persistentVolumeClaim"},
	{"rbd", "rbd", "rbd"}, {"cinder", "cinder", "cinder"}, {"cephfs", "cephFS", "cephfs"}, {"quobyte", "quobyte", "quobyte"},
	{"downwardAPI", "downwarAPI", "downwardAPI"}, {"fc", "fc", "fc"}, {"flexVolume", "flexVolume", "flexVolume"},
	{"configMap", "configMap", "configMap"}, {"azureFile", "azureFile", "azureFile"}, {"vsphereVolume", "vsphereVolume", "vsphereVolume"},
	{"photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk"}, {"portworxVolume", "portworxVolume", "portworxVolume"},
	{"azureDisk", "azureDisk", "azureDisk"}, {"storageos", "storageos", "storageos"}, {"projected", "projected", "projected"},
	{"scaleIO", "scaleIO", "scaleIO"}, {"csi", "csi", "csi"}, {"ephemeral", "ephemeral", "ephemeral"}, {"image", "image", "image"},
}

const (
	fileModeError     = "must be a number between 0 and 0777 (octal), both inclusive"
	emptyDirModeError = "must be a number between 0 and 01777 (octal), both inclusive"
)

// validateVolumes is ValidateVolumes: the errors and the volumes that passed, by name.
func validateVolumes(p field.Path, vols []any, podName string) (map[string]map[string]any, field.ErrorList) {
	var errs field.ErrorList
	var created map[string]bool // the claims the pod's ephemeral volumes create
	if podName != "" {
		for _, v := range vols {
			if has(mapOf(v), "ephemeral") {
				if created == nil {
					created = map[string]bool{}
				}
				created[podName+"-"+str(mapOf(v), "name")] = true
			}
		}
	}
	// ok holds the names seen so far: a volume's name is added with the volume, when the
	// volume has no error.
	ok := make(map[string]map[string]any, len(vols))
	for i, raw := range vols {
		v := mapOf(raw)
		ip := p.Index(i)
		name := str(v, "name")
		el := volumeSource(ip, v, name, podName)
		if name == "" {
			el = append(el, field.Required(ip.Child("name"), ""))
		} else {
			el = append(el, dns1123Label(ip.Child("name"), name)...)
		}
		if _, dup := ok[name]; dup {
			el = append(el, field.Duplicate(ip.Child("name"), name))
		}
		if len(el) == 0 {
			ok[name] = v
		} else {
			errs = append(errs, el...)
		}
		if pvc, isPVC := v["persistentVolumeClaim"].(map[string]any); isPVC && created[str(pvc, "claimName")] {
			errs = append(errs, field.Invalid(ip.Child("persistentVolumeClaim", "claimName"), str(pvc, "claimName"),
				"must not reference a PVC that gets created for an ephemeral volume"))
		}
	}
	return ok, errs
}

// volumeSource is validateVolumeSource: exactly one source, and that source's checks.
func volumeSource(p field.Path, v map[string]any, volName, podName string) field.ErrorList {
	var errs field.ErrorList
	n := 0
	sources := volumeSources
	// A volume has few keys and usually one source: find the sources among its keys rather
	// than looking up every source; with more than one, walk them all in their order.
	if i, count := volumeSourceKeys(v); count <= 1 {
		sources = nil
		if count == 1 {
			sources = volumeSources[i : i+1]
		}
	}
	for _, s := range sources {
		src, ok := v[s.key].(map[string]any)
		if !ok {
			continue
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(p.Child(s.forbidPath), "may not specify more than 1 volume type"))
		} else {
			n++
			errs = append(errs, sourceChecks(p.Child(s.checkPath), s.key, src)...)
			if s.key == "ephemeral" && podName != "" && volName != "" {
				// The name of the claim the pod's ephemeral volume creates.
				pvc := podName + "-" + volName
				for _, m := range ivalidation.NameIsDNSSubdomain(pvc, false) {
					errs = append(errs, field.Invalid(p.Child("name"), volName, fmt.Sprintf("PVC name %q: %v", pvc, m)))
				}
			}
		}
		if s.key == "iscsi" {
			// The name-length rule runs whether or not iscsi is the first source.
			if _, ok := src["initiatorName"].(string); ok && len(volName+":"+str(src, "targetPortal")) > 64 {
				errs = append(errs, field.Invalid(p.Child("name"), volName, "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
			}
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a volume type"))
	}
	return errs
}

// volumeSourceIndex is the position of each source in volumeSources.
var volumeSourceIndex = func() map[string]int {
	m := make(map[string]int, len(volumeSources))
	for i, s := range volumeSources {
		m[s.key] = i
	}
	return m
}()

// volumeSourceKeys counts the sources set in v (present as objects) and returns the index of
// the last one found.
func volumeSourceKeys(v map[string]any) (index, count int) {
	for k, x := range v {
		if i, ok := volumeSourceIndex[k]; ok {
			if _, isMap := x.(map[string]any); isMap {
				index, count = i, count+1
			}
		}
	}
	return index, count
}

// sourceChecks are the checks of one volume source; sources not listed here have only the
// one-source rule modelled.
func sourceChecks(p field.Path, key string, src map[string]any) field.ErrorList {
	var errs field.ErrorList
	switch key {
	case "emptyDir":
		if q, ok := qty(src["sizeLimit"]); ok && has(src, "sizeLimit") && q.Sign() < 0 {
			errs = append(errs, field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}
		if m, ok := integer(src, "mode"); ok && (m > 0o1777 || m < 0) {
			errs = append(errs, field.Invalid(p.Child("mode"), m, emptyDirModeError))
		}
	case "hostPath":
		hp := str(src, "path")
		if hp == "" {
			return field.ErrorList{field.Required(p.Child("path"), "")}
		}
		errs = append(errs, noBacksteps(p.Child("path"), hp)...)
		if t, ok := src["type"].(string); ok && !contains(hostPathTypes, t) {
			errs = append(errs, field.NotSupported(p.Child("type"), t, hostPathTypes))
		}
	case "gitRepo":
		if str(src, "repository") == "" {
			errs = append(errs, field.Required(p.Child("repository"), ""))
		}
		errs = append(errs, localDescendingPath(p.Child("directory"), str(src, "directory"))...)
	case "secret", "configMap":
		nameKey := "secretName"
		if key == "configMap" {
			nameKey = "name"
		}
		if str(src, nameKey) == "" {
			errs = append(errs, field.Required(p.Child(nameKey), ""))
		}
		if m, ok := integer(src, "defaultMode"); ok && (m > 0o777 || m < 0) {
			errs = append(errs, field.Invalid(p.Child("defaultMode"), m, fileModeError))
		}
		errs = append(errs, userField(p.Child("defaultUser"), src, "defaultUser")...)
		for i, kp := range listOf(src["items"]) {
			errs = append(errs, keyToPath(p.Child("items").Index(i), mapOf(kp))...)
		}
	case "persistentVolumeClaim":
		if str(src, "claimName") == "" {
			errs = append(errs, field.Required(p.Child("claimName"), ""))
		}
	case "nfs":
		np := str(src, "path")
		if str(src, "server") == "" {
			errs = append(errs, field.Required(p.Child("server"), ""))
		}
		if np == "" {
			errs = append(errs, field.Required(p.Child("path"), ""))
		}
		if !path.IsAbs(np) {
			errs = append(errs, field.Invalid(p.Child("path"), np, "must be an absolute path"))
		}
	case "csi":
		errs = append(errs, csiDriverName(p.Child("driver"), str(src, "driver"))...)
		if ref, ok := src["nodePublishSecretRef"].(map[string]any); ok {
			if n := str(ref, "name"); n == "" {
				errs = append(errs, field.Required(p.Child("nodePublishSecretRef", "name"), ""))
			} else {
				for _, m := range ivalidation.NameIsDNSSubdomain(n, false) {
					errs = append(errs, field.Invalid(p.Child("name"), n, m))
				}
			}
		}
	case "gcePersistentDisk", "awsElasticBlockStore":
		idKey := "pdName"
		if key == "awsElasticBlockStore" {
			idKey = "volumeID"
		}
		if str(src, idKey) == "" {
			errs = append(errs, field.Required(p.Child(idKey), ""))
		}
		if n, _ := integer(src, "partition"); n < 0 || n > 255 {
			errs = append(errs, field.Invalid(p.Child("partition"), n, inclusiveRange(1, 255)))
		}
	case "iscsi":
		errs = append(errs, iscsiSource(p, src)...)
	case "glusterfs":
		if str(src, "endpoints") == "" {
			errs = append(errs, field.Required(p.Child("endpoints"), ""))
		}
		if str(src, "path") == "" {
			errs = append(errs, field.Required(p.Child("path"), ""))
		}
	case "flocker":
		name, uuid := str(src, "datasetName"), str(src, "datasetUUID")
		if name == "" && uuid == "" {
			errs = append(errs, field.Required(p, "one of datasetName and datasetUUID is required"))
		}
		if name != "" && uuid != "" {
			errs = append(errs, field.Invalid(p, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
		}
		if strings.Contains(name, "/") {
			errs = append(errs, field.Invalid(p.Child("datasetName"), name, "must not contain '/'"))
		}
	case "rbd":
		if len(listOf(src["monitors"])) == 0 {
			errs = append(errs, field.Required(p.Child("monitors"), ""))
		}
		if str(src, "image") == "" {
			errs = append(errs, field.Required(p.Child("image"), ""))
		}
	case "cinder":
		if str(src, "volumeID") == "" {
			errs = append(errs, field.Required(p.Child("volumeID"), ""))
		}
		if ref, ok := src["secretRef"].(map[string]any); ok && str(ref, "name") == "" {
			errs = append(errs, field.Required(p.Child("secretRef", "name"), ""))
		}
	case "cephfs":
		if len(listOf(src["monitors"])) == 0 {
			errs = append(errs, field.Required(p.Child("monitors"), ""))
		}
	case "quobyte":
		reg := str(src, "registry")
		switch {
		case reg == "":
			errs = append(errs, field.Required(p.Child("registry"), "must be a host:port pair or multiple pairs separated by commas"))
		case len(str(src, "tenant")) >= 65:
			errs = append(errs, field.Required(p.Child("tenant"), "must be a UUID and may not exceed a length of 64 characters"))
		default:
			for _, hp := range strings.Split(reg, ",") {
				if _, _, err := net.SplitHostPort(hp); err != nil {
					errs = append(errs, field.Invalid(p.Child("registry"), reg, "must be a host:port pair or multiple pairs separated by commas"))
				}
			}
		}
		if str(src, "volume") == "" {
			errs = append(errs, field.Required(p.Child("volume"), ""))
		}
	case "downwardAPI":
		if m, ok := integer(src, "defaultMode"); ok && (m > 0o777 || m < 0) {
			errs = append(errs, field.Invalid(p.Child("defaultMode"), m, fileModeError))
		}
		errs = append(errs, userField(p.Child("defaultUser"), src, "defaultUser")...)
		for _, f := range listOf(src["items"]) {
			// The apiserver validates every item at downwardAPI itself, without the index.
			errs = append(errs, downwardAPIFile(p, mapOf(f))...)
		}
	case "fc":
		wwns, wwids := stringList(src["targetWWNs"]), stringList(src["wwids"])
		if len(wwns) < 1 && len(wwids) < 1 {
			errs = append(errs, field.Required(p.Child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"))
		}
		if len(wwns) != 0 && len(wwids) != 0 {
			errs = append(errs, field.Invalid(p.Child("targetWWNs"), wwns, "targetWWNs and wwids can not be specified simultaneously"))
		}
		if len(wwns) != 0 {
			if lun, ok := integer(src, "lun"); !ok {
				errs = append(errs, field.Required(p.Child("lun"), "lun is required if targetWWNs is specified"))
			} else if lun < 0 || lun > 255 {
				errs = append(errs, field.Invalid(p.Child("lun"), lun, inclusiveRange(0, 255)))
			}
		}
	case "flexVolume":
		if str(src, "driver") == "" {
			errs = append(errs, field.Required(p.Child("driver"), ""))
		}
		for _, k := range sortedKeys(mapOf(src["options"])) {
			ns := k
			if parts := strings.SplitN(k, "/", 2); len(parts) == 2 {
				ns = parts[0]
			}
			norm := "." + strings.ToLower(ns)
			if strings.HasSuffix(norm, ".kubernetes.io") || strings.HasSuffix(norm, ".k8s.io") {
				errs = append(errs, field.Invalid(p.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
			}
		}
	case "azureFile":
		if str(src, "secretName") == "" {
			errs = append(errs, field.Required(p.Child("secretName"), ""))
		}
		if str(src, "shareName") == "" {
			errs = append(errs, field.Required(p.Child("shareName"), ""))
		}
	case "vsphereVolume":
		if str(src, "volumePath") == "" {
			errs = append(errs, field.Required(p.Child("volumePath"), ""))
		}
	case "photonPersistentDisk":
		if str(src, "pdID") == "" {
			errs = append(errs, field.Required(p.Child("pdID"), ""))
		}
	case "portworxVolume":
		if str(src, "volumeID") == "" {
			errs = append(errs, field.Required(p.Child("volumeID"), ""))
		}
	case "azureDisk":
		errs = append(errs, azureDisk(p, src)...)
	case "storageos":
		if vn := str(src, "volumeName"); vn == "" {
			errs = append(errs, field.Required(p.Child("volumeName"), ""))
		} else {
			errs = append(errs, dns1123Label(p.Child("volumeName"), vn)...)
		}
		if vns := str(src, "volumeNamespace"); vns != "" {
			errs = append(errs, dns1123Label(p.Child("volumeNamespace"), vns)...)
		}
		if ref, ok := src["secretRef"].(map[string]any); ok && str(ref, "name") == "" {
			errs = append(errs, field.Required(p.Child("secretRef", "name"), ""))
		}
	case "scaleIO":
		for _, k := range []string{"gateway", "system", "volumeName"} {
			if str(src, k) == "" {
				errs = append(errs, field.Required(p.Child(k), ""))
			}
		}
	case "ephemeral":
		// The claim template's spec is PersistentVolumeClaim validation, not modelled here.
		if _, ok := src["volumeClaimTemplate"].(map[string]any); !ok {
			errs = append(errs, field.Required(p.Child("volumeClaimTemplate"), ""))
		}
	case "image":
		if str(src, "reference") == "" {
			errs = append(errs, field.Required(p.Child("reference"), ""))
		}
		errs = append(errs, pullPolicy(p.Child("pullPolicy"), str(src, "pullPolicy"))...)
	}
	return errs
}

var hostPathTypes = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}

// keyToPath is validateKeyToPath.
func keyToPath(p field.Path, kp map[string]any) field.ErrorList {
	var errs field.ErrorList
	if str(kp, "key") == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	}
	kpp := str(kp, "path")
	if kpp == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, localNonReservedPath(p.Child("path"), kpp)...)
	if m, ok := integer(kp, "mode"); ok && (m > 0o777 || m < 0) {
		errs = append(errs, field.Invalid(p.Child("mode"), m, fileModeError))
	}
	return append(errs, userField(p.Child("user"), kp, "user")...)
}

// localNonReservedPath is ValidateLocalNonReservedPath.
func localNonReservedPath(p field.Path, v string) field.ErrorList {
	errs := localDescendingPath(p, v)
	if strings.HasPrefix(v, "..") && !strings.HasPrefix(v, "../") {
		errs = append(errs, field.Invalid(p, v, "must not start with '..'"))
	}
	return errs
}

func userField(p field.Path, m map[string]any, key string) field.ErrorList {
	u, ok := integer(m, key)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range ivalidation.IsValidUserID(u) {
		errs = append(errs, field.Invalid(p, u, msg))
	}
	return errs
}

// csiDriverName is ValidateCSIDriverName.
func csiDriverName(p field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > 63 {
		errs = append(errs, field.TooLong(p, "", 63))
	}
	for _, m := range ivalidation.IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(p, name, m))
	}
	return errs
}

var (
	rxIQN = regexp.MustCompile(`iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`)
	rxEUI = regexp.MustCompile(`^eui.[[:alnum:]]{16}$`)
	rxNAA = regexp.MustCompile(`^naa.[[:alnum:]]{32}$`)
)

// iscsiSource is validateISCSIVolumeSource.
func iscsiSource(p field.Path, src map[string]any) field.ErrorList {
	var errs field.ErrorList
	if str(src, "targetPortal") == "" {
		errs = append(errs, field.Required(p.Child("targetPortal"), ""))
	}
	iqn := str(src, "iqn")
	if iqn == "" {
		errs = append(errs, field.Required(p.Child("iqn"), ""))
	} else if e := iscsiName(p.Child("iqn"), iqn, true); e != nil {
		errs = append(errs, e)
	}
	if lun, _ := integer(src, "lun"); lun < 0 || lun > 255 {
		errs = append(errs, field.Invalid(p.Child("lun"), lun, inclusiveRange(0, 255)))
	}
	d, _ := boolean(src, "chapAuthDiscovery")
	sess, _ := boolean(src, "chapAuthSession")
	if (d || sess) && !has(src, "secretRef") {
		errs = append(errs, field.Required(p.Child("secretRef"), ""))
	}
	if in, ok := src["initiatorName"].(string); ok {
		ip := p.Child("initiatorname")
		if !strings.HasPrefix(in, "iqn") && !strings.HasPrefix(in, "eui") && !strings.HasPrefix(in, "naa") {
			errs = append(errs, field.Invalid(ip, in, "must be valid format starting with iqn, eui, or naa"))
		}
		if e := iscsiName(ip, in, false); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// iscsiName checks an IQN, EUI or NAA name; withPrefixError reports a name with none of the
// three prefixes (the iqn field does, initiatorName reports it itself).
func iscsiName(p field.Path, v string, withPrefixError bool) *field.Error {
	switch {
	case strings.HasPrefix(v, "iqn"):
		if !rxIQN.MatchString(v) {
			return field.Invalid(p, v, "must be valid format")
		}
	case strings.HasPrefix(v, "eui"):
		if !rxEUI.MatchString(v) {
			return field.Invalid(p, v, "must be valid format")
		}
	case strings.HasPrefix(v, "naa"):
		if !rxNAA.MatchString(v) {
			return field.Invalid(p, v, "must be valid format")
		}
	default:
		if withPrefixError {
			return field.Invalid(p, v, "must be valid format starting with iqn, eui, or naa")
		}
	}
	return nil
}

var volumeFieldPaths = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}

// downwardAPIFile is validateDownwardAPIVolumeFile.
func downwardAPIFile(p field.Path, f map[string]any) field.ErrorList {
	var errs field.ErrorList
	fp := str(f, "path")
	if fp == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, localNonReservedPath(p.Child("path"), fp)...)
	fr, hasFR := f["fieldRef"].(map[string]any)
	rf, hasRF := f["resourceFieldRef"].(map[string]any)
	switch {
	case hasFR:
		errs = append(errs, objectFieldSelector(p.Child("fieldRef"), fr, volumeFieldPaths)...)
		if hasRF {
			errs = append(errs, field.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case hasRF:
		errs = append(errs, resourceFieldSelector(p.Child("resourceFieldRef"), rf, true)...)
	default:
		errs = append(errs, field.Required(p, "one of fieldRef and resourceFieldRef is required"))
	}
	if m, ok := integer(f, "mode"); ok && (m > 0o777 || m < 0) {
		errs = append(errs, field.Invalid(p.Child("mode"), m, fileModeError))
	}
	return append(errs, userField(p.Child("user"), f, "user")...)
}

// azureDisk is validateAzureDisk.
func azureDisk(p field.Path, src map[string]any) field.ErrorList {
	var errs field.ErrorList
	if str(src, "diskName") == "" {
		errs = append(errs, field.Required(p.Child("diskName"), ""))
	}
	uri := str(src, "diskURI")
	if uri == "" {
		errs = append(errs, field.Required(p.Child("diskURI"), ""))
	}
	if cm, ok := src["cachingMode"].(string); ok && cm != "None" && cm != "ReadOnly" && cm != "ReadWrite" {
		errs = append(errs, field.NotSupported(p.Child("cachingMode"), cm, []string{"None", "ReadOnly", "ReadWrite"}))
	}
	kind, hasKind := src["kind"].(string)
	if hasKind && kind != "Shared" && kind != "Dedicated" && kind != "Managed" {
		errs = append(errs, field.NotSupported(p.Child("kind"), kind, []string{"Dedicated", "Managed", "Shared"}))
	}
	if hasKind && kind == "Managed" && strings.Index(uri, "/subscriptions/") != 0 {
		errs = append(errs, field.NotSupported(p.Child("diskURI"), uri, []string{"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"}))
	}
	if hasKind && kind != "Managed" && strings.Index(uri, "https://") != 0 {
		errs = append(errs, field.NotSupported(p.Child("diskURI"), uri, []string{"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"}))
	}
	return errs
}
