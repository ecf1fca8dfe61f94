package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/quantity"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
)

// The checks proper to the Pod /resize and /ephemeralcontainers subresources
// (ValidatePodResize, ValidatePodEphemeralContainersUpdate). ValidateUpdate runs them after the
// pod's metadata and spec validation, as the apiserver does; PodSubresourceChecks runs them
// alone, with only the part of the spec validation a resize or an ephemeral container can break
// (for a caller, such as package apply, that validates nothing else).

// PodSubresourceChecks is the update validation of Pod /resize or /ephemeralcontainers (sub)
// without the whole pod's validation: the subresource's own checks, and of the pod spec's, those
// a resize (requests and limits, names, resize policies, pod-level resources) or an ephemeral
// container (its own fields) can break. obj is the pod after the strategy's value reset, live the
// stored pod; neither is modified. nil for another subresource.
func PodSubresourceChecks(sub string, obj, live map[string]any) field.ErrorList {
	switch sub {
	case "resize":
		return podResizeChecks(obj, live, true, false)
	case "ephemeralcontainers":
		return podEphemeralChecks(obj, live, true)
	}
	return nil
}

// mirrorPodAnnotation marks a static pod's mirror (core.MirrorPodAnnotationKey).
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// ValidatePodResize is the apiserver's ValidatePodResize (podResizeStrategy.ValidateUpdate)
// with the feature gates of Kubernetes 1.37 at their defaults (InPlacePodVerticalScaling and
// InPlacePodVerticalScalingInitContainers GA, InPlacePodLevelResourcesVerticalScaling and
// PodLevelResources beta on, InPlacePodVerticalScalingMemoryBackedVolumes and
// DRANodeAllocatableResources alpha off). obj is the pod after the resize strategy's value reset
// (StrategyReset), live the stored pod. Errors come in the apiserver's order: a static or
// Windows pod alone; then, of the pod spec validation, each container's and init container's
// requests above their limits and the pod-level resources' consistency with the containers'
// (ValidatePodSpec; resources in name order, where the apiserver's order is random); then the
// QoS class, a pod whose running containers report no resources
// (its node cannot resize), pod-level resources, containers added, removed, renamed or
// reordered (which stops the checks), requests or limits removed, and changes other than cpu
// and memory requests and limits (not compared when priorErrors says the pod's own validation
// failed, as the apiserver returns before comparing).
func podResizeChecks(obj, live map[string]any, partial, priorErrors bool) field.ErrorList {
	if _, ok := mapOf(mapOf(live["metadata"])["annotations"])[mirrorPodAnnotation]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods cannot be resized")}
	}
	newSpec, oldSpec := mapOf(obj["spec"]), mapOf(live["spec"])
	if os, _ := mapOf(oldSpec["os"])["name"].(string); os == "windows" {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "windows pods cannot be resized")}
	}
	specPath := field.NewPath("spec")
	var errs field.ErrorList
	if partial {
		// Of the pod spec validation run first, the part a resize can break: requests and limits.
		errs = validateSpecResources(newSpec, oldSpec, specPath)
	}
	if oldQOS, newQOS := podQOS(live), computePodQOS(newSpec); oldQOS != newQOS {
		st, _ := mapOf(obj["status"])["qosClass"].(string)
		errs = append(errs, field.Invalid(specPath, st, "Pod QOS Class may not change as a result of resizing"))
	}
	if !resizeSupported(live) {
		errs = append(errs, field.Forbidden(specPath, "Pod running on node without support for resize"))
	}

	// newSpecMasked is newPodSpecCopy: the new spec with the allowed changes put back to the
	// stored values, compared with the stored spec at the end.
	newSpecMasked := shallowCopy(newSpec)
	if newSpecMasked == nil {
		newSpecMasked = map[string]any{}
	}
	if podLevelResourcesSet(oldSpec) || podLevelResourcesSet(newSpec) {
		errs = append(errs, validatePodLevelResize(newSpec, oldSpec, newSpecMasked, specPath)...)
	}

	if order := resizeContainerOrder(newSpec, oldSpec, specPath); order != nil {
		return append(errs, order...)
	}
	newInit, oldInit := listOf(newSpec["initContainers"]), listOf(oldSpec["initContainers"])
	newCtrs, oldCtrs := listOf(newSpec["containers"]), listOf(oldSpec["containers"])
	// Requests and limits may not be removed (every init container: InPlacePodVerticalScaling
	// InitContainers is GA).
	for i := range oldInit {
		errs = append(errs, resizeRemovals(mapOf(newInit[i]), mapOf(oldInit[i]), specPath.Child("initContainers").Index(i).Child("resources"))...)
	}
	for i := range oldCtrs {
		errs = append(errs, resizeRemovals(mapOf(newCtrs[i]), mapOf(oldCtrs[i]), specPath.Child("containers").Index(i).Child("resources"))...)
	}
	masked := make([]any, len(newCtrs))
	for i := range newCtrs {
		c := maskCPUMemory(mapOf(newCtrs[i]), mapOf(oldCtrs[i]))
		if !semanticEqualQ(c, oldCtrs[i]) {
			errs = append(errs, field.Forbidden(specPath, "only cpu and memory resources are mutable"))
		}
		masked[i] = c
	}
	setMasked(newSpecMasked, "containers", masked, newSpec)
	maskedInit := make([]any, len(newInit))
	for i := range newInit {
		nc, oc := mapOf(newInit[i]), mapOf(oldInit[i])
		modified := !semanticEqualQ(nc, oc)
		c := maskCPUMemory(nc, oc)
		ip := specPath.Child("initContainers").Index(i)
		if !semanticEqualQ(c, oc) {
			errs = append(errs, field.Forbidden(ip, "only cpu and memory resources for init or sidecar containers are mutable"))
		}
		if modified && !restartableInit(c) {
			for _, p := range listOf(c["resizePolicy"]) {
				if mapOf(p)["restartPolicy"] == "RestartContainer" {
					errs = append(errs, field.Forbidden(ip, "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"))
				}
			}
		}
		maskedInit[i] = c
	}
	setMasked(newSpecMasked, "initContainers", maskedInit, newSpec)
	// InPlacePodVerticalScalingMemoryBackedVolumes is off.
	if !semanticEqualQ(map[string]any{"volumes": newSpec["volumes"]}, map[string]any{"volumes": oldSpec["volumes"]}) {
		errs = append(errs, field.Forbidden(specPath.Child("volumes"), "volumes are immutable on resize when InPlacePodVerticalScalingMemoryBackedVolumes feature gate is disabled"))
	}
	// The apiserver's list at this point holds the whole pod's validation too (priorErrors):
	// any error there also skips the final comparison.
	if len(errs) > 0 || priorErrors {
		return errs
	}
	// spec.resources is a pointer: an empty one differs from none.
	_, newHas := present(newSpecMasked, "resources")
	_, oldHas := present(oldSpec, "resources")
	if newHas != oldHas || !semanticEqualQ(newSpecMasked, oldSpec) {
		errs = append(errs, field.Forbidden(specPath, "only cpu and memory resources are mutable"))
	}
	return errs
}

// setMasked stores a masked container list in spec, keeping an absent or empty list as it was.
func setMasked(spec map[string]any, key string, masked []any, from map[string]any) {
	if len(masked) == 0 {
		if v, ok := from[key]; ok {
			spec[key] = v
		}
		return
	}
	spec[key] = masked
}

// validatePodLevelResize is validatePodLevelResourcesResize; it masks the cpu and memory of
// masked's pod-level resources as the apiserver masks its copy of the spec.
func validatePodLevelResize(newSpec, oldSpec, masked map[string]any, specPath field.Path) field.ErrorList {
	var errs field.ErrorList
	oldRes, oldHas := present(oldSpec, "resources")
	newRes, newHas := present(newSpec, "resources")
	if oldHas && !newHas {
		return append(errs, field.Forbidden(specPath.Child("resources"), "pod-level resources cannot be removed"))
	}
	if oldHas {
		o, n := mapOf(oldRes), mapOf(newRes)
		if resourcesRemoved(mapOf(n["requests"]), mapOf(o["requests"])) {
			errs = append(errs, field.Forbidden(specPath.Child("resources").Child("requests"), "pod-level resource requests cannot be removed"))
		}
		if resourcesRemoved(mapOf(n["limits"]), mapOf(o["limits"])) {
			errs = append(errs, field.Forbidden(specPath.Child("resources").Child("limits"), "pod-level resource limits cannot be removed"))
		}
	}
	if newHas {
		n, o := mapOf(newRes), mapOf(oldRes)
		r := shallowCopy(newRes)
		if r == nil {
			r = map[string]any{}
		}
		setResourceList(r, "requests", dropCPUMemory(n["requests"], o["requests"]))
		setResourceList(r, "limits", dropCPUMemory(n["limits"], o["limits"]))
		if !oldHas && len(mapOf(r["requests"])) == 0 && len(mapOf(r["limits"])) == 0 && len(listOf(r["claims"])) == 0 {
			delete(masked, "resources")
		} else {
			masked["resources"] = r
		}
	}
	mr, mHas := present(masked, "resources")
	if mHas != oldHas || !semanticEqualQ(map[string]any{"resources": mr}, map[string]any{"resources": oldRes}) {
		errs = append(errs, field.Forbidden(specPath, "only cpu and memory resources are mutable at pod-level"))
	}
	return errs
}

// present returns m[key] and whether it is set to something other than null (a non-nil Go
// pointer once decoded).
func present(m map[string]any, key string) (any, bool) {
	v, ok := m[key]
	return v, ok && v != nil
}

// resizeContainerOrder is validatePodResizeContainerOrdering.
func resizeContainerOrder(newSpec, oldSpec map[string]any, specPath field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []struct{ key, noun string }{{"containers", "containers"}, {"initContainers", "initContainers"}} {
		n, o := listOf(newSpec[k.key]), listOf(oldSpec[k.key])
		if len(n) != len(o) {
			errs = append(errs, field.Forbidden(specPath.Child(k.key), k.noun+" may not be added or removed on resize"))
			continue
		}
		for i := range o {
			if mapOf(n[i])["name"] != mapOf(o[i])["name"] {
				errs = append(errs, field.Forbidden(specPath.Child(k.key).Index(i).Child("name"), k.noun+" may not be renamed or reordered on resize"))
			}
		}
	}
	return errs
}

// resizeRemovals is validateContainerResize: requests and limits may not lose a resource.
func resizeRemovals(nc, oc map[string]any, p field.Path) field.ErrorList {
	var errs field.ErrorList
	nr, or := mapOf(nc["resources"]), mapOf(oc["resources"])
	if resourcesRemoved(mapOf(nr["requests"]), mapOf(or["requests"])) {
		errs = append(errs, field.Forbidden(p.Child("requests"), "resource requests cannot be removed"))
	}
	if resourcesRemoved(mapOf(nr["limits"]), mapOf(or["limits"])) {
		errs = append(errs, field.Forbidden(p.Child("limits"), "resource limits cannot be removed"))
	}
	return errs
}

func resourcesRemoved(list, old map[string]any) bool {
	if len(old) > len(list) {
		return true
	}
	for name := range old {
		if _, ok := list[name]; !ok {
			return true
		}
	}
	return false
}

// maskCPUMemory is dropCPUMemoryResourcesFromContainer: a copy of the new container whose cpu
// and memory requests and limits are the stored ones (the claims stay the new ones).
func maskCPUMemory(nc, oc map[string]any) map[string]any {
	c := shallowCopy(nc)
	if c == nil {
		c = map[string]any{}
	}
	nr, or := mapOf(nc["resources"]), mapOf(oc["resources"])
	r := map[string]any{}
	setResourceList(r, "limits", dropCPUMemory(nr["limits"], or["limits"]))
	setResourceList(r, "requests", dropCPUMemory(nr["requests"], or["requests"]))
	if claims, ok := nr["claims"]; ok {
		r["claims"] = claims
	}
	c["resources"] = r
	return c
}

// dropCPUMemory is dropCPUMemoryUpdates: list without cpu and memory, plus the old list's; nil
// when both are absent.
func dropCPUMemory(list, old any) map[string]any {
	l, o := mapOf(list), mapOf(old)
	if l == nil && o == nil {
		return nil
	}
	out := make(map[string]any, len(l)+2)
	for k, v := range l {
		if k != "cpu" && k != "memory" {
			out[k] = v
		}
	}
	for _, k := range []string{"cpu", "memory"} {
		if v, ok := o[k]; ok {
			out[k] = v
		}
	}
	return out
}

func setResourceList(r map[string]any, key string, l map[string]any) {
	if l == nil {
		delete(r, key)
		return
	}
	r[key] = l
}

func restartableInit(c map[string]any) bool { return c["restartPolicy"] == "Always" }

// resizeSupported is isPodResizeRequestSupported: the first running container must report its
// resources (a kubelet that does not is on a node without in-place resize).
func resizeSupported(live map[string]any) bool {
	for _, cs := range listOf(mapOf(live["status"])["containerStatuses"]) {
		c := mapOf(cs)
		if mapOf(c["state"])["running"] != nil {
			return c["resources"] != nil
		}
	}
	return true
}

// PodQOS is qos.GetPodQOS over a Pod in the object model: status.qosClass, computed from the
// spec's resources (pod-level when set, else every init container and container) when empty.
func PodQOS(pod map[string]any) string { return podQOS(pod) }

// podQOS is qos.GetPodQOS: the QoS class in the status, computed when empty.
func podQOS(pod map[string]any) string {
	if q, _ := mapOf(pod["status"])["qosClass"].(string); q != "" {
		return q
	}
	return computePodQOS(mapOf(pod["spec"]))
}

// computePodQOS is qos.ComputePodQOS with PodLevelResources and
// PodLevelResourcesFixKubeletQOSClass on: pod-level resources decide when they set a supported
// resource; otherwise every init container and container does.
func computePodQOS(spec map[string]any) string {
	if r, ok := present(spec, "resources"); ok && podLevelSupportedSet(mapOf(r)) {
		return requirementsQOS(mapOf(r))
	}
	q := ""
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range listOf(spec[key]) {
			cq := requirementsQOS(mapOf(mapOf(c)["resources"]))
			switch {
			case cq == "Burstable":
				return cq
			case q == "":
				q = cq
			case q != cq:
				return "Burstable"
			}
		}
	}
	if q == "" {
		q = "BestEffort"
	}
	return q
}

func requirementsQOS(r map[string]any) string {
	req, lim := mapOf(r["requests"]), mapOf(r["limits"])
	if len(req) == 0 && len(lim) == 0 {
		return "BestEffort"
	}
	q := ""
	for _, res := range []string{"cpu", "memory"} {
		rq := resourceQOS(req[res], lim[res])
		switch {
		case rq == "Burstable":
			return rq
		case q == "":
			q = rq
		case q != rq:
			return "Burstable"
		}
	}
	return q
}

// resourceQOS compares one resource's request and limit as Quantity.Equal and IsZero do (a
// missing quantity is zero; one that does not parse, which the typed round trip refuses, is
// Burstable).
func resourceQOS(req, lim any) string {
	rq, okR := qosQuantity(req)
	lq, okL := qosQuantity(lim)
	if !okR || !okL || rq.Cmp(lq) != 0 {
		return "Burstable"
	}
	if rq.Sign() == 0 {
		return "BestEffort"
	}
	return "Guaranteed"
}

// qosQuantity is a request or limit as a quantity: absent, null or "" is zero.
func qosQuantity(v any) (quantity.Quantity, bool) {
	if v == nil || v == "" {
		return quantity.FromInt64(0, quantity.DecimalSI), true
	}
	return qty(v)
}

// podLevelResourcesSet is ValidatePodResize's isPodLevelResourcesSet.
func podLevelResourcesSet(spec map[string]any) bool {
	r, ok := present(spec, "resources")
	return ok && len(mapOf(mapOf(r)["requests"]))+len(mapOf(mapOf(r)["limits"])) > 0
}

// podLevelSupportedSet is helper.IsPodLevelResourcesSet: a pod-level request or limit of a
// resource pod-level resources support (cpu, memory, hugepages-*).
func podLevelSupportedSet(r map[string]any) bool {
	for _, key := range []string{"requests", "limits"} {
		for name := range mapOf(r[key]) {
			if name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-") {
				return true
			}
		}
	}
	return false
}

// ValidatePodEphemeralContainersUpdate is the apiserver's ValidatePodEphemeralContainersUpdate
// (podEphemeralContainersStrategy.ValidateUpdate): each ephemeral container is checked as
// ValidatePodSpec checks it (name, image, terminationMessagePolicy, volume mounts' names and
// paths, imagePullPolicy, a name
// unique across all containers, a target among the containers and init containers, only the
// allowed fields, no subPath or subPathExpr), then a static pod is refused, and the stored
// ephemeral containers may be neither removed nor changed (the message carries the
// apiserver's unified diff of the two containers). obj is the pod after the strategy's value
// reset, live the stored pod.
func podEphemeralChecks(obj, live map[string]any, partial bool) field.ErrorList {
	spec := mapOf(obj["spec"])
	specPath := field.NewPath("spec").Child("ephemeralContainers")
	var errs field.ErrorList
	if partial {
		errs = ephemeralOwnChecks(spec, specPath)
	}
	if _, ok := mapOf(mapOf(live["metadata"])["annotations"])[mirrorPodAnnotation]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods do not support ephemeral containers")}
	}
	byName := map[string]map[string]any{}
	for _, c := range listOf(spec["ephemeralContainers"]) {
		name, _ := mapOf(c)["name"].(string)
		byName[name] = mapOf(c)
	}
	for _, oc := range listOf(mapOf(live["spec"])["ephemeralContainers"]) {
		old := mapOf(oc)
		name, _ := old["name"].(string)
		nc, ok := byName[name]
		if !ok {
			errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", name)))
		} else if !semanticEqualQ(old, nc) {
			errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%v", name, ephemeralDiff(old, nc))))
		}
	}
	return errs
}

// ephemeralOwnChecks is validateEphemeralContainers, with validateContainerCommon's
// checks of a container's own scalar fields.
func ephemeralOwnChecks(spec map[string]any, fld field.Path) field.ErrorList {
	ephs := listOf(spec["ephemeralContainers"])
	if len(ephs) == 0 {
		return nil
	}
	var errs field.ErrorList
	volumes := map[string]bool{}
	for _, v := range listOf(spec["volumes"]) {
		if n, _ := mapOf(v)["name"].(string); n != "" {
			volumes[n] = true
		}
	}
	other, all := map[string]bool{}, map[string]bool{}
	for _, key := range []string{"containers", "initContainers"} {
		for _, c := range listOf(spec[key]) {
			n, _ := mapOf(c)["name"].(string)
			other[n], all[n] = true, true
		}
	}
	for i, raw := range ephs {
		c := mapOf(raw)
		p := fld.Index(i)
		name, _ := c["name"].(string)
		image, _ := c["image"].(string)
		if name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range ivalidation.IsDNS1123Label(name) {
				errs = append(errs, field.Invalid(p.Child("name"), name, msg))
			}
		}
		if image == "" {
			errs = append(errs, field.Required(p.Child("image"), ""))
		}
		switch tmp, _ := c["terminationMessagePolicy"].(string); tmp {
		case "File", "FallbackToLogsOnError":
		case "":
			errs = append(errs, field.Required(p.Child("terminationMessagePolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(p.Child("terminationMessagePolicy"), tmp, []string{"File", "FallbackToLogsOnError"}))
		}
		errs = append(errs, ephemeralVolumeMounts(c, volumes, p.Child("volumeMounts"))...)
		switch pp, _ := c["imagePullPolicy"].(string); pp {
		case "Always", "IfNotPresent", "Never":
		case "":
			errs = append(errs, field.Required(p.Child("imagePullPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(p.Child("imagePullPolicy"), pp, []string{"Always", "IfNotPresent", "Never"}))
		}
		// validateContainerOnlyForPod.
		if len(image) != len(strings.TrimSpace(image)) {
			errs = append(errs, field.Invalid(p.Child("image"), image, "must not have leading or trailing whitespace"))
		}
		if all[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		} else {
			all[name] = true
		}
		if t, _ := c["targetContainerName"].(string); t != "" && !other[t] {
			errs = append(errs, field.NotFound(p.Child("targetContainerName"), t))
		}
		for _, f := range ephemeralForbidden {
			if !semanticEqualQ(c[f], nil) {
				errs = append(errs, field.Forbidden(p.Child(f), "cannot be set for an Ephemeral Container"))
			}
		}
		for j, vm := range listOf(c["volumeMounts"]) {
			m := mapOf(vm)
			for _, f := range []string{"subPath", "subPathExpr"} {
				if s, _ := m[f].(string); s != "" {
					errs = append(errs, field.Forbidden(p.Child("volumeMounts").Index(j).Child(f), "cannot be set for an Ephemeral Container"))
				}
			}
		}
	}
	return errs
}

// validateSpecResources is the part of ValidatePodSpec that a resize can break: for each
// container and init container, validateResourceRequirements' request-limit checks and the
// name's uniqueness (a write that adds a container), for a non-sidecar init container a
// RestartContainer resize policy (unless the stored pod has one), and validatePodResources for
// the pod-level resources. Resource names and quantity values (not changed by a valid stored
// pod) are not checked again.
func validateSpecResources(spec, oldSpec map[string]any, specPath field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, c := range listOf(spec["containers"]) {
		p := specPath.Child("containers").Index(i)
		errs = append(errs, requestLimitErrs(mapOf(mapOf(c)["resources"]), p.Child("resources"))...)
		name, _ := mapOf(c)["name"].(string)
		if names[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		} else {
			names[name] = true
		}
	}
	allowRestart := nonSidecarRestartContainer(oldSpec)
	for i, c := range listOf(spec["initContainers"]) {
		p := specPath.Child("initContainers").Index(i)
		cm := mapOf(c)
		errs = append(errs, requestLimitErrs(mapOf(cm["resources"]), p.Child("resources"))...)
		name, _ := cm["name"].(string)
		if names[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		} else if name != "" {
			names[name] = true
		}
		if !restartableInit(cm) && !allowRestart {
			for j, rp := range listOf(cm["resizePolicy"]) {
				if v := mapOf(rp)["restartPolicy"]; v == "RestartContainer" {
					errs = append(errs, field.Invalid(p.Child("resizePolicy").Index(j).Child("restartPolicy"), v,
						"must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	res, ok := present(spec, "resources")
	if !ok {
		return errs
	}
	r := mapOf(res)
	rp := specPath.Child("resources")
	if _, ok := present(r, "claims"); ok {
		errs = append(errs, field.Forbidden(rp.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	errs = append(errs, requestLimitErrs(r, rp)...)
	// validatePodResourceConsistency.
	podReqs, podLims := readQtyList(r["requests"]), readQtyList(r["limits"])
	aggr := aggregateContainers(spec, "requests")
	for _, name := range sortedKeys(mapOf(r["requests"])) {
		ctr, ok := aggr[name]
		pq, okP := podReqs[name]
		if ok && okP && ctr.Cmp(pq) > 0 {
			errs = append(errs, field.Invalid(rp.Child("requests").Key(name), pq.String(), "must be greater than or equal to aggregate container requests of "+ctr.String()))
		}
	}
	aggrLims := aggregateContainers(spec, "limits")
	for _, name := range sortedKeys(mapOf(r["limits"])) {
		ctr, ok := aggrLims[name]
		pl, okP := podLims[name]
		if ok && okP && strings.HasPrefix(name, "hugepages-") && ctr.Cmp(pl) > 0 {
			errs = append(errs, field.Invalid(rp.Child("limits").Key(name), pl.String(), "must be greater than or equal to aggregate container limits of "+ctr.String()))
		}
	}
	for i, c := range listOf(spec["containers"]) {
		lims := mapOf(mapOf(mapOf(c)["resources"])["limits"])
		for _, name := range sortedKeys(lims) {
			cl, okC := qty(lims[name])
			pl, okP := podLims[name]
			if okC && okP && cl.Cmp(pl) > 0 {
				errs = append(errs, field.Invalid(rp.Child("containers").Index(i).Key(name).Child("limits"), cl.String(), "must be less than or equal to pod limits of "+pl.String()))
			}
		}
	}
	return errs
}

// requestLimitErrs is validateResourceRequirements' check of each request against its limit:
// at most the limit, equal to it for resources that cannot be overcommitted, which need one.
func requestLimitErrs(r map[string]any, p field.Path) field.ErrorList {
	var errs field.ErrorList
	reqs, lims := mapOf(r["requests"]), mapOf(r["limits"])
	for _, name := range sortedKeys(reqs) {
		rq, ok := qty(reqs[name])
		if !ok {
			continue
		}
		lraw, exists := lims[name]
		lq, okL := qty(lraw)
		switch {
		case exists && okL && rq.Cmp(lq) != 0 && !isOvercommitAllowed(name):
			errs = append(errs, field.Invalid(p.Child("requests"), rq.String(), fmt.Sprintf("must be equal to %s limit of %s", name, lq.String())))
		case exists && okL && rq.Cmp(lq) > 0:
			errs = append(errs, field.Invalid(p.Child("requests"), rq.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lq.String())))
		case !exists && !isOvercommitAllowed(name):
			errs = append(errs, field.Required(p.Child("limits"), "Limit must be set for non overcommitable resources"))
		}
	}
	return errs
}

// nonSidecarRestartContainer is hasRestartContainerForNonSidecarInitContainer: a stored
// non-sidecar init container with a RestartContainer resize policy (validation then allows it).
func nonSidecarRestartContainer(spec map[string]any) bool {
	for _, c := range listOf(spec["initContainers"]) {
		if restartableInit(mapOf(c)) {
			continue
		}
		for _, p := range listOf(mapOf(c)["resizePolicy"]) {
			if mapOf(p)["restartPolicy"] == "RestartContainer" {
				return true
			}
		}
	}
	return false
}

// ephemeralVolumeMounts is ValidateVolumeMounts' checks of names and mount paths: a name that
// is one of the pod's volumes, a mount path, unique within the container.
func ephemeralVolumeMounts(c map[string]any, volumes map[string]bool, fld field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, vm := range listOf(c["volumeMounts"]) {
		m := mapOf(vm)
		p := fld.Index(i)
		name, _ := m["name"].(string)
		mp, _ := m["mountPath"].(string)
		if name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if !volumes[name] {
			errs = append(errs, field.NotFound(p.Child("name"), name))
		}
		if mp == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
		if paths[mp] {
			errs = append(errs, field.Invalid(p.Child("mountPath"), mp, "must be unique"))
		}
		paths[mp] = true
	}
	return errs
}

// shallowCopy copies a map one level deep (nil for a value that is not a map).
func shallowCopy(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok || m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	return out
}

// compareQty compares two quantity strings by value; ok is false when either does not parse.
func compareQty(a, b string) (int, bool) {
	qa, okA := qty(a)
	qb, okB := qty(b)
	if !okA || !okB {
		return 0, false
	}
	return qa.Cmp(qb), true
}

// semanticEqualQ is Semantic.DeepEqual over the object model, as versions.SemanticEqual
// reads it: absent, null, "", {} and [] are equal (nil and empty slices and maps, zero struct
// fields); quantities (in resource lists, sizeLimit, divisor) compare by value.
func semanticEqualQ(a, b any) bool { return semEq(a, b, "", "") }

// quantityLists are the fields holding a ResourceList.
var quantityLists = map[string]bool{"limits": true, "requests": true, "overhead": true, "capacity": true,
	"allocatable": true, "hard": true, "used": true, "allocatedResources": true}

// empty reports whether v reads as absent: null, "", or a list or map of nothing but such.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		for _, e := range x {
			if !empty(e) {
				return false
			}
		}
		return true
	}
	return false
}

func semEq(a, b any, key, parent string) bool {
	if empty(a) || empty(b) {
		return empty(a) && empty(b)
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			if !semEq(v, y[k], k, key) {
				return false
			}
		}
		for k, w := range y {
			if _, ok := x[k]; !ok && !empty(w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !semEq(x[i], y[i], key, parent) {
				return false
			}
		}
		return true
	case string:
		if y, ok := b.(string); ok && x != y && (quantityLists[parent] || key == "sizeLimit" || key == "divisor") {
			c, ok := compareQty(x, y)
			return ok && c == 0
		}
	}
	return value.Equal(a, b)
}
