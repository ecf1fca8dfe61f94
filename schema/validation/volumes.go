package validation

import (
	"path"
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
	names := map[string]bool{}
	created := map[string]bool{}
	if podName != "" {
		for _, v := range vols {
			if has(mapOf(v), "ephemeral") {
				created[podName+"-"+str(mapOf(v), "name")] = true
			}
		}
	}
	ok := make(map[string]map[string]any, len(vols))
	for i, raw := range vols {
		v := mapOf(raw)
		ip := p.Index(i)
		name := str(v, "name")
		el := volumeSource(ip, v)
		if name == "" {
			el = append(el, field.Required(ip.Child("name"), ""))
		} else {
			el = append(el, dns1123Label(ip.Child("name"), name)...)
		}
		if names[name] {
			el = append(el, field.Duplicate(ip.Child("name"), name))
		}
		if len(el) == 0 {
			names[name] = true
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
func volumeSource(p field.Path, v map[string]any) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, s := range volumeSources {
		src, ok := v[s.key].(map[string]any)
		if !ok {
			continue
		}
		if n > 0 && s.key != "emptyDir" {
			errs = append(errs, field.Forbidden(p.Child(s.forbidPath), "may not specify more than 1 volume type"))
			continue
		}
		n++
		errs = append(errs, sourceChecks(p.Child(s.checkPath), s.key, src)...)
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a volume type"))
	}
	return errs
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
