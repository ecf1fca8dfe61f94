package validation

import (
	"fmt"
	"path"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// Containers: validateContainers, validateInitContainers, validateEphemeralContainers and what
// they share (validateContainerCommon: name, image, terminationMessagePolicy, ports, env,
// envFrom, volume mounts and devices, imagePullPolicy, resources, resizePolicy,
// securityContext; then lifecycle, probes, restart policy and host ports).

// podContext is what every container's validation reads from the pod spec.
type podContext struct {
	opts          PodOptions
	volumes       map[string]map[string]any // name -> volume
	claimNames    map[string]bool
	gracePeriod   *int64
	os            string // spec.os.name; "" when spec.os is unset
	hasOS         bool
	restartPolicy string
	hostUsers     bool
}

func newPodContext(spec map[string]any, opts PodOptions) podContext {
	// volumes is set by the caller, from validateVolumes; claimNames is nil (read only) when
	// the pod has no resource claims.
	c := podContext{opts: opts, restartPolicy: str(spec, "restartPolicy")}
	for _, rc := range listOf(spec["resourceClaims"]) {
		if n := str(mapOf(rc), "name"); n != "" {
			if c.claimNames == nil {
				c.claimNames = map[string]bool{}
			}
			c.claimNames[n] = true
		}
	}
	if g, ok := integer(spec, "terminationGracePeriodSeconds"); ok {
		c.gracePeriod = &g
	}
	if os, ok := spec["os"].(map[string]any); ok {
		c.hasOS, c.os = true, str(os, "name")
	}
	hu, ok := boolean(spec, "hostUsers")
	c.hostUsers = !ok || hu
	return c
}

// validateContainers is validateContainers (spec.containers).
func validateContainers(p field.Path, ctrs []any, pc podContext) field.ErrorList {
	if len(ctrs) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	names := make(map[string]bool, len(ctrs))
	for i, raw := range ctrs {
		c := mapOf(raw)
		ip := p.Index(i)
		errs = append(errs, containerCommon(ip, c, pc)...)
		name := str(c, "name")
		if names[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		} else {
			names[name] = true
		}
		errs = append(errs, containerHooksAndProbes(ip, c, pc)...)
		// ContainerRestartRules is on in 1.37.
		errs = append(errs, containerRestartPolicy(ip, c, pc)...)
	}
	return append(errs, hostPortConflicts(p, ctrs, nil)...)
}

// validateInitContainers is validateInitContainers (spec.initContainers).
func validateInitContainers(p field.Path, ctrs, regular []any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	names := make(map[string]bool, len(ctrs)+len(regular))
	for _, c := range regular {
		names[str(mapOf(c), "name")] = true
	}
	for i, raw := range ctrs {
		c := mapOf(raw)
		ip := p.Index(i)
		errs = append(errs, containerCommon(ip, c, pc)...)
		errs = append(errs, initContainerRestartPolicy(ip, c, pc)...)
		restartAlways := str(c, "restartPolicy") == "Always"
		name := str(c, "name")
		if names[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		} else if name != "" {
			names[name] = true
		}
		errs = append(errs, hostPortConflicts(p, ctrs[i:i+1], nil)...)
		if restartAlways {
			errs = append(errs, containerHooksAndProbes(ip, c, pc)...)
		} else {
			for _, f := range []string{"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"} {
				if has(c, f) {
					errs = append(errs, field.Forbidden(ip.Child(f), "may not be set for init containers without restartPolicy=Always"))
				}
			}
		}
		// AllowSidecarResizePolicy: InPlacePodVerticalScaling is GA.
		if !restartAlways && !pc.opts.allowRestartContainerInit {
			for j, rp := range listOf(c["resizePolicy"]) {
				if v := str(mapOf(rp), "restartPolicy"); v == "RestartContainer" {
					errs = append(errs, field.Invalid(p.Index(i).Child("resizePolicy").Index(j).Child("restartPolicy"), v, "must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	return errs
}

// containerHooksAndProbes is the lifecycle and the liveness, readiness and startup probes of a
// container at p; the paths are built only for what is set.
func containerHooksAndProbes(p field.Path, c map[string]any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	if lc, ok := c["lifecycle"].(map[string]any); ok {
		errs = append(errs, lifecycle(p.Child("lifecycle"), lc, pc)...)
	}
	if pr, ok := c["livenessProbe"].(map[string]any); ok {
		errs = append(errs, livenessProbe(p.Child("livenessProbe"), pr, pc)...)
	}
	if pr, ok := c["readinessProbe"].(map[string]any); ok {
		errs = append(errs, readinessProbe(p.Child("readinessProbe"), pr, pc)...)
	}
	if pr, ok := c["startupProbe"].(map[string]any); ok {
		errs = append(errs, livenessProbe(p.Child("startupProbe"), pr, pc)...)
	}
	return errs
}

// ephemeralAllowed are allowedEphemeralContainerFields; the other fields of
// EphemeralContainerCommon, in the struct's order, are forbidden.
var ephemeralForbidden = []string{"ports", "resources", "resizePolicy", "restartPolicy", "restartPolicyRules",
	"livenessProbe", "readinessProbe", "startupProbe", "lifecycle"}

// validateEphemeralContainers is validateEphemeralContainers (spec.ephemeralContainers).
func validateEphemeralContainers(p field.Path, ephs, ctrs, inits []any, pc podContext) field.ErrorList {
	if len(ephs) == 0 {
		return nil
	}
	var errs field.ErrorList
	other, all := map[string]bool{}, map[string]bool{}
	for _, l := range [][]any{ctrs, inits} {
		for _, c := range l {
			n := str(mapOf(c), "name")
			other[n], all[n] = true, true
		}
	}
	for i, raw := range ephs {
		c := mapOf(raw)
		ip := p.Index(i)
		errs = append(errs, containerCommon(ip, c, pc)...)
		errs = append(errs, containerOnlyForPod(ip, c)...)
		name := str(c, "name")
		if all[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		} else {
			all[name] = true
		}
		if t := str(c, "targetContainerName"); t != "" && !other[t] {
			errs = append(errs, field.NotFound(ip.Child("targetContainerName"), t))
		}
		for _, f := range ephemeralForbidden {
			// resources is a struct (its zero value is {}); the others are pointers and
			// slices, set when present.
			if set := has(c, f); (f == "resources" && !zero(c[f])) || (f != "resources" && set) {
				errs = append(errs, field.Forbidden(ip.Child(f), "cannot be set for an Ephemeral Container"))
			}
		}
		for j, vm := range listOf(c["volumeMounts"]) {
			for _, f := range []string{"subPath", "subPathExpr"} {
				if str(mapOf(vm), f) != "" {
					errs = append(errs, field.Forbidden(ip.Child("volumeMounts").Index(j).Child(f), "cannot be set for an Ephemeral Container"))
				}
			}
		}
	}
	return errs
}

// zero reports whether v is the Go zero value of the field it decodes into: absent, null, empty
// string, false, 0, or an empty list, map or struct ({} — the zero ResourceRequirements).
func zero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case float64:
		return x == 0
	case []any:
		return x == nil
	case map[string]any:
		for _, e := range x {
			if !zero(e) {
				return false
			}
		}
		return true
	}
	return false
}

// containerOnlyForPod is validateContainerOnlyForPod.
func containerOnlyForPod(p field.Path, c map[string]any) field.ErrorList {
	img := str(c, "image")
	if len(img) != len(strings.TrimSpace(img)) {
		return field.ErrorList{field.Invalid(p.Child("image"), img, "must not have leading or trailing whitespace")}
	}
	return nil
}

// containerCommon is validateContainerCommon.
func containerCommon(p field.Path, c map[string]any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	if name := str(c, "name"); name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, dns1123Label(p.Child("name"), name)...)
	}
	if str(c, "image") == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	// Each rule's path is built only when it has something to check (each returns nothing
	// for an empty list, map or a valid enumeration value).
	if tmp := str(c, "terminationMessagePolicy"); tmp != "File" && tmp != "FallbackToLogsOnError" {
		errs = append(errs, enumRequired(p.Child("terminationMessagePolicy"), tmp, "File", "FallbackToLogsOnError")...)
	}
	mounts, devices := listOf(c["volumeMounts"]), listOf(c["volumeDevices"])
	if ports := listOf(c["ports"]); len(ports) > 0 {
		errs = append(errs, containerPorts(p.Child("ports"), ports)...)
	}
	if env := listOf(c["env"]); len(env) > 0 {
		errs = append(errs, validateEnv(p.Child("env"), env, pc)...)
	}
	if envFrom := listOf(c["envFrom"]); len(envFrom) > 0 {
		errs = append(errs, validateEnvFrom(p.Child("envFrom"), envFrom)...)
	}
	if len(mounts) > 0 {
		errs = append(errs, volumeMounts(p.Child("volumeMounts"), mounts, devices, c, pc)...)
	}
	if len(devices) > 0 {
		errs = append(errs, volumeDevices(p.Child("volumeDevices"), devices, mounts, pc)...)
	}
	if pp := str(c, "imagePullPolicy"); pp != "Always" && pp != "IfNotPresent" && pp != "Never" {
		errs = append(errs, pullPolicy(p.Child("imagePullPolicy"), pp)...)
	}
	if res := mapOf(c["resources"]); len(res) > 0 {
		errs = append(errs, resourceRequirements(p.Child("resources"), res, ValidateContainerResourceName, pc.claimNames)...)
	}
	if rp := listOf(c["resizePolicy"]); len(rp) > 0 {
		errs = append(errs, resizePolicy(p.Child("resizePolicy"), rp, pc.restartPolicy)...)
	}
	if sc := c["securityContext"]; sc != nil {
		errs = append(errs, securityContext(p.Child("securityContext"), sc, pc)...)
	}
	return errs
}

func pullPolicy(p field.Path, v string) field.ErrorList {
	switch v {
	case "Always", "IfNotPresent", "Never":
		return nil
	case "":
		return field.ErrorList{field.Required(p, "")}
	}
	return field.ErrorList{field.NotSupported(p, v, []string{"Always", "IfNotPresent", "Never"})}
}

var protocols = []string{"SCTP", "TCP", "UDP"}

// containerPorts is validateContainerPorts.
func containerPorts(p field.Path, ports []any) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, raw := range ports {
		port := mapOf(raw)
		ip := p.Index(i)
		if name := str(port, "name"); name != "" {
			if msgs := ivalidation.IsValidPortName(name); len(msgs) != 0 {
				for _, m := range msgs {
					errs = append(errs, field.Invalid(ip.Child("name"), name, m))
				}
			} else if names[name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), name))
			} else {
				names[name] = true
			}
		}
		cp, _ := integer(port, "containerPort")
		if cp == 0 {
			errs = append(errs, field.Required(ip.Child("containerPort"), ""))
		} else {
			for _, m := range ivalidation.IsValidPortNum(cp) {
				errs = append(errs, field.Invalid(ip.Child("containerPort"), cp, m))
			}
		}
		if hp, _ := integer(port, "hostPort"); hp != 0 {
			for _, m := range ivalidation.IsValidPortNum(hp) {
				errs = append(errs, field.Invalid(ip.Child("hostPort"), hp, m))
			}
		}
		switch proto := str(port, "protocol"); {
		case proto == "":
			errs = append(errs, field.Required(ip.Child("protocol"), ""))
		case proto != "TCP" && proto != "UDP" && proto != "SCTP":
			errs = append(errs, field.NotSupported(ip.Child("protocol"), proto, protocols))
		}
	}
	return errs
}

// hostPortConflicts is AccumulateUniqueHostPorts (seen may be nil: it is made at the first host
// port).
func hostPortConflicts(p field.Path, ctrs []any, seen map[string]bool) field.ErrorList {
	var errs field.ErrorList
	for ci, raw := range ctrs {
		for pi, pr := range listOf(mapOf(raw)["ports"]) {
			port := mapOf(pr)
			hp, _ := integer(port, "hostPort")
			if hp == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", str(port, "protocol"), str(port, "hostIP"), hp)
			if seen == nil {
				seen = map[string]bool{}
			}
			if seen[key] {
				errs = append(errs, field.Duplicate(p.Index(ci).Child("ports").Index(pi).Child("hostPort"), key))
			} else {
				seen[key] = true
			}
		}
	}
	return errs
}

var envFieldPaths = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
	"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}

var containerResourceFieldPaths = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory",
	"requests.cpu", "requests.ephemeral-storage", "requests.memory"}

// validateEnv is ValidateEnv (RelaxedEnvironmentVariableValidation is GA: relaxed names).
func validateEnv(p field.Path, vars []any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range vars {
		ev := mapOf(raw)
		ip := p.Index(i)
		if name := str(ev, "name"); name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else {
			for _, m := range ivalidation.IsRelaxedEnvVarName(name) {
				errs = append(errs, field.Invalid(ip.Child("name"), name, m))
			}
		}
		if _, ok := ev["valueFrom"].(map[string]any); ok {
			errs = append(errs, envValueFrom(ip.Child("valueFrom"), ev)...)
		}
	}
	return errs
}

// envValueFrom is validateEnvVarValueFrom (EnvFiles is on: fileKeyRef is a source).
func envValueFrom(p field.Path, ev map[string]any) field.ErrorList {
	vf, ok := ev["valueFrom"].(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	n := 0
	if fr, ok := vf["fieldRef"].(map[string]any); ok {
		n++
		errs = append(errs, objectFieldSelector(p.Child("fieldRef"), fr, envFieldPaths)...)
	}
	if rf, ok := vf["resourceFieldRef"].(map[string]any); ok {
		n++
		errs = append(errs, resourceFieldSelector(p.Child("resourceFieldRef"), rf, false)...)
	}
	if s, ok := vf["configMapKeyRef"].(map[string]any); ok {
		n++
		errs = append(errs, keySelector(p.Child("configMapKeyRef"), s)...)
	}
	if s, ok := vf["secretKeyRef"].(map[string]any); ok {
		n++
		errs = append(errs, keySelector(p.Child("secretKeyRef"), s)...)
	}
	if s, ok := vf["fileKeyRef"].(map[string]any); ok {
		n++
		errs = append(errs, fileKeySelector(p.Child("fileKeyRef"), s)...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case str(ev, "value") != "":
		errs = append(errs, field.Invalid(p, "", "may not be specified when `value` is not empty"))
	case n > 1:
		errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	}
	return errs
}

// objectFieldSelector is validateObjectFieldSelector with the v1 downward API field labels
// (ConvertDownwardAPIFieldLabel for apiVersion v1).
func objectFieldSelector(p field.Path, fs map[string]any, valid []string) field.ErrorList {
	av, fp := str(fs, "apiVersion"), str(fs, "fieldPath")
	if av == "" {
		return field.ErrorList{field.Required(p.Child("apiVersion"), "")}
	}
	if fp == "" {
		return field.ErrorList{field.Required(p.Child("fieldPath"), "")}
	}
	internal, err := downwardAPIFieldLabel(av, fp)
	if err != "" {
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fp, "error converting fieldPath: "+err)}
	}
	if pth, sub, ok := splitSubscript(internal); ok {
		switch pth {
		case "metadata.annotations":
			return qualifiedName(p, strings.ToLower(sub))
		case "metadata.labels":
			return qualifiedName(p, sub)
		}
		return field.ErrorList{field.Invalid(p, pth, "does not support subscript")}
	}
	for _, v := range valid {
		if v == internal {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p.Child("fieldPath"), internal, valid)}
}

// downwardAPIFieldLabel is podshelper.ConvertDownwardAPIFieldLabel.
func downwardAPIFieldLabel(version, label string) (string, string) {
	if version != "v1" {
		return "", fmt.Sprintf("unsupported pod version: %s", version)
	}
	if pth, _, ok := splitSubscript(label); ok {
		switch pth {
		case "metadata.annotations", "metadata.labels":
			return label, ""
		}
		return "", fmt.Sprintf("field label does not support subscript: %s", label)
	}
	switch label {
	case "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
		"spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
		"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs":
		return label, ""
	case "spec.host":
		return "spec.nodeName", ""
	}
	return "", fmt.Sprintf("field label not supported: %s", label)
}

// splitSubscript is fieldpath.SplitMaybeSubscriptedPath: "a.b['key']" is ("a.b", "key").
func splitSubscript(fp string) (string, string, bool) {
	if !strings.HasSuffix(fp, "']") {
		return fp, "", false
	}
	s := strings.TrimSuffix(fp, "']")
	parts := strings.SplitN(s, "['", 2)
	if len(parts) < 2 || len(parts[0]) == 0 {
		return fp, "", false
	}
	return parts[0], parts[1], true
}

func qualifiedName(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range ivalidation.IsQualifiedName(v) {
		errs = append(errs, field.Invalid(p, v, m))
	}
	return errs
}

// resourceFieldSelector is validateContainerResourceFieldSelector (with the hugepages
// prefixes; volume is true for a downward API volume, which needs containerName).
func resourceFieldSelector(p field.Path, fs map[string]any, volume bool) field.ErrorList {
	var errs field.ErrorList
	res := str(fs, "resource")
	switch {
	case volume && str(fs, "containerName") == "":
		errs = append(errs, field.Required(p.Child("containerName"), ""))
	case res == "":
		errs = append(errs, field.Required(p.Child("resource"), ""))
	case !contains(containerResourceFieldPaths, res) && !strings.HasPrefix(res, "limits.hugepages-") && !strings.HasPrefix(res, "requests.hugepages-"):
		errs = append(errs, field.NotSupported(p.Child("resource"), res, containerResourceFieldPaths))
	}
	return append(errs, resourceDivisor(p, res, fs["divisor"])...)
}

var memoryDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}

// resourceDivisor is validateContainerResourceDivisor.
func resourceDivisor(p field.Path, res string, d any) field.ErrorList {
	q, ok := qty(d)
	if !ok || q.IsZero() {
		return nil
	}
	s := q.String()
	var errs field.ErrorList
	switch res {
	case "limits.cpu", "requests.cpu":
		if s != "1m" && s != "1" {
			errs = append(errs, field.Invalid(p.Child("divisor"), res, "only divisor's values 1m and 1 are supported with the cpu resource"))
		}
	case "limits.memory", "requests.memory":
		if !contains(memoryDivisors, s) {
			errs = append(errs, field.Invalid(p.Child("divisor"), res, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource"))
		}
	case "limits.ephemeral-storage", "requests.ephemeral-storage":
		if !contains(memoryDivisors, s) {
			errs = append(errs, field.Invalid(p.Child("divisor"), res, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource"))
		}
	}
	if strings.HasPrefix(res, "requests.hugepages-") || strings.HasPrefix(res, "limits.hugepages-") {
		if !contains(memoryDivisors, s) {
			errs = append(errs, field.Invalid(p.Child("divisor"), res, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"))
		}
	}
	return errs
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// keySelector is validateConfigMapKeySelector and validateSecretKeySelector (both check the
// name as a Secret name: a DNS subdomain).
func keySelector(p field.Path, s map[string]any) field.ErrorList {
	var errs field.ErrorList
	name := str(s, "name")
	for _, m := range ivalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(p.Child("name"), name, m))
	}
	if key := str(s, "key"); key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	} else {
		for _, m := range ivalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(p.Child("key"), key, m))
		}
	}
	return errs
}

// fileKeySelector is validateFileKeySelector.
func fileKeySelector(p field.Path, s map[string]any) field.ErrorList {
	var errs field.ErrorList
	if key := str(s, "key"); key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	} else {
		for _, m := range ivalidation.IsRelaxedEnvVarName(key) {
			errs = append(errs, field.Invalid(p.Child("key"), key, m))
		}
	}
	if v := str(s, "volumeName"); v == "" {
		errs = append(errs, field.Required(p.Child("volumeName"), ""))
	} else {
		errs = append(errs, dns1123Label(p.Child("volumeName"), v)...)
	}
	if v := str(s, "path"); v == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	} else {
		errs = append(errs, noBacksteps(p.Child("path"), v)...)
	}
	return errs
}

// validateEnvFrom is ValidateEnvFrom.
func validateEnvFrom(p field.Path, vars []any) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range vars {
		ev := mapOf(raw)
		ip := p.Index(i)
		if prefix := str(ev, "prefix"); prefix != "" {
			for _, m := range ivalidation.IsRelaxedEnvVarName(prefix) {
				errs = append(errs, field.Invalid(ip.Child("prefix"), prefix, m))
			}
		}
		n := 0
		for _, key := range []string{"configMapRef", "secretRef"} {
			ref, ok := ev[key].(map[string]any)
			if !ok {
				continue
			}
			n++
			if name := str(ref, "name"); name == "" {
				errs = append(errs, field.Required(ip.Child(key, "name"), ""))
			} else {
				for _, m := range ivalidation.NameIsDNSSubdomain(name, true) {
					errs = append(errs, field.Invalid(ip.Child(key, "name"), name, m))
				}
			}
		}
		if n == 0 {
			errs = append(errs, field.Invalid(p, "", "must specify one of: `configMapRef` or `secretRef`"))
		} else if n > 1 {
			errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

// volumeMounts is ValidateVolumeMounts.
func volumeMounts(p field.Path, mounts, devices []any, c map[string]any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	var devNames, devPaths map[string]bool
	if len(devices) > 0 {
		devNames, devPaths = nameToPath(devices, "devicePath")
	}
	points := make(map[string]bool, len(mounts))
	for i, raw := range mounts {
		m := mapOf(raw)
		ip := p.Index(i)
		name, mp := str(m, "name"), str(m, "mountPath")
		if name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		}
		if _, ok := pc.volumes[name]; !ok {
			errs = append(errs, field.NotFound(ip.Child("name"), name))
		}
		if mp == "" {
			errs = append(errs, field.Required(ip.Child("mountPath"), ""))
		}
		if points[mp] {
			errs = append(errs, field.Invalid(ip.Child("mountPath"), mp, "must be unique"))
		}
		points[mp] = true
		if devNames[name] {
			errs = append(errs, field.Invalid(ip.Child("name"), name, "must not already exist in volumeDevices"))
		}
		if devPaths[mp] {
			errs = append(errs, field.Invalid(ip.Child("mountPath"), mp, "must not already exist as a path in volumeDevices"))
		}
		// The apiserver puts these two errors at volumeMounts.subPath, without the index.
		sub, expr := str(m, "subPath"), str(m, "subPathExpr")
		if sub != "" {
			errs = append(errs, localDescendingPath(p.Child("subPath"), sub)...)
		}
		if expr != "" {
			if sub != "" {
				errs = append(errs, field.Invalid(ip.Child("subPathExpr"), expr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, localDescendingPath(p.Child("subPathExpr"), expr)...)
		}
		if mprop, ok := m["mountPropagation"].(string); ok {
			errs = append(errs, mountPropagation(p.Child("mountPropagation"), mprop, c)...)
		}
		errs = append(errs, recursiveReadOnly(p.Child("recursiveReadOnly"), m)...)
		bmo := listOf(m["bindMountOptions"])
		errs = append(errs, bindMountOptions(ip.Child("bindMountOptions"), bmo)...)
		if len(bmo) > 0 {
			if v, ok := pc.volumes[name]; ok && has(v, "image") {
				errs = append(errs, field.Invalid(ip.Child("bindMountOptions"), stringList(bmo), "bindMountOptions may not be used with image volumes"))
			}
		}
	}
	return errs
}

var bindMountOptionValues = []string{"noexec", "nodev", "nosuid"}

func bindMountOptions(p field.Path, opts []any) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	sorted := []string{"nodev", "noexec", "nosuid"}
	for i, raw := range opts {
		o, _ := raw.(string)
		if !contains(bindMountOptionValues, o) {
			errs = append(errs, field.NotSupported(p.Index(i), o, sorted))
		}
		if seen[o] {
			errs = append(errs, field.Duplicate(p.Index(i), o))
		}
		seen[o] = true
	}
	return errs
}

// mountPropagation is validateMountPropagation.
func mountPropagation(p field.Path, mode string, c map[string]any) field.ErrorList {
	var errs field.ErrorList
	if mode != "Bidirectional" && mode != "HostToContainer" && mode != "None" {
		errs = append(errs, field.NotSupported(p, mode, []string{"Bidirectional", "HostToContainer", "None"}))
	}
	priv, _ := boolean(mapOf(c["securityContext"]), "privileged")
	if mode == "Bidirectional" && !priv {
		errs = append(errs, field.Forbidden(p, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return errs
}

// recursiveReadOnly is validateMountRecursiveReadOnly.
func recursiveReadOnly(p field.Path, m map[string]any) field.ErrorList {
	rro, ok := m["recursiveReadOnly"].(string)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	switch rro {
	case "Disabled":
	case "Enabled", "IfPossible":
		if ro, _ := boolean(m, "readOnly"); !ro {
			errs = append(errs, field.Forbidden(p, "may only be specified when readOnly is true"))
		}
		if mp, ok := m["mountPropagation"].(string); ok && mp != "None" {
			errs = append(errs, field.Forbidden(p, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		errs = append(errs, field.NotSupported(p, rro, []string{"Disabled", "Enabled", "IfPossible"}))
	}
	return errs
}

// volumeDevices is ValidateVolumeDevices.
func volumeDevices(p field.Path, devices, mounts []any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	var mountNames, mountPaths map[string]bool
	if len(mounts) > 0 {
		mountNames, mountPaths = nameToPath(mounts, "mountPath")
	}
	paths, names := map[string]bool{}, map[string]bool{}
	for i, raw := range devices {
		d := mapOf(raw)
		ip := p.Index(i)
		name, dp := str(d, "name"), str(d, "devicePath")
		v, matched := pc.volumes[name]
		isPVC := matched && (has(v, "persistentVolumeClaim") || has(v, "ephemeral"))
		if name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		}
		if names[name] {
			errs = append(errs, field.Invalid(ip.Child("name"), name, "must be unique"))
		}
		if matched && !isPVC {
			errs = append(errs, field.Invalid(ip.Child("name"), name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		}
		if !matched {
			errs = append(errs, field.NotFound(ip.Child("name"), name))
		}
		if dp == "" {
			errs = append(errs, field.Required(ip.Child("devicePath"), ""))
		}
		if paths[dp] {
			errs = append(errs, field.Invalid(ip.Child("devicePath"), dp, "must be unique"))
		}
		if dp != "" && len(noBacksteps(p, dp)) > 0 {
			errs = append(errs, field.Invalid(ip.Child("devicePath"), dp, "can not contain backsteps ('..')"))
		} else {
			paths[dp] = true
		}
		if mountNames[name] {
			errs = append(errs, field.Invalid(ip.Child("name"), name, "must not already exist in volumeMounts"))
		}
		if mountPaths[dp] {
			errs = append(errs, field.Invalid(ip.Child("devicePath"), dp, "must not already exist as a path in volumeMounts"))
		}
		if name != "" {
			names[name] = true
		}
	}
	return errs
}

// localDescendingPath is validateLocalDescendingPath.
func localDescendingPath(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(v) {
		errs = append(errs, field.Invalid(p, v, "must be a relative path"))
	}
	return append(errs, noBacksteps(p, v)...)
}

// noBacksteps is validatePathNoBacksteps.
func noBacksteps(p field.Path, v string) field.ErrorList {
	for _, part := range strings.Split(v, "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(p, v, "must not contain '..'")}
		}
	}
	return nil
}

// resizePolicy is validateResizePolicy.
func resizePolicy(p field.Path, policies []any, podRestart string) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, raw := range policies {
		rp := mapOf(raw)
		rn, pol := str(rp, "resourceName"), str(rp, "restartPolicy")
		if seen[rn] {
			errs = append(errs, field.Duplicate(p.Index(i), rn))
		}
		seen[rn] = true
		switch rn {
		case "cpu", "memory":
		case "":
			errs = append(errs, field.Required(p, ""))
		default:
			errs = append(errs, field.NotSupported(p, rn, []string{"cpu", "memory"}))
		}
		switch pol {
		case "NotRequired", "RestartContainer":
		case "":
			errs = append(errs, field.Required(p, ""))
		default:
			errs = append(errs, field.NotSupported(p, pol, []string{"NotRequired", "RestartContainer"}))
		}
		if podRestart == "Never" && pol != "NotRequired" {
			errs = append(errs, field.Invalid(p, pol, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
	return errs
}

var containerRestartPolicies = []string{"Always", "Never", "OnFailure"}

// containerRestartPolicy is validateContainerRestartPolicy with ContainerRestartRules and
// RestartAllContainersOnContainerExits on (their 1.37 defaults).
func containerRestartPolicy(p field.Path, c map[string]any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	rules := listOf(c["restartPolicyRules"])
	pol, set := c["restartPolicy"].(string)
	if !set {
		if len(rules) == 0 {
			return nil
		}
		errs = append(errs, field.Required(p.Child("restartPolicy"), "must specify restartPolicy when restart rules are used"))
	} else if !contains(containerRestartPolicies, pol) {
		errs = append(errs, field.NotSupported(p.Child("restartPolicy"), pol, containerRestartPolicies))
	}
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(p.Child("restartPolicyRules"), len(rules), 20))
	}
	actions := []string{"Restart", "RestartAllContainers"}
	for i, raw := range rules {
		rule := mapOf(raw)
		rp := p.Child("restartPolicyRules").Index(i)
		if a := str(rule, "action"); !contains(actions, a) {
			errs = append(errs, field.NotSupported(rp.Child("action"), a, actions))
		}
		ec, ok := rule["exitCodes"].(map[string]any)
		if !ok {
			errs = append(errs, field.Required(rp.Child("exitCodes"), "must be specified"))
			continue
		}
		if op := str(ec, "operator"); op != "In" && op != "NotIn" {
			errs = append(errs, field.NotSupported(rp.Child("exitCodes", "operator"), op, []string{"In", "NotIn"}))
		}
		if n := len(listOf(ec["values"])); n > 255 {
			errs = append(errs, field.TooMany(rp.Child("exitCodes", "values"), n, 255))
		}
	}
	return errs
}

// initContainerRestartPolicy is validateInitContainerRestartPolicy (ContainerRestartRules and
// RestartAllContainersOnContainerExits on).
func initContainerRestartPolicy(p field.Path, c map[string]any, pc podContext) field.ErrorList {
	if _, set := c["restartPolicy"].(string); !set {
		if len(listOf(c["restartPolicyRules"])) > 0 {
			return field.ErrorList{field.Required(p.Child("restartPolicy"), "must specify restartPolicy when restart rules are used")}
		}
		return nil
	}
	return containerRestartPolicy(p, c, pc)
}

// livenessProbe is validateLivenessProbe (and validateStartupProbe, the same rules).
func livenessProbe(p field.Path, v any, pc podContext) field.ErrorList {
	pr, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	errs := probe(p, pr, pc)
	if st, _ := integer(pr, "successThreshold"); st != 1 {
		errs = append(errs, field.Invalid(p.Child("successThreshold"), st, "must be 1"))
	}
	return errs
}

func readinessProbe(p field.Path, v any, pc podContext) field.ErrorList {
	pr, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	errs := probe(p, pr, pc)
	if g, ok := integer(pr, "terminationGracePeriodSeconds"); ok {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), g, "must not be set for readinessProbes"))
	}
	return errs
}

// probe is validateProbe.
func probe(p field.Path, pr map[string]any, pc podContext) field.ErrorList {
	errs := handler(p, pr, []string{"exec", "httpGet", "tcpSocket", "grpc"}, pc)
	for _, f := range []string{"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"} {
		if n, _ := integer(pr, f); n < 0 {
			errs = append(errs, field.Invalid(p.Child(f), n, "must be greater than or equal to 0"))
		}
	}
	if g, ok := integer(pr, "terminationGracePeriodSeconds"); ok && g <= 0 {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), g, "must be greater than 0"))
	}
	return errs
}

// lifecycle is validateLifecycle.
func lifecycle(p field.Path, lc map[string]any, pc podContext) field.ErrorList {
	var errs field.ErrorList
	for _, hook := range []string{"postStart", "preStop"} {
		if h, ok := lc[hook].(map[string]any); ok {
			errs = append(errs, handler(p.Child(hook), h, []string{"exec", "httpGet", "tcpSocket", "sleep"}, pc)...)
		}
	}
	if sig, ok := lc["stopSignal"].(string); ok {
		errs = append(errs, stopSignal(p.Child("stopSignal"), sig, pc)...)
	}
	return errs
}

// handler is validateHandler over the handler kinds a probe or a hook has.
func handler(p field.Path, h map[string]any, kinds []string, pc podContext) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, k := range kinds {
		a, ok := h[k].(map[string]any)
		if !ok {
			continue
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(p.Child(k), "may not specify more than 1 handler type"))
			continue
		}
		n++
		ap := p.Child(k)
		switch k {
		case "exec":
			if len(listOf(a["command"])) == 0 {
				errs = append(errs, field.Required(ap.Child("command"), ""))
			}
		case "httpGet":
			errs = append(errs, httpGet(ap, a)...)
		case "tcpSocket":
			errs = append(errs, portNumOrName(ap.Child("port"), a["port"])...)
		case "grpc":
			port, _ := integer(a, "port")
			errs = append(errs, portNumOrName(ap.Child("port"), port)...)
		case "sleep":
			s, _ := integer(a, "seconds")
			if pc.gracePeriod != nil && (s < 0 || s > *pc.gracePeriod) {
				errs = append(errs, field.Invalid(ap, s, fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *pc.gracePeriod)))
			}
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a handler type"))
	}
	return errs
}

// httpGet is validateHTTPGetAction (H2CContainerProbe is off: no protocol field).
func httpGet(p field.Path, a map[string]any) field.ErrorList {
	var errs field.ErrorList
	if str(a, "path") == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, portNumOrName(p.Child("port"), a["port"])...)
	if s := str(a, "scheme"); s != "HTTP" && s != "HTTPS" {
		errs = append(errs, field.NotSupported(p.Child("scheme"), s, []string{"HTTP", "HTTPS"}))
	}
	for _, hh := range listOf(a["httpHeaders"]) {
		name := str(mapOf(hh), "name")
		for _, m := range ivalidation.IsHTTPHeaderName(name) {
			errs = append(errs, field.Invalid(p.Child("httpHeaders"), name, m))
		}
	}
	return errs
}

// portNumOrName is ValidatePortNumOrName over an IntOrString.
func portNumOrName(p field.Path, v any) field.ErrorList {
	var errs field.ErrorList
	switch x := v.(type) {
	case string:
		for _, m := range ivalidation.IsValidPortName(x) {
			errs = append(errs, field.Invalid(p, x, m))
		}
	case int64:
		for _, m := range ivalidation.IsValidPortNum(x) {
			errs = append(errs, field.Invalid(p, x, m))
		}
	default:
		for _, m := range ivalidation.IsValidPortNum(0) {
			errs = append(errs, field.Invalid(p, int64(0), m))
		}
	}
	return errs
}

var linuxSignals = []string{"SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP",
	"SIGILL", "SIGINT", "SIGIO", "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT",
	"SIGRTMAX", "SIGRTMAX-1", "SIGRTMAX-10", "SIGRTMAX-11", "SIGRTMAX-12", "SIGRTMAX-13", "SIGRTMAX-14",
	"SIGRTMAX-2", "SIGRTMAX-3", "SIGRTMAX-4", "SIGRTMAX-5", "SIGRTMAX-6", "SIGRTMAX-7", "SIGRTMAX-8", "SIGRTMAX-9",
	"SIGRTMIN", "SIGRTMIN+1", "SIGRTMIN+10", "SIGRTMIN+11", "SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14",
	"SIGRTMIN+15", "SIGRTMIN+2", "SIGRTMIN+3", "SIGRTMIN+4", "SIGRTMIN+5", "SIGRTMIN+6", "SIGRTMIN+7",
	"SIGRTMIN+8", "SIGRTMIN+9", "SIGSEGV", "SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP",
	"SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH", "SIGXCPU", "SIGXFSZ"}

// stopSignal is validateStopSignal.
func stopSignal(p field.Path, sig string, pc podContext) field.ErrorList {
	switch {
	case !pc.hasOS:
		return field.ErrorList{field.Forbidden(p, "may not be set for containers with empty `spec.os.name`")}
	case pc.os == "windows":
		if sig != "SIGKILL" && sig != "SIGTERM" {
			return field.ErrorList{field.NotSupported(p, sig, []string{"SIGKILL", "SIGTERM"})}
		}
	case pc.os == "linux":
		if !contains(linuxSignals, sig) {
			return field.ErrorList{field.NotSupported(p, sig, linuxSignals)}
		}
	}
	return nil
}

// securityContext is ValidateSecurityContext (privileged containers disallowed: the
// apiserver's --allow-privileged defaults to false).
func securityContext(p field.Path, v any, pc podContext) field.ErrorList {
	sc, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	priv, privSet := boolean(sc, "privileged")
	if privSet && priv {
		errs = append(errs, field.Forbidden(p.Child("privileged"), "disallowed by cluster policy"))
	}
	if u, ok := integer(sc, "runAsUser"); ok {
		for _, m := range ivalidation.IsValidUserID(u) {
			errs = append(errs, field.Invalid(p.Child("runAsUser"), u, m))
		}
	}
	if g, ok := integer(sc, "runAsGroup"); ok {
		for _, m := range ivalidation.IsValidGroupID(g) {
			errs = append(errs, field.Invalid(p.Child("runAsGroup"), g, m))
		}
	}
	if pm, ok := sc["procMount"].(string); ok {
		if pm != "Default" && pm != "Unmasked" {
			errs = append(errs, field.NotSupported(p.Child("procMount"), pm, []string{"Default", "Unmasked"}))
		}
		if pc.hostUsers && pm == "Unmasked" {
			errs = append(errs, field.Invalid(p.Child("procMount"), pm, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	errs = append(errs, seccompProfile(p.Child("seccompProfile"), sc["seccompProfile"])...)
	if ape, ok := boolean(sc, "allowPrivilegeEscalation"); ok && !ape {
		if privSet && priv {
			errs = append(errs, field.Invalid(p, goValue{sc, "SecurityContext"}, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if !pc.opts.allowSysAdmin {
			if caps, ok := sc["capabilities"].(map[string]any); ok {
				for _, c := range listOf(caps["add"]) {
					if c == "CAP_SYS_ADMIN" {
						errs = append(errs, field.Invalid(p, goValue{sc, "SecurityContext"}, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
					}
				}
			}
		}
	}
	errs = append(errs, windowsOptions(p.Child("windowsOptions"), sc["windowsOptions"])...)
	return append(errs, appArmorProfile(p.Child("appArmorProfile"), sc["appArmorProfile"])...)
}

// seccompProfile is validateSeccompProfileField.
func seccompProfile(p field.Path, v any) field.ErrorList {
	sp, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	t := str(sp, "type")
	switch t {
	case "Localhost", "RuntimeDefault", "Unconfined":
	case "":
		errs = append(errs, field.Required(p.Child("type"), "type is required when seccompProfile is set"))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), t, []string{"Localhost", "RuntimeDefault", "Unconfined"}))
	}
	lp, lpSet := sp["localhostProfile"].(string)
	if t == "Localhost" {
		if !lpSet {
			errs = append(errs, field.Required(p.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
		} else {
			errs = append(errs, localDescendingPath(p.Child("localhostProfile"), lp)...)
		}
	} else if lpSet {
		errs = append(errs, field.Invalid(p.Child("localhostProfile"), goValue{sp, "SeccompProfile"}, "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// appArmorProfile is ValidateAppArmorProfileField.
func appArmorProfile(p field.Path, v any) field.ErrorList {
	ap, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	lp, lpSet := ap["localhostProfile"].(string)
	switch t := str(ap, "type"); t {
	case "Localhost":
		if !lpSet {
			errs = append(errs, field.Required(p.Child("localhostProfile"), "must be set when AppArmor type is Localhost"))
			break
		}
		if trimmed := strings.TrimSpace(lp); trimmed != lp {
			errs = append(errs, field.Invalid(p.Child("localhostProfile"), lp, "must not be padded with whitespace"))
		} else if trimmed == "" {
			errs = append(errs, field.Required(p.Child("localhostProfile"), "must be set when AppArmor type is Localhost"))
		}
		if len(lp) > 4095 {
			errs = append(errs, field.TooLong(p.Child("localhostProfile"), "", 4095))
		}
	case "RuntimeDefault", "Unconfined":
		if lpSet {
			errs = append(errs, field.Invalid(p.Child("localhostProfile"), lp, "can only be set when AppArmor type is Localhost"))
		}
	case "":
		errs = append(errs, field.Required(p.Child("type"), "type is required when appArmorProfile is set"))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), t, []string{"Localhost", "RuntimeDefault", "Unconfined"}))
	}
	return errs
}

// nameToPath is GetVolumeMountMap / GetVolumeDeviceMap: a map from name to path in which a later
// entry with the same name replaces an earlier one; it returns the names and the paths left.
func nameToPath(l []any, pathKey string) (names, paths map[string]bool) {
	byName := make(map[string]string, len(l))
	for _, raw := range l {
		byName[str(mapOf(raw), "name")] = str(mapOf(raw), pathKey)
	}
	names, paths = make(map[string]bool, len(byName)), make(map[string]bool, len(byName))
	for n, p := range byName {
		names[n], paths[p] = true, true
	}
	return names, paths
}
