package validation

import (
	"fmt"
	"math"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// PodOptions are the apiserver's PodValidationOptions: what the pod's strategy (or the
// workload's, for a template) derives from the feature gates at their 1.37 defaults and from the
// stored object, so that an update may keep a value that an older server allowed. Build them
// with NewPodOptions; the zero value is a create of a pod template.
type PodOptions struct {
	// ResourceIsPod is true when the object validated is a Pod (not a template in another kind).
	ResourceIsPod bool
	// update is true when an old spec was given.
	update bool
	// allowRestartContainerInit: the stored spec has a non-sidecar init container with a
	// RestartContainer resize policy (AllowExistingRestartContainerForNonSidecarInitContainer).
	allowRestartContainerInit bool
	// allowSysAdmin: a stored container adds CAP_SYS_ADMIN with allowPrivilegeEscalation false
	// (AllowSysAdminWhenPrivilegeEscalationFalse).
	allowSysAdmin bool
	// allowHostSysctls: a stored sysctl is refused by ValidateHostSysctl
	// (AllowNamespacedSysctlsForHostNetAndHostIPC).
	allowHostSysctls bool
	// onlyRecursiveSELinux: SELinuxMount is off and the stored spec sets no
	// seLinuxChangePolicy (AllowOnlyRecursiveSELinuxChangePolicy).
	onlyRecursiveSELinux bool
	// allowInvalidLabelValueInRequiredNodeAffinity: the stored required node affinity has an
	// invalid label value.
	allowInvalidLabelValueInRequiredNodeAffinity bool
	// allowUsernsVolumeDevices: the stored spec has hostUsers false and volume devices.
	allowUsernsVolumeDevices bool
	// allowUsernsHostNetwork is UserNamespacesHostNetworkSupport (off) or its use in the stored spec.
	allowUsernsHostNetwork bool
	// oldViolatesMatchLabelKeys: a stored topology spread constraint fails today's matchLabelKeys
	// rules, so the legacy ones apply (OldPodViolatesMatchLabelKeysValidation).
	oldViolatesMatchLabelKeys bool
	// allowInvalidTopologySelector: a stored topology spread constraint's label selector is
	// invalid (AllowInvalidTopologySpreadConstraintLabelSelector).
	allowInvalidTopologySelector bool
	// allowInvalidLabelValueInSelector: a stored pod (anti-)affinity selector has an invalid
	// label value.
	allowInvalidLabelValueInSelector bool
}

// NewPodOptions derives the options from a pod spec and the stored one (nil on create), as
// GetValidationOptionsFromPodSpecAndMeta does. Neither is modified.
func NewPodOptions(spec, oldSpec map[string]any) PodOptions {
	// SELinuxMount is on in 1.37: every seLinuxChangePolicy value is allowed.
	o := PodOptions{update: oldSpec != nil}
	if oldSpec == nil {
		return o
	}
	oldTopologyRules(&o, oldSpec)
	if sc := mapOf(oldSpec["securityContext"]); has(sc, "seLinuxChangePolicy") {
		o.onlyRecursiveSELinux = false
	}
	visitContainers(field.Path{}, oldSpec, func(_ field.Path, c map[string]any) {
		if has(mapOf(c["securityContext"]), "seLinuxChangePolicy") {
			o.onlyRecursiveSELinux = false
		}
	})
	for _, sc := range listOf(mapOf(oldSpec["securityContext"])["sysctls"]) {
		if hostSysctl(field.Path{}, str(mapOf(sc), "name"), oldSpec) != nil {
			o.allowHostSysctls = true
		}
	}
	if req, ok := mapOf(mapOf(oldSpec["affinity"])["nodeAffinity"])["requiredDuringSchedulingIgnoredDuringExecution"].(map[string]any); ok {
		o.allowInvalidLabelValueInRequiredNodeAffinity = termsHaveInvalidLabelValue(listOf(req["nodeSelectorTerms"]))
	}
	if hu, ok := boolean(oldSpec, "hostUsers"); ok && !hu {
		visitContainers(field.Path{}, oldSpec, func(_ field.Path, c map[string]any) {
			if len(listOf(c["volumeDevices"])) > 0 {
				o.allowUsernsVolumeDevices = true
			}
		})
		if hn, _ := boolean(oldSpec, "hostNetwork"); hn {
			o.allowUsernsHostNetwork = true
		}
	}
	for _, c := range listOf(oldSpec["initContainers"]) {
		if str(mapOf(c), "restartPolicy") == "Always" {
			continue
		}
		for _, rp := range listOf(mapOf(c)["resizePolicy"]) {
			if str(mapOf(rp), "restartPolicy") == "RestartContainer" {
				o.allowRestartContainerInit = true
			}
		}
	}
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range listOf(oldSpec[key]) {
			sc := mapOf(mapOf(c)["securityContext"])
			if ape, ok := boolean(sc, "allowPrivilegeEscalation"); ok && !ape {
				for _, cp := range listOf(mapOf(sc["capabilities"])["add"]) {
					if cp == "CAP_SYS_ADMIN" {
						o.allowSysAdmin = true
					}
				}
			}
		}
	}
	return o
}

// validatePodCreate is the pod strategy's Validate (ValidatePodCreate).
func validatePodCreate(obj map[string]any, _ Options) field.ErrorList {
	spec := mapOf(obj["spec"])
	opts := NewPodOptions(spec, nil)
	opts.ResourceIsPod = true
	errs := validatePodMetadataAndSpec(obj, opts)
	sp := field.NewPath("spec")
	if len(listOf(spec["ephemeralContainers"])) > 0 {
		errs = append(errs, field.Forbidden(sp.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if str(spec, "nodeName") != "" && len(listOf(spec["schedulingGates"])) != 0 {
		errs = append(errs, field.Forbidden(sp.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return distinct(errs)
}

// validatePodUpdate is the pod strategy's ValidateUpdate (ValidatePodUpdate), the status
// strategy's (ValidatePodStatusUpdate, podstatus.go), and the resize and ephemeral containers
// strategies' (ValidatePodResize, ValidatePodEphemeralContainersUpdate, resize.go).
func validatePodUpdate(obj, old map[string]any, o Options) field.ErrorList {
	opts := NewPodOptions(mapOf(obj["spec"]), mapOf(old["spec"]))
	opts.ResourceIsPod = true
	switch o.Subresource {
	case "":
		errs := coreObjectMetaUpdate(obj, old)
		errs = append(errs, validatePodMetadataAndSpec(obj, opts)...)
		return distinct(append(errs, validatePodSpecUpdate(mapOf(obj["spec"]), mapOf(old["spec"]), opts)...))
	case "status":
		return distinct(validatePodStatusUpdate(obj, old))
	case "resize", "ephemeralcontainers":
		// Static pods (and, for a resize, Windows pods) get that error alone.
		ann := mapOf(mapOf(old["metadata"])["annotations"])
		if _, static := ann[mirrorPodAnnotation]; static {
			if o.Subresource == "resize" {
				return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods cannot be resized")}
			}
			return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods do not support ephemeral containers")}
		}
		errs := coreObjectMetaUpdate(obj, old)
		errs = append(errs, validatePodMetadataAndSpec(obj, opts)...)
		if o.Subresource == "resize" {
			if str(mapOf(mapOf(old["spec"])["os"]), "name") == "windows" {
				return field.ErrorList{field.Forbidden(field.NewPath(""), "windows pods cannot be resized")}
			}
			return distinct(append(errs, podResizeChecks(obj, old, false, len(errs) > 0)...))
		}
		return distinct(append(errs, podEphemeralChecks(obj, old, false)...))
	}
	return nil
}

// validatePodMetadataAndSpec is validatePodMetadataAndSpec: the pod's metadata and spec, and
// the checks proper to a pod (not a template).
func validatePodMetadataAndSpec(obj map[string]any, opts PodOptions) field.ErrorList {
	spec := mapOf(obj["spec"])
	sp := field.NewPath("spec")
	errs := coreObjectMeta(obj, true, nil)
	errs = append(errs, validatePodSpec(sp, spec, mapOf(obj["metadata"]), opts)...)
	if str(spec, "serviceAccountName") == "" {
		for vi, v := range listOf(spec["volumes"]) {
			proj := mapOf(mapOf(v)["projected"])
			if proj == nil {
				continue
			}
			for si, s := range listOf(proj["sources"]) {
				if has(mapOf(s), "serviceAccountToken") {
					errs = append(errs, field.Forbidden(sp.Child("volumes").Index(vi).Child("projected", "sources").Index(si).Child("serviceAccountToken"),
						"must not be specified when serviceAccountName is not set"))
				}
			}
		}
	}
	if n, ok := integer(spec, "terminationGracePeriodSeconds"); ok && n < 0 {
		errs = append(errs, field.Invalid(sp.Child("terminationGracePeriodSeconds"), n, "must be greater than or equal to 0"))
	}
	for _, key := range []string{"containers", "initContainers"} {
		for i, c := range listOf(spec[key]) {
			errs = append(errs, containerOnlyForPod(sp.Child(key).Index(i), mapOf(c))...)
		}
	}
	return errs
}

// validatePodTemplate is the PodTemplate strategy's Validate (ValidatePodTemplate).
func validatePodTemplate(obj map[string]any, _ Options) field.ErrorList {
	tmpl := mapOf(obj["template"])
	opts := NewPodOptions(mapOf(tmpl["spec"]), nil)
	errs := coreObjectMeta(obj, true, nil)
	return distinct(append(errs, ValidatePodTemplateSpec(field.NewPath("template"), tmpl, opts)...))
}

// validatePodTemplateUpdate is ValidatePodTemplateUpdate.
func validatePodTemplateUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	tmpl := mapOf(obj["template"])
	opts := NewPodOptions(mapOf(tmpl["spec"]), mapOf(mapOf(old["template"])["spec"]))
	errs := coreObjectMetaUpdate(obj, old)
	return distinct(append(errs, ValidatePodTemplateSpec(field.NewPath("template"), tmpl, opts)...))
}

// ValidatePodTemplateSpec is the apiserver's ValidatePodTemplateSpec: a template's labels,
// annotations and pod spec, as every workload validates its spec.template (path is where the
// template sits, e.g. spec.template). tmpl is not modified.
func ValidatePodTemplateSpec(path field.Path, tmpl map[string]any, opts PodOptions) field.ErrorList {
	md := mapOf(tmpl["metadata"])
	errs := schema.ValidateLabels(stringMap(md["labels"]), path.Child("labels"))
	errs = append(errs, schema.ValidateAnnotations(stringMap(md["annotations"]), path.Child("annotations"))...)
	spec := mapOf(tmpl["spec"])
	errs = append(errs, ValidatePodSpec(path.Child("spec"), spec, opts)...)
	if len(listOf(spec["ephemeralContainers"])) > 0 {
		errs = append(errs, field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// ValidatePodSpec is the apiserver's ValidatePodSpec on a pod spec at path, in its order. spec
// is not modified. The pod's own metadata (podName, annotations) is not read: a template's
// spec is validated without it.
//
// Every rule of ValidatePodSpec is modelled, in its order, with the feature gates at their 1.37
// defaults: volumes (each source's checks), resource claims, containers, init and ephemeral
// containers, pod-level resources, host network ports, restartPolicy, dnsPolicy, nodeSelector,
// the pod security context, shareProcessNamespace, imagePullSecrets, node and pod
// (anti-)affinity, dnsConfig, readiness and scheduling gates, topology spread constraints,
// Windows host-process rules, hostUsers, hostnameOverride, service account, node name,
// activeDeadlineSeconds, hostname, subdomain, tolerations, host aliases, priority class, runtime
// class, preemption policy, overhead, the OS rules, fileKeyRef volumes. Not modelled: an
// ephemeral volume's claim template spec (PersistentVolumeClaim validation, left to that kind),
// projected volume sources, schedulingGroup and evictionResponders (alpha), and the pod
// annotations (ValidatePodSpecificAnnotations, seccomp and AppArmor annotation/field
// agreement). A ResourceList's errors come in key order (the apiserver's is Go map order).
func ValidatePodSpec(path field.Path, spec map[string]any, opts PodOptions) field.ErrorList {
	return validatePodSpec(path, spec, nil, opts)
}

// validatePodSpec is ValidatePodSpec; podMeta is the pod's metadata (nil for a template).
func validatePodSpec(path field.Path, spec, podMeta map[string]any, opts PodOptions) field.ErrorList {
	var errs field.ErrorList
	if !has(spec, "terminationGracePeriodSeconds") {
		errs = append(errs, field.Required(path.Child("terminationGracePeriodSeconds"), ""))
	}
	pc := newPodContext(spec, opts)
	vols, verrs := validateVolumes(path.Child("volumes"), listOf(spec["volumes"]), str(podMeta, "name"))
	pc.volumes = vols
	errs = append(errs, verrs...)
	errs = append(errs, podResourceClaims(path.Child("resourceClaims"), listOf(spec["resourceClaims"]), podMeta)...)
	ctrs, inits := listOf(spec["containers"]), listOf(spec["initContainers"])
	errs = append(errs, validateContainers(path.Child("containers"), ctrs, pc)...)
	errs = append(errs, validateInitContainers(path.Child("initContainers"), inits, ctrs, pc)...)
	errs = append(errs, validateEphemeralContainers(path.Child("ephemeralContainers"), listOf(spec["ephemeralContainers"]), ctrs, inits, pc)...)
	errs = append(errs, podResources(path, spec, pc.claimNames)...)
	errs = append(errs, hostNetworkDeps(path, spec, opts)...)
	if rp := str(spec, "restartPolicy"); rp != "Always" && rp != "OnFailure" && rp != "Never" {
		errs = append(errs, enumRequired(path.Child("restartPolicy"), rp, "Always", "OnFailure", "Never")...)
	}
	switch dp := str(spec, "dnsPolicy"); dp {
	case "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None":
	default:
		errs = append(errs, enumRequired(path.Child("dnsPolicy"), dp, "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")...)
	}
	if ns := mapOf(spec["nodeSelector"]); len(ns) > 0 {
		errs = append(errs, schema.ValidateLabels(stringMap(ns), path.Child("nodeSelector"))...)
	}
	errs = append(errs, podSecurityContext(path.Child("securityContext"), spec, opts)...)
	if sp, ok := boolean(spec, "shareProcessNamespace"); ok && sp {
		if hp, _ := boolean(spec, "hostPID"); hp {
			errs = append(errs, field.Invalid(path.Child("shareProcessNamespace"), sp, "ShareProcessNamespace and HostPID cannot both be enabled"))
		}
	}
	errs = append(errs, imagePullSecrets(path.Child("imagePullSecrets"), listOf(spec["imagePullSecrets"]))...)
	if na, ok := mapOf(spec["affinity"])["nodeAffinity"].(map[string]any); ok {
		errs = append(errs, nodeAffinity(path.Child("affinity", "nodeAffinity"), na, opts)...)
	}
	for _, key := range []string{"podAffinity", "podAntiAffinity"} {
		if pa, ok := mapOf(spec["affinity"])[key].(map[string]any); ok {
			errs = append(errs, podAffinity(path.Child("affinity", key), pa, opts.allowInvalidLabelValueInSelector)...)
		}
	}
	errs = append(errs, dnsConfig(path.Child("dnsConfig"), spec)...)
	errs = append(errs, readinessGates(path.Child("readinessGates"), listOf(spec["readinessGates"]))...)
	errs = append(errs, schedulingGates(path.Child("schedulingGates"), listOf(spec["schedulingGates"]))...)
	errs = append(errs, topologySpreadConstraints(path.Child("topologySpreadConstraints"), listOf(spec["topologySpreadConstraints"]), opts)...)
	errs = append(errs, windowsHostProcess(path, spec)...)
	errs = append(errs, hostUsersRules(path, spec, opts)...)
	errs = append(errs, hostnameOverride(path, spec)...)
	if sa := str(spec, "serviceAccountName"); sa != "" {
		for _, msg := range ivalidation.NameIsDNSSubdomain(sa, false) {
			errs = append(errs, field.Invalid(path.Child("serviceAccountName"), sa, msg))
		}
	}
	if d, sa := str(spec, "serviceAccount"), str(spec, "serviceAccountName"); d != sa {
		errs = append(errs, field.Invalid(path.Child("deprecatedServiceAccount"), d, fmt.Sprintf("must be the same as serviceAccountName: %q", sa)))
	}
	if n := str(spec, "nodeName"); n != "" {
		for _, msg := range ivalidation.NameIsDNSSubdomain(n, false) {
			errs = append(errs, field.Invalid(path.Child("nodeName"), n, msg))
		}
	}
	if v, ok := integer(spec, "activeDeadlineSeconds"); ok && (v < 1 || v > math.MaxInt32) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), v, inclusiveRange(1, math.MaxInt32)))
	}
	for _, key := range []string{"hostname", "subdomain"} {
		if v := str(spec, key); v != "" {
			errs = append(errs, dns1123Label(path.Child(key), v)...)
		}
	}
	if tols := listOf(spec["tolerations"]); len(tols) > 0 {
		errs = append(errs, validateTolerations(path.Child("tolerations"), tols)...)
	}
	if ha := listOf(spec["hostAliases"]); len(ha) > 0 {
		errs = append(errs, hostAliases(path.Child("hostAliases"), ha)...)
	}
	if v := str(spec, "priorityClassName"); v != "" {
		for _, msg := range ivalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(path.Child("priorityClassName"), v, msg))
		}
	}
	if v, ok := spec["runtimeClassName"].(string); ok {
		for _, msg := range ivalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(path.Child("runtimeClassName"), v, msg))
		}
	}
	if v, ok := spec["preemptionPolicy"].(string); ok {
		switch v {
		case "PreemptLowerPriority", "Never":
		case "":
			errs = append(errs, field.Required(path.Child("preemptionPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(path.Child("preemptionPolicy"), v, []string{"PreemptLowerPriority", "Never"}))
		}
	}
	if oh, ok := spec["overhead"].(map[string]any); ok {
		errs = append(errs, resourceRequirements(path.Child("overhead"), map[string]any{"limits": oh}, ValidateContainerResourceName, nil)...)
	}
	errs = append(errs, osRules(path, spec)...)
	return append(errs, fileKeyRefVolumes(path, spec)...)
}

// podResourceClaims is validatePodResourceClaims.
func podResourceClaims(p field.Path, claims []any, podMeta map[string]any) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, raw := range claims {
		if _, static := mapOf(podMeta["annotations"])["kubernetes.io/config.mirror"]; static && podMeta != nil {
			errs = append(errs, field.Forbidden(field.NewPath(""), "static pods do not support resource claims"))
			continue
		}
		c := mapOf(raw)
		ip := p.Index(i)
		name := str(c, "name")
		switch {
		case name == "":
			errs = append(errs, field.Required(ip.Child("name"), ""))
		case names[name]:
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		default:
			errs = append(errs, dns1123Label(ip.Child("name"), name)...)
			names[name] = true
		}
		rcn, hasRCN := c["resourceClaimName"].(string)
		rctn, hasRCTN := c["resourceClaimTemplateName"].(string)
		if hasRCN && hasRCTN {
			errs = append(errs, field.Invalid(ip, goValue{c, "PodResourceClaim"}, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		}
		if !hasRCN && !hasRCTN {
			errs = append(errs, field.Invalid(ip, goValue{c, "PodResourceClaim"}, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
		if hasRCN {
			for _, m := range ivalidation.NameIsDNSSubdomain(rcn, false) {
				errs = append(errs, field.Invalid(ip.Child("resourceClaimName"), rcn, m))
			}
		}
		if hasRCTN {
			for _, m := range ivalidation.NameIsDNSSubdomain(rctn, false) {
				errs = append(errs, field.Invalid(ip.Child("resourceClaimTemplateName"), rctn, m))
			}
		}
	}
	return errs
}

// podWarnings is the pod strategy's WarningsOnCreate; WarningsOnUpdate returns none (the
// apiserver skips them on the high-frequency pod update path).
func podWarnings(obj, old map[string]any, _ Options) []string {
	if old != nil {
		return nil
	}
	var warnings []string
	name := str(mapOf(obj["metadata"]), "name")
	if msgs := ivalidation.IsDNS1123Label(name); len(msgs) != 0 {
		warnings = append(warnings, fmt.Sprintf("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
	}
	return append(warnings, podSpecWarnings(nil, mapOf(obj["spec"]), mapOf(obj["metadata"]))...)
}

// podTemplateWarnings is the PodTemplate strategy's WarningsOnCreate and WarningsOnUpdate.
func podTemplateWarnings(obj, old map[string]any, _ Options) []string {
	if old != nil {
		// Only when the template changed (the generation went up).
		g, _ := integer(mapOf(obj["metadata"]), "generation")
		og, _ := integer(mapOf(old["metadata"]), "generation")
		if g == og {
			return nil
		}
		return PodTemplateWarnings(field.NewPath("template"), mapOf(obj["template"]), mapOf(old["template"]))
	}
	return PodTemplateWarnings(field.NewPath("template"), mapOf(obj["template"]), nil)
}

// enumRequired is the switch the apiserver writes for a required enumeration: empty is
// Required, an unknown value NotSupported with the values in the order given.
func enumRequired(p field.Path, v string, valid ...string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	for _, x := range valid {
		if v == x {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, v, valid)}
}

func dns1123Label(p field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range ivalidation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// inclusiveRange is apimachinery's InclusiveRangeError.
func inclusiveRange(lo, hi int) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}
