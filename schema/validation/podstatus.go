package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
)

// ValidatePodStatusUpdate: the pod status strategy's ValidateUpdate. Modelled: metadata,
// conditions, nodeName, nominatedNodeName, observedGeneration, the immutable QoS class,
// container state transitions, resource claim and extended resource claim statuses, pod and
// host IPs, container status users, allocated resources status. Not modelled: the
// node-allocatable resource claim statuses (DRANodeAllocatableResources, alpha), volume health,
// the pod annotations' update rules (ValidatePodSpecificAnnotationUpdates).

func validatePodStatusUpdate(obj, old map[string]any) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	sp := field.NewPath("status")
	st, oldSt := mapOf(obj["status"]), mapOf(old["status"])
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	system := map[string]bool{"PodScheduled": true, "Ready": true, "Initialized": true}
	for i, raw := range listOf(st["conditions"]) {
		c := mapOf(raw)
		if g, _ := integer(c, "observedGeneration"); g < 0 {
			errs = append(errs, field.Invalid(sp.Child("conditions").Index(i).Child("observedGeneration"), g, "must be a non-negative integer"))
		}
		if t := str(c, "type"); !system[t] {
			errs = append(errs, qualifiedName(sp.Child("conditions").Index(i).Child("Type"), t)...)
		}
	}
	if str(spec, "nodeName") != str(oldSpec, "nodeName") {
		errs = append(errs, field.Forbidden(sp.Child("nodeName"), "may not be changed directly"))
	}
	nn, oldNN := str(st, "nominatedNodeName"), str(oldSt, "nominatedNodeName")
	if nn != oldNN && nn != "" {
		for _, m := range ivalidation.NameIsDNSSubdomain(nn, false) {
			errs = append(errs, field.Invalid(sp.Child("nominatedNodeName"), nn, m))
		}
	}
	if str(oldSpec, "nodeName") != "" && nn != "" && nn != oldNN {
		errs = append(errs, field.Forbidden(sp.Child("nominatedNodeName"), "may not be set on pods that are already bound to a node"))
	}
	if g, _ := integer(st, "observedGeneration"); g < 0 {
		errs = append(errs, field.Invalid(sp.Child("observedGeneration"), g, "must be a non-negative integer"))
	}
	if q, oq := str(st, "qosClass"), str(oldSt, "qosClass"); q != oq {
		errs = append(errs, field.Invalid(sp.Child("qosClass"), q, "field is immutable"))
	}
	errs = append(errs, stateTransitions(sp.Child("containerStatuses"), listOf(st["containerStatuses"]), listOf(oldSt["containerStatuses"]), oldSpec, "containers")...)
	errs = append(errs, stateTransitions(sp.Child("initContainerStatuses"), listOf(st["initContainerStatuses"]), listOf(oldSt["initContainerStatuses"]), oldSpec, "initContainers")...)
	errs = append(errs, stateTransitions(sp.Child("ephemeralContainerStatuses"), listOf(st["ephemeralContainerStatuses"]), listOf(oldSt["ephemeralContainerStatuses"]), nil, "")...)
	errs = append(errs, resourceClaimStatuses(sp.Child("resourceClaimStatuses"), listOf(st["resourceClaimStatuses"]), listOf(spec["resourceClaims"]))...)
	errs = append(errs, extendedResourceClaimStatus(sp.Child("extendedResourceClaimStatus"), st, spec)...)
	errs = append(errs, statusIPs(sp.Child("podIPs"), st, oldSt, "podIP", "podIPs", true)...)
	if len(listOf(st["hostIPs"])) > 0 {
		errs = append(errs, statusIPs(sp.Child("hostIPs"), st, oldSt, "hostIP", "hostIPs", false)...)
	}
	for _, k := range []string{"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"} {
		errs = append(errs, containerStatusUsers(sp.Child(k), listOf(st[k]), spec)...)
	}
	errs = append(errs, allocatedResourcesStatus(sp.Child("containerStatuses"), listOf(st["containerStatuses"]), listOf(spec["containers"]), st, false)...)
	errs = append(errs, allocatedResourcesStatus(sp.Child("initContainerStatuses"), listOf(st["initContainerStatuses"]), listOf(spec["initContainers"]), st, false)...)
	return append(errs, allocatedResourcesStatus(sp.Child("ephemeralContainerStatuses"), listOf(st["ephemeralContainerStatuses"]), nil, st, true)...)
}

func terminated(status map[string]any) (map[string]any, bool) {
	t, ok := mapOf(status["state"])["terminated"].(map[string]any)
	return t, ok
}

// stateTransitions is ValidateContainerStateTransition, ValidateInitContainerStateTransition
// and ValidateEphemeralContainerStateTransition (ContainerRestartRules and
// RestartAllContainersOnContainerExits on): a terminated container may come back only if it
// would be restarted. key is the spec list the statuses belong to ("" for ephemeral containers).
func stateTransitions(p field.Path, statuses, old []any, oldSpec map[string]any, key string) field.ErrorList {
	var errs field.ErrorList
	if key != "" && allContainersCouldRestart(oldSpec) {
		return nil
	}
	for i, raw := range old {
		os := mapOf(raw)
		term, ok := terminated(os)
		if !ok {
			continue
		}
		name := str(os, "name")
		for _, n := range statuses {
			ns := mapOf(n)
			if str(ns, "name") != name {
				continue
			}
			if _, stillTerminated := terminated(ns); stillTerminated {
				break
			}
			allowed := false
			if key != "" {
				code, _ := integer(term, "exitCode")
				for _, c := range listOf(oldSpec[key]) {
					if str(mapOf(c), "name") == name {
						allowed = containerShouldRestart(mapOf(c), str(oldSpec, "restartPolicy"), code)
						break
					}
				}
			}
			if !allowed {
				errs = append(errs, field.Forbidden(p.Index(i).Child("state"), "may not be transitioned to non-terminated state"))
			}
			if key != "" {
				break
			}
		}
	}
	return errs
}

func allContainersCouldRestart(spec map[string]any) bool {
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range listOf(spec[key]) {
			for _, r := range listOf(mapOf(c)["restartPolicyRules"]) {
				if str(mapOf(r), "action") == "RestartAllContainers" {
					return true
				}
			}
		}
	}
	return false
}

// containerShouldRestart is podutil.ContainerShouldRestart.
func containerShouldRestart(c map[string]any, podPolicy string, code int64) bool {
	if pol, ok := c["restartPolicy"].(string); ok {
		for _, raw := range listOf(c["restartPolicyRules"]) {
			r := mapOf(raw)
			ec, ok := r["exitCodes"].(map[string]any)
			if !ok {
				continue
			}
			matched := false
			for _, v := range listOf(ec["values"]) {
				if n, _ := v.(int64); n == code {
					matched = true
				}
			}
			op := str(ec, "operator")
			if (op == "In" && matched) || (op == "NotIn" && !matched) {
				if a := str(r, "action"); a == "Restart" || a == "RestartAllContainers" {
					return true
				}
				break
			}
		}
		switch pol {
		case "Always":
			return true
		case "OnFailure":
			return code != 0
		case "Never":
			return false
		}
	}
	switch podPolicy {
	case "OnFailure":
		return code != 0
	case "Never":
		return false
	}
	return true
}

// resourceClaimStatuses is validatePodResourceClaimStatuses.
func resourceClaimStatuses(p field.Path, statuses, claims []any) field.ErrorList {
	var errs field.ErrorList
	podClaims := map[string]bool{}
	for _, c := range claims {
		podClaims[str(mapOf(c), "name")] = true
	}
	seen := map[string]bool{}
	for i, raw := range statuses {
		s := mapOf(raw)
		ip := p.Index(i)
		name := str(s, "name")
		if !podClaims[name] {
			errs = append(errs, field.Invalid(ip.Child("name"), name, "must match the name of an entry in `spec.resourceClaims`"))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		} else {
			seen[name] = true
		}
		if rcn, ok := s["resourceClaimName"].(string); ok {
			for _, m := range ivalidation.NameIsDNSSubdomain(rcn, false) {
				errs = append(errs, field.Invalid(ip.Child("resourceClaimName"), rcn, m))
			}
		}
	}
	return errs
}

// ipList is a []core.PodIP or []core.HostIP as a bad value: [{"IP":"..."}].
type ipList []string

func (l ipList) MarshalJSON() ([]byte, error) {
	out := make([]map[string]string, len(l))
	for i, ip := range l {
		out[i] = map[string]string{"IP": ip}
	}
	return json.Marshal(out)
}

// statusIPs is validatePodIPs (pod true) and validateHostIPs.
func statusIPs(p field.Path, st, oldSt map[string]any, single, plural string, pod bool) field.ErrorList {
	var errs field.ErrorList
	var ips, oldIPs []string
	for _, x := range listOf(st[plural]) {
		ips = append(ips, str(mapOf(x), "ip"))
	}
	for _, x := range listOf(oldSt[plural]) {
		oldIPs = append(oldIPs, str(mapOf(x), "ip"))
	}
	if !pod && str(st, single) != ips[0] {
		errs = append(errs, field.Invalid(p.Index(0).Child("ip"), ips[0], "must be equal to `hostIP`"))
	}
	for i, ip := range ips {
		if contains(oldIPs, ip) {
			continue
		}
		errs = append(errs, legacyIP(p.Index(i), ip)...)
	}
	if len(ips) > 1 {
		v4, v6 := false, false
		for i, ip := range ips {
			parsed := parseIPSloppy(ip)
			if parsed == nil {
				errs = append(errs, field.InternalError(p, fmt.Errorf("failed to check for dual stack with error:invalid IP[%d]: %v", i, ip)))
				v4, v6 = false, false
				break
			}
			if parsed.To4() != nil {
				v4 = true
			} else {
				v6 = true
			}
		}
		if !(v4 && v6) || len(ips) > 2 {
			errs = append(errs, field.Invalid(p, ipList(ips), "may specify no more than one IP for each IP family"))
		}
	}
	if pod {
		hasIP, hasIPs := str(st, single) != "", len(ips) > 0
		switch {
		case hasIP != hasIPs:
			errs = append(errs, field.Invalid(p, ipList(ips), "podIP and podIPs must either both be set or both be unset"))
		case hasIPs && str(st, single) != ips[0]:
			errs = append(errs, field.Invalid(p.Index(0).Child("ip"), ips[0], "must be equal to `podIP`"))
		}
	}
	return errs
}

// extendedResourceClaimStatus is validatePodExtendedResourceClaimStatus.
func extendedResourceClaimStatus(p field.Path, st, spec map[string]any) field.ErrorList {
	s, ok := st["extendedResourceClaimStatus"].(map[string]any)
	if !ok {
		return nil
	}
	ctrs := map[string]map[string]any{}
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range listOf(spec[key]) {
			ctrs[str(mapOf(c), "name")] = mapOf(c)
		}
	}
	var errs field.ErrorList
	rmp := p.Child("requestMappings")
	rms := listOf(s["requestMappings"])
	if len(rms) == 0 {
		errs = append(errs, field.Required(rmp, "at least one request mapping is required"))
	}
	seen := map[[3]string]bool{}
	for i, raw := range rms {
		rm := mapOf(raw)
		ip := rmp.Index(i)
		cn, rn, req := str(rm, "containerName"), str(rm, "resourceName"), str(rm, "requestName")
		if c, ok := ctrs[cn]; ok {
			if _, ok := mapOf(mapOf(c["resources"])["requests"])[rn]; !ok {
				errs = append(errs, field.Invalid(ip.Child("resourceName"), rn, "must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests"))
			}
		} else {
			errs = append(errs, field.Invalid(ip.Child("containerName"), cn, "must match the name of an entry in spec.initContainers.name or spec.containers.name"))
		}
		// The apiserver reports the request name at extendedResourceClaimStatus.requestName.
		errs = append(errs, dns1123Label(p.Child("requestName"), req)...)
		k := [3]string{cn, rn, req}
		if seen[k] {
			errs = append(errs, field.Duplicate(ip.Child("containerName"), cn), field.Duplicate(ip.Child("resourceName"), rn), field.Duplicate(ip.Child("requestName"), req))
		}
		seen[k] = true
	}
	if rcn := str(s, "resourceClaimName"); rcn == "" {
		errs = append(errs, field.Required(p.Child("resourceClaimName"), ""))
	} else {
		for _, m := range ivalidation.NameIsDNSSubdomain(rcn, false) {
			errs = append(errs, field.Invalid(p.Child("resourceClaimName"), rcn, m))
		}
	}
	return errs
}

// containerStatusUsers is validateContainerStatusUsers.
func containerStatusUsers(p field.Path, statuses []any, spec map[string]any) field.ErrorList {
	os := "linux"
	if o, ok := spec["os"].(map[string]any); ok {
		os = str(o, "name")
	}
	var errs field.ErrorList
	for i, raw := range statuses {
		lu, ok := mapOf(mapOf(raw)["user"])["linux"].(map[string]any)
		if !ok {
			continue
		}
		up := p.Index(i).Child("user", "linux")
		switch os {
		case "windows":
			errs = append(errs, field.Forbidden(up, "cannot be set for a windows pod"))
		case "linux":
			if uid, _ := integer(lu, "uid"); uid < 0 || uid > 1<<32-1 {
				errs = append(errs, field.Invalid(up.Child("uid"), uid, fmt.Sprintf("must be between 0 and %d, inclusive", int64(1<<32-1))))
			}
			gid, _ := integer(lu, "gid")
			for _, m := range ivalidation.IsValidGroupID(gid) {
				errs = append(errs, field.Invalid(up.Child("gid"), gid, m))
			}
			for g, raw := range listOf(lu["supplementalGroups"]) {
				n, _ := raw.(int64)
				for _, m := range ivalidation.IsValidGroupID(n) {
					errs = append(errs, field.Invalid(up.Child("supplementalGroups").Index(g), n, m))
				}
			}
		}
	}
	return errs
}

// allocatedResourcesStatus is validateContainerStatusAllocatedResourcesStatus (ctrs nil: the
// ephemeral containers', which may have none).
func allocatedResourcesStatus(p field.Path, statuses, ctrs []any, st map[string]any, ephemeral bool) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range statuses {
		cs := mapOf(raw)
		ars, ok := cs["allocatedResourcesStatus"].([]any)
		if ephemeral {
			if len(ars) > 0 {
				errs = append(errs, field.Forbidden(p.Index(i).Child("allocatedResourcesStatus"), "must not be specified in container status"))
			}
			continue
		}
		if !ok {
			continue
		}
		var ctr map[string]any
		for _, c := range ctrs {
			if str(mapOf(c), "name") == str(cs, "name") {
				ctr = mapOf(c)
				break
			}
		}
		for j, araw := range ars {
			ar := mapOf(araw)
			ap := p.Index(i).Child("allocatedResourcesStatus").Index(j)
			name := str(ar, "name")
			if ctr != nil {
				found := false
				msg := "must match one of the container's resource requests"
				res := mapOf(ctr["resources"])
				if strings.HasPrefix(name, "claim:") {
					msg = "must match one of the container's resource claims as 'claim:<claimName>/<requestName>' when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty"
					for _, c := range listOf(res["claims"]) {
						rs := "claim:" + str(mapOf(c), "name")
						if r := str(mapOf(c), "request"); r != "" {
							rs += "/" + r
						}
						if rs == name {
							found = true
							break
						}
					}
					if !found {
						found = matchesExtendedClaim(name, ctr, mapOf(st["extendedResourceClaimStatus"]))
					}
				} else {
					_, found = mapOf(res["requests"])[name]
				}
				if !found {
					errs = append(errs, field.Invalid(ap.Child("name"), name, msg))
				}
			}
			ids := map[string]bool{}
			for k, rraw := range listOf(ar["resources"]) {
				r := mapOf(rraw)
				rp := ap.Child("resources").Index(k)
				if h := str(r, "health"); h != "Healthy" && h != "Unhealthy" && h != "Unknown" {
					errs = append(errs, field.NotSupported(rp.Child("health"), h, []string{"Healthy", "Unhealthy", "Unknown"}))
				}
				if m, ok := r["message"].(string); ok {
					if m == "" {
						errs = append(errs, field.Required(rp.Child("message"), "must be non-empty if specified"))
					} else if len(m) > 1024 {
						errs = append(errs, field.TooLong(rp.Child("message"), m, 1024))
					}
				}
				id := str(r, "resourceID")
				if ids[id] {
					errs = append(errs, field.Duplicate(rp.Child("resourceID"), id))
				} else {
					ids[id] = true
				}
			}
		}
	}
	return errs
}

func matchesExtendedClaim(name string, ctr, s map[string]any) bool {
	if s == nil {
		return false
	}
	ref, ok := strings.CutPrefix(name, "claim:")
	if !ok {
		return false
	}
	claim, req, hasReq := strings.Cut(ref, "/")
	if claim == "" || (hasReq && req == "") || req == "" || claim != str(s, "resourceClaimName") {
		return false
	}
	for _, raw := range listOf(s["requestMappings"]) {
		m := mapOf(raw)
		if str(m, "containerName") != str(ctr, "name") || str(m, "requestName") != req {
			continue
		}
		if q, ok := qty(mapOf(mapOf(ctr["resources"])["requests"])[str(m, "resourceName")]); ok && !q.IsZero() {
			return true
		}
	}
	return false
}
