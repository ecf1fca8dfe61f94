package validation

import (
	"fmt"

	"github.com/writepath/writepath/field"
)

// The rules of spec.os and Windows host-process containers (validateWindowsHostProcessPod,
// validateOS, validateLinux, validateWindows).

// windowsHostProcess is validateWindowsHostProcessPod (privileged containers are disallowed:
// the apiserver's --allow-privileged defaults to false).
func windowsHostProcess(p field.Path, spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	podHP, podSet := boolean(mapOf(mapOf(spec["securityContext"])["windowsOptions"]), "hostProcess")
	count, hpCount := 0, 0
	eachContainer(spec, func(key string, i int, c map[string]any) {
		count++
		hp, set := boolean(mapOf(mapOf(c["securityContext"])["windowsOptions"]), "hostProcess")
		if podSet && set && podHP != hp {
			errs = append(errs, field.Invalid(p.Child(key).Index(i).Child("securityContext", "windowsOptions", "hostProcess"), hp,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", podHP)))
		}
		if (set && hp) || (!set && podSet && podHP) {
			hpCount++
		}
	})
	if hpCount > 0 {
		if hpCount != count {
			errs = append(errs, field.Invalid(p, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
		}
		if hn, _ := boolean(spec, "hostNetwork"); !hn {
			errs = append(errs, field.Invalid(p.Child("hostNetwork"), hn, "hostNetwork must be true if pod contains any hostProcess containers"))
		}
		errs = append(errs, field.Forbidden(p, "hostProcess containers are disallowed by cluster policy"))
	}
	return errs
}

// osRules is validateOS, then validateLinux or validateWindows when it passes.
func osRules(p field.Path, spec map[string]any) field.ErrorList {
	os, ok := spec["os"].(map[string]any)
	if !ok {
		return nil
	}
	switch name := str(os, "name"); name {
	case "":
		return field.ErrorList{field.Required(p.Child("os", "name"), "")}
	case "linux":
		return linuxRules(p, spec)
	case "windows":
		return windowsRules(p, spec)
	default:
		return field.ErrorList{field.NotSupported(p.Child("os"), name, []string{"linux", "windows"})}
	}
}

func linuxRules(p field.Path, spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	if has(mapOf(spec["securityContext"]), "windowsOptions") {
		errs = append(errs, field.Forbidden(p.Child("securityContext", "windowsOptions"), "windows options cannot be set for a linux pod"))
	}
	eachContainer(spec, func(key string, i int, c map[string]any) {
		if has(mapOf(c["securityContext"]), "windowsOptions") {
			errs = append(errs, field.Forbidden(p.Child(key).Index(i).Child("securityContext", "windowsOptions"), "windows options cannot be set for a linux pod"))
		}
	})
	return errs
}

var (
	windowsPodForbidden = []string{"appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy",
		"sysctls", "runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy", "seLinuxChangePolicy"}
	windowsContainerForbidden = []string{"appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
		"readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup"}
)

func windowsRules(p field.Path, spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	if sc, ok := spec["securityContext"].(map[string]any); ok {
		for _, f := range windowsPodForbidden {
			set := has(sc, f)
			if f == "sysctls" || f == "supplementalGroups" {
				set = len(listOf(sc[f])) > 0
			}
			if set {
				errs = append(errs, field.Forbidden(p.Child("securityContext", f), "cannot be set for a windows pod"))
			}
		}
	}
	if has(spec, "hostUsers") {
		errs = append(errs, field.Forbidden(p.Child("hostUsers"), "cannot be set for a windows pod"))
	}
	for _, f := range []string{"hostPID", "hostIPC"} {
		if b, _ := boolean(spec, f); b {
			errs = append(errs, field.Forbidden(p.Child(f), "cannot be set for a windows pod"))
		}
	}
	if has(spec, "shareProcessNamespace") {
		errs = append(errs, field.Forbidden(p.Child("shareProcessNamespace"), "cannot be set for a windows pod"))
	}
	visitContainers(p, spec, func(cp field.Path, c map[string]any) {
		sc, ok := c["securityContext"].(map[string]any)
		if !ok {
			return
		}
		for _, f := range windowsContainerForbidden {
			if has(sc, f) {
				errs = append(errs, field.Forbidden(cp.Child("securityContext", f), "cannot be set for a windows pod"))
			}
		}
	})
	return errs
}
