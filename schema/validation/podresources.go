package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/quantity"
)

// Pod-level resources (validatePodResources, validatePodResourceConsistency), with
// PodLevelResources on (beta in 1.37).

// podResources is validatePodResources.
func podResources(p field.Path, spec map[string]any, claimNames map[string]bool) field.ErrorList {
	res, ok := spec["resources"].(map[string]any)
	if !ok {
		return nil
	}
	rp := p.Child("resources")
	if str(mapOf(spec["os"]), "name") == "windows" {
		return field.ErrorList{field.Forbidden(rp, "may not be set for a windows pod")}
	}
	var errs field.ErrorList
	if _, ok := res["claims"].([]any); ok {
		errs = append(errs, field.Forbidden(rp.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	errs = append(errs, resourceRequirements(rp, res, validatePodResourceName, claimNames)...)
	return append(errs, podResourceConsistency(rp, spec, res)...)
}

// qtyList is a ResourceList of parsed quantities.
type qtyList map[string]quantity.Quantity

func readQtyList(v any) qtyList {
	out := qtyList{}
	for k, raw := range mapOf(v) {
		if q, ok := qty(raw); ok {
			out[k] = q
		}
	}
	return out
}

func (l qtyList) add(o qtyList) {
	for k, q := range o {
		if cur, ok := l[k]; ok {
			if sum, err := cur.Add(q); err == nil {
				l[k] = sum
			}
			continue
		}
		l[k] = q
	}
}

func (l qtyList) max(o qtyList) {
	for k, q := range o {
		if cur, ok := l[k]; !ok || q.Cmp(cur) > 0 {
			l[k] = q
		}
	}
}

// aggregateContainers is resourcehelper.AggregateContainerRequests/Limits: the containers'
// sum, sidecars added, and the peak of the init containers (each with the sidecars started
// before it).
func aggregateContainers(spec map[string]any, key string) qtyList {
	result := qtyList{}
	for _, c := range listOf(spec["containers"]) {
		result.add(readQtyList(mapOf(mapOf(c)["resources"])[key]))
	}
	restartable, initPeak := qtyList{}, qtyList{}
	for _, c := range listOf(spec["initContainers"]) {
		res := readQtyList(mapOf(mapOf(c)["resources"])[key])
		if str(mapOf(c), "restartPolicy") == "Always" {
			result.add(res)
			restartable.add(res)
			res = qtyList{}
			res.add(restartable)
		} else {
			combined := qtyList{}
			combined.add(res)
			combined.add(restartable)
			res = combined
		}
		initPeak.max(res)
	}
	result.max(initPeak)
	return result
}

// podResourceConsistency is validatePodResourceConsistency (resources in name order, where the
// apiserver's order is Go map order).
func podResourceConsistency(p field.Path, spec, res map[string]any) field.ErrorList {
	var errs field.ErrorList
	podReqs, podLims := readQtyList(res["requests"]), readQtyList(res["limits"])
	aggr := aggregateContainers(spec, "requests")
	for _, name := range sortedQtyKeys(aggr) {
		pr, ok := podReqs[name]
		if !ok {
			continue
		}
		if aggr[name].Cmp(pr) > 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(name), pr.String(), fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", aggr[name].String())))
		}
	}
	aggrLims := aggregateContainers(spec, "limits")
	for _, name := range sortedQtyKeys(aggrLims) {
		if !isHugePages(name) {
			continue
		}
		pl, ok := podLims[name]
		if !ok {
			continue
		}
		if aggrLims[name].Cmp(pl) > 0 {
			errs = append(errs, field.Invalid(p.Child("limits").Key(name), pl.String(), fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", aggrLims[name].String())))
		}
	}
	for i, c := range listOf(spec["containers"]) {
		lims := readQtyList(mapOf(mapOf(c)["resources"])["limits"])
		for _, name := range sortedQtyKeys(lims) {
			pl, ok := podLims[name]
			if !ok {
				continue
			}
			if lims[name].Cmp(pl) > 0 {
				errs = append(errs, field.Invalid(p.Child("containers").Index(i).Key(name).Child("limits"), lims[name].String(), fmt.Sprintf("must be less than or equal to pod limits of %s", pl.String())))
			}
		}
	}
	return errs
}

func sortedQtyKeys(l qtyList) []string {
	m := make(map[string]any, len(l))
	for k := range l {
		m[k] = nil
	}
	return sortedKeys(m)
}

// DefaultPodLevelResources is podutil.DefaultPodLevelResources (PodLevelResources and
// PodLevelResourcesFixDefaulting on), which the Pod strategy's PrepareForCreate and the resize
// strategy's PrepareForUpdate run on a spec that sets pod-level resources: pod-level hugepage
// limits from the containers' limits, missing pod-level requests from the containers' requests
// (overcommittable resources) and from the pod-level limits, and missing pod-level limits as the
// larger of the pod-level request and the containers' limits when every container (ephemeral
// ones included) sets one. Computed values are written as the apiserver serialises a Quantity
// (canonical form). spec is changed in place (its resources map and lists are replaced, never
// modified); a spec without resources, or with null resources, is left alone.
func DefaultPodLevelResources(spec map[string]any) {
	res, ok := spec["resources"].(map[string]any)
	if !ok || len(mapOf(res["requests"]))+len(mapOf(res["limits"])) == 0 {
		return
	}
	res = copyMap(res)
	spec["resources"] = res
	reqs, lims := copyMap(mapOf(res["requests"])), copyMap(mapOf(res["limits"]))
	for name, q := range aggregateContainers(spec, "limits") {
		if !isHugePages(name) {
			continue
		}
		if _, ok := mapOf(res["requests"])[name]; ok {
			continue
		}
		if _, ok := lims[name]; !ok {
			lims[name] = q.Canonical()
		}
	}
	if len(lims) > 0 {
		res["limits"] = lims
	}
	for name, q := range aggregateContainers(spec, "requests") {
		if _, ok := reqs[name]; !ok && podLevelSupported(name) && overcommitAllowed(name) {
			reqs[name] = q.Canonical()
		}
	}
	for name, l := range mapOf(res["limits"]) {
		if _, ok := reqs[name]; !ok && podLevelSupported(name) {
			reqs[name] = l
		}
	}
	if len(reqs) > 0 {
		res["requests"] = reqs
	}
	// Limits: candidates are requested resources without a pod-level limit that every
	// container, init container and ephemeral container limits.
	candidates := map[string]bool{}
	for name := range reqs {
		if _, ok := mapOf(res["limits"])[name]; !ok && podLevelSupported(name) {
			candidates[name] = true
		}
	}
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range listOf(spec[key]) {
			l := mapOf(mapOf(mapOf(c)["resources"])["limits"])
			for name := range candidates {
				if _, ok := l[name]; !ok {
					delete(candidates, name)
				}
			}
		}
	}
	if len(candidates) == 0 {
		return
	}
	aggr := aggregateContainers(spec, "limits")
	l := copyMap(mapOf(res["limits"]))
	for name := range candidates {
		val, ok := aggr[name]
		if !ok {
			continue
		}
		if req, ok := qty(reqs[name]); ok && req.Cmp(val) > 0 {
			val = req
		}
		l[name] = val.Canonical()
		res["limits"] = l
	}
}

// podLevelSupported is the resources pod-level resources may name: cpu, memory and hugepages.
func podLevelSupported(name string) bool {
	return name == "cpu" || name == "memory" || isHugePages(name)
}

// overcommitAllowed is IsOvercommitAllowed: native resources other than hugepages.
func overcommitAllowed(name string) bool {
	native := !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
	return native && !isHugePages(name)
}
