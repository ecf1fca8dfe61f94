package validation

import (
	"fmt"

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
