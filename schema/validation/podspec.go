package validation

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// The parts of ValidatePodSpec after the containers: host network, security context, image
// pull secrets, node affinity, DNS config, readiness and scheduling gates, host users, the host
// name override, host aliases, the OS, and file key references.

// hostNetworkDeps is validatePodHostNetworkDeps.
func hostNetworkDeps(p field.Path, spec map[string]any, opts PodOptions) field.ErrorList {
	if hn, _ := boolean(spec, "hostNetwork"); !hn {
		return nil
	}
	var errs field.ErrorList
	for i, c := range listOf(spec["containers"]) {
		for j, pr := range listOf(mapOf(c)["ports"]) {
			hp, _ := integer(mapOf(pr), "hostPort")
			cp, _ := integer(mapOf(pr), "containerPort")
			if (opts.ResourceIsPod || hp != 0) && hp != cp {
				errs = append(errs, field.Invalid(p.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"), hp, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

var rxSysctl = regexp.MustCompile("^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$")

// podSecurityContext is validatePodSpecSecurityContext (SELinuxMount is off and
// SELinuxChangePolicy GA: only Recursive unless the stored spec sets a policy).
func podSecurityContext(p field.Path, spec map[string]any, opts PodOptions) field.ErrorList {
	sc, ok := spec["securityContext"].(map[string]any)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	if g, ok := integer(sc, "fsGroup"); ok {
		for _, m := range ivalidation.IsValidGroupID(g) {
			errs = append(errs, field.Invalid(p.Child("fsGroup"), g, m))
		}
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
	for i, raw := range listOf(sc["supplementalGroups"]) {
		g, _ := raw.(int64)
		for _, m := range ivalidation.IsValidGroupID(g) {
			errs = append(errs, field.Invalid(p.Child("supplementalGroups").Index(i), g, m))
		}
	}
	if sysctls := listOf(sc["sysctls"]); len(sysctls) != 0 {
		names := map[string]bool{}
		for i, raw := range sysctls {
			name := str(mapOf(raw), "name")
			np := p.Child("sysctls").Index(i).Child("name")
			switch {
			case name == "":
				errs = append(errs, field.Required(np, ""))
			case len(name) > 253 || !rxSysctl.MatchString(name):
				errs = append(errs, field.Invalid(np, name, fmt.Sprintf("must have at most %d characters and match regex %s", 253, rxSysctl)))
			case names[name]:
				errs = append(errs, field.Duplicate(np, name))
			}
			if !opts.allowHostSysctls {
				if e := hostSysctl(np, name, spec); e != nil {
					errs = append(errs, e)
				}
			}
			names[name] = true
		}
	}
	if v, ok := sc["fsGroupChangePolicy"].(string); ok && v != "OnRootMismatch" && v != "Always" {
		errs = append(errs, field.NotSupported(p.Child("fsGroupChangePolicy"), v, []string{"Always", "OnRootMismatch"}))
	}
	errs = append(errs, seccompProfile(p.Child("seccompProfile"), sc["seccompProfile"])...)
	errs = append(errs, windowsOptions(p.Child("windowsOptions"), sc["windowsOptions"])...)
	errs = append(errs, appArmorProfile(p.Child("appArmorProfile"), sc["appArmorProfile"])...)
	if v, ok := sc["supplementalGroupsPolicy"].(string); ok && v != "Merge" && v != "Strict" {
		errs = append(errs, field.NotSupported(p.Child("supplementalGroupsPolicy"), v, []string{"Merge", "Strict"}))
	}
	if v, ok := sc["seLinuxChangePolicy"].(string); ok {
		if opts.onlyRecursiveSELinux {
			if v != "Recursive" {
				errs = append(errs, field.NotSupported(p.Child("seLinuxChangePolicy"), v, []string{"Recursive"}))
			}
		} else if v != "Recursive" && v != "MountOption" {
			errs = append(errs, field.NotSupported(p.Child("seLinuxChangePolicy"), v, []string{"MountOption", "Recursive"}))
		}
	}
	return errs
}

// hostSysctl is ValidateHostSysctl: a namespaced sysctl with the host's namespace shared.
func hostSysctl(p field.Path, name string, spec map[string]any) *field.Error {
	ns := sysctlNamespace(name)
	hn, _ := boolean(spec, "hostNetwork")
	hipc, _ := boolean(spec, "hostIPC")
	switch {
	case hn && ns == "Net":
		return field.Invalid(p, name, "may not be specified when 'hostNetwork' is true")
	case hipc && ns == "IPC":
		return field.Invalid(p, name, "may not be specified when 'hostIPC' is true")
	}
	return nil
}

var sysctlNames = map[string]string{"kernel.domainname": "UTS", "kernel.sem": "IPC", "kernel.shmall": "IPC",
	"kernel.shmmax": "IPC", "kernel.shmmni": "IPC", "kernel.shm_rmid_forced": "IPC", "kernel.shm": "IPC",
	"kernel.msgmax": "IPC", "kernel.msgmnb": "IPC", "kernel.msgmni": "IPC", "kernel.msg": "IPC"}

// sysctlNamespace is sysctl.GetNamespace's namespace.
func sysctlNamespace(name string) string {
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		name = strings.Map(func(r rune) rune {
			switch r {
			case '.':
				return '/'
			case '/':
				return '.'
			}
			return r
		}, name)
	}
	if i := strings.IndexByte(name, '*'); i >= 0 {
		name = name[:i]
	}
	if ns, ok := sysctlNames[name]; ok {
		return ns
	}
	for _, pr := range []struct{ prefix, ns string }{{"net.", "Net"}, {"fs.mqueue.", "IPC"}, {"user.", "User"}} {
		if strings.HasPrefix(name, pr.prefix) {
			return pr.ns
		}
	}
	return ""
}

// imagePullSecrets is validateImagePullSecrets: only the name may be set.
func imagePullSecrets(p field.Path, refs []any) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range refs {
		for k, v := range mapOf(raw) {
			if k != "name" && !zero(v) {
				errs = append(errs, field.Invalid(p.Index(i), goValue{mapOf(raw), "LocalObjectReference"}, "only name may be set"))
				break
			}
		}
	}
	return errs
}

// nodeAffinity is validateNodeAffinity.
func nodeAffinity(p field.Path, na map[string]any, opts PodOptions) field.ErrorList {
	var errs field.ErrorList
	if req, ok := na["requiredDuringSchedulingIgnoredDuringExecution"].(map[string]any); ok {
		errs = append(errs, NodeSelector(p.Child("requiredDuringSchedulingIgnoredDuringExecution"), req, opts.allowInvalidLabelValueInRequiredNodeAffinity)...)
	}
	for i, raw := range listOf(na["preferredDuringSchedulingIgnoredDuringExecution"]) {
		t := mapOf(raw)
		ip := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, schedulingWeight(ip, t)...)
		errs = append(errs, NodeSelectorTerm(ip.Child("preference"), mapOf(t["preference"]), true)...)
	}
	return errs
}

// NodeSelector is ValidateNodeSelector (a node affinity's required terms, a PersistentVolume's
// node affinity, a RuntimeClass's scheduling).
func NodeSelector(p field.Path, ns map[string]any, allowInvalidLabelValue bool) field.ErrorList {
	terms := listOf(ns["nodeSelectorTerms"])
	tp := p.Child("nodeSelectorTerms")
	if len(terms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range terms {
		errs = append(errs, NodeSelectorTerm(tp.Index(i), mapOf(t), allowInvalidLabelValue)...)
	}
	return errs
}

// NodeSelectorTerm is ValidateNodeSelectorTerm.
func NodeSelectorTerm(p field.Path, term map[string]any, allowInvalidLabelValue bool) field.ErrorList {
	var errs field.ErrorList
	for j, raw := range listOf(term["matchExpressions"]) {
		errs = append(errs, nodeSelectorRequirement(p.Child("matchExpressions").Index(j), mapOf(raw), allowInvalidLabelValue)...)
	}
	for j, raw := range listOf(term["matchFields"]) {
		errs = append(errs, nodeFieldSelectorRequirement(p.Child("matchFields").Index(j), mapOf(raw))...)
	}
	return errs
}

func nodeSelectorRequirement(p field.Path, rq map[string]any, allowInvalidLabelValue bool) field.ErrorList {
	var errs field.ErrorList
	values := stringList(rq["values"])
	switch op := str(rq, "operator"); op {
	case "In", "NotIn":
		if len(values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case "Exists", "DoesNotExist":
		if len(values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case "Gt", "Lt":
		if len(values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), op, "not a valid selector operator"))
	}
	errs = append(errs, qualifiedName(p.Child("key"), str(rq, "key"))...)
	if !allowInvalidLabelValue {
		for i, v := range values {
			for _, m := range ivalidation.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), v, m))
			}
		}
	}
	return errs
}

func nodeFieldSelectorRequirement(p field.Path, rq map[string]any) field.ErrorList {
	var errs field.ErrorList
	values := stringList(rq["values"])
	switch op := str(rq, "operator"); op {
	case "In", "NotIn":
		if len(values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), op, "not a valid selector operator"))
	}
	if key := str(rq, "key"); key != "metadata.name" {
		errs = append(errs, field.Invalid(p.Child("key"), key, "not a valid field selector key"))
	} else {
		for i, v := range values {
			for _, m := range ivalidation.NameIsDNSSubdomain(v, false) {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), v, m))
			}
		}
	}
	return errs
}

// dnsConfig is validatePodDNSConfig.
func dnsConfig(p field.Path, spec map[string]any) field.ErrorList {
	dc, hasDC := spec["dnsConfig"].(map[string]any)
	if str(spec, "dnsPolicy") == "None" {
		if !hasDC {
			return field.ErrorList{field.Required(p, "must provide `dnsConfig` when `dnsPolicy` is None")}
		}
		if len(listOf(dc["nameservers"])) == 0 {
			return field.ErrorList{field.Required(p.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")}
		}
	}
	if !hasDC {
		return nil
	}
	var errs field.ErrorList
	ns := stringList(dc["nameservers"])
	if len(ns) > 3 {
		errs = append(errs, field.Invalid(p.Child("nameservers"), ns, "must not have more than 3 nameservers"))
	}
	for i, n := range ns {
		errs = append(errs, legacyIP(p.Child("nameservers").Index(i), n)...)
	}
	searches := stringList(dc["searches"])
	if len(searches) > 32 {
		errs = append(errs, field.Invalid(p.Child("searches"), searches, "must not have more than 32 search paths"))
	}
	if len(strings.Join(searches, " ")) > 2048 {
		errs = append(errs, field.Invalid(p.Child("searches"), searches, "must not have more than 2048 characters (including spaces) in the search list"))
	}
	for i, s := range searches {
		if s != "." {
			s = strings.TrimSuffix(s, ".")
			for _, m := range ivalidation.IsDNS1123SubdomainWithUnderscore(s) {
				errs = append(errs, field.Invalid(p.Child("searches").Index(i), s, m))
			}
		}
	}
	for i, o := range listOf(dc["options"]) {
		if str(mapOf(o), "name") == "" {
			errs = append(errs, field.Required(p.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

// legacyIP is IsValidIPForLegacyField with StrictIPCIDRValidation on (its 1.37 default).
func legacyIP(p field.Path, v string) field.ErrorList {
	if parseIPSloppy(v) == nil {
		return field.ErrorList{field.Invalid(p, v, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	var errs field.ErrorList
	addr, err := netip.ParseAddr(v)
	if err != nil {
		errs = append(errs, field.Invalid(p, v, "must not have leading 0s"))
	}
	if addr.Is4In6() {
		errs = append(errs, field.Invalid(p, v, "must not be an IPv4-mapped IPv6 address"))
	}
	return errs
}

// readinessGates is validateReadinessGates.
func readinessGates(p field.Path, gates []any) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		errs = append(errs, qualifiedName(p.Index(i).Child("conditionType"), str(mapOf(g), "conditionType"))...)
	}
	return errs
}

// schedulingGates is validateSchedulingGates.
func schedulingGates(p field.Path, gates []any) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, g := range gates {
		name := str(mapOf(g), "name")
		errs = append(errs, qualifiedName(p.Index(i), name)...)
		if seen[name] {
			errs = append(errs, field.Duplicate(p.Index(i), name))
		}
		seen[name] = true
	}
	return errs
}

// hostUsers is validateHostUsers (UserNamespacesHostNetworkSupport is off).
func hostUsersRules(p field.Path, spec map[string]any, opts PodOptions) field.ErrorList {
	if hu, ok := boolean(spec, "hostUsers"); !ok || hu {
		return nil
	}
	var errs field.ErrorList
	if b, _ := boolean(spec, "hostNetwork"); b && !opts.allowUsernsHostNetwork {
		errs = append(errs, field.Forbidden(p.Child("hostNetwork"), "when `hostUsers` is false"))
	}
	if b, _ := boolean(spec, "hostPID"); b {
		errs = append(errs, field.Forbidden(p.Child("HostPID"), "when `hostUsers` is false"))
	}
	if b, _ := boolean(spec, "hostIPC"); b {
		errs = append(errs, field.Forbidden(p.Child("HostIPC"), "when `hostUsers` is false"))
	}
	if !opts.allowUsernsVolumeDevices {
		visitContainers(p, spec, func(cp field.Path, c map[string]any) {
			if len(listOf(c["volumeDevices"])) > 0 {
				errs = append(errs, field.Forbidden(cp.Child("volumeDevices"), "when `hostUsers` is false"))
			}
		})
	}
	return errs
}

// visitContainers is podshelper.VisitContainersWithPath: init containers, containers, then
// ephemeral containers.
func visitContainers(p field.Path, spec map[string]any, fn func(field.Path, map[string]any)) {
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for i, c := range listOf(spec[key]) {
			fn(p.Child(key).Index(i), mapOf(c))
		}
	}
}

// eachContainer is visitContainers without the paths: fn gets the list's key and the index,
// for a rule to build the path only when it reports an error.
func eachContainer(spec map[string]any, fn func(key string, i int, c map[string]any)) {
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for i, c := range listOf(spec[key]) {
			fn(key, i, mapOf(c))
		}
	}
}

// hostnameOverride is validatePodHostName.
func hostnameOverride(p field.Path, spec map[string]any) field.ErrorList {
	h, ok := spec["hostnameOverride"].(string)
	if !ok {
		return nil
	}
	hp := p.Child("hostnameOverride")
	var errs field.ErrorList
	if fqdn, _ := boolean(spec, "setHostnameAsFQDN"); fqdn {
		errs = append(errs, field.Forbidden(hp, "may not be specified when setHostnameAsFQDN is true"))
	}
	if hn, _ := boolean(spec, "hostNetwork"); hn {
		errs = append(errs, field.Forbidden(hp, "may not be specified when hostNetwork is true"))
	}
	if len(h) > 64 {
		errs = append(errs, field.TooLong(hp, "", 64))
	}
	for _, m := range ivalidation.IsDNS1123Subdomain(h) {
		errs = append(errs, field.Invalid(hp, h, m))
	}
	return errs
}

// hostAliases is ValidateHostAliases.
func hostAliases(p field.Path, aliases []any) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range aliases {
		a := mapOf(raw)
		errs = append(errs, legacyIP(p.Index(i).Child("ip"), str(a, "ip"))...)
		for j, h := range stringList(a["hostnames"]) {
			for _, m := range ivalidation.IsDNS1123Subdomain(h) {
				errs = append(errs, field.Invalid(p.Index(i).Child("hostnames").Index(j), h, m))
			}
		}
	}
	return errs
}

// fileKeyRefVolumes is validateFileKeyRefVolumes: a fileKeyRef's volume is an emptyDir.
func fileKeyRefVolumes(p field.Path, spec map[string]any) field.ErrorList {
	var vols map[string]map[string]any // by name, made at the first fileKeyRef
	var errs field.ErrorList
	eachContainer(spec, func(key string, i int, c map[string]any) {
		for j, e := range listOf(c["env"]) {
			fk, ok := mapOf(mapOf(e)["valueFrom"])["fileKeyRef"].(map[string]any)
			if !ok {
				continue
			}
			if vols == nil {
				vols = map[string]map[string]any{}
				for _, v := range listOf(spec["volumes"]) {
					vols[str(mapOf(v), "name")] = mapOf(v)
				}
			}
			name := str(fk, "volumeName")
			np := p.Child(key).Index(i).Child("env").Index(j).Child("valueFrom", "fileKeyRef", "volumeName")
			if v, found := vols[name]; !found {
				errs = append(errs, field.NotFound(np, name))
			} else if !has(v, "emptyDir") {
				errs = append(errs, field.Invalid(np, name, "referenced volume must be of type emptyDir"))
			}
		}
	})
	return errs
}
