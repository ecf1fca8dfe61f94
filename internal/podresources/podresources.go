package podresources

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/quantity"
)

// List is a ResourceList: quantities by resource name.
type List map[string]quantity.Quantity

// Options is the part of resource.PodResourcesOptions writepath's callers set. The zero value
// is PodResourcesOptions{}: the spec's resources only, overhead included.
type Options struct {
	// UseStatusResources counts, per container, the largest of its spec's resources and those
	// its status reports allocated and actuated (the PodResizePending condition's Infeasible
	// reason drops the spec's).
	UseStatusResources bool
}

// Container is one container's or init container's name and resources as the totals read them.
type Container struct {
	Name             string
	Requests, Limits List
	// RestartableInit is restartPolicy Always: an init container that is a sidecar.
	RestartableInit bool
}

// Containers reads spec[key] ("containers" or "initContainers") of pod.
func Containers(pod map[string]any, key string) []Container {
	list, _ := spec(pod)[key].([]any)
	out := make([]Container, 0, len(list))
	for _, x := range list {
		c, _ := x.(map[string]any)
		res, _ := c["resources"].(map[string]any)
		name, _ := c["name"].(string)
		out = append(out, Container{Name: name, Requests: ReadList(res["requests"]), Limits: ReadList(res["limits"]),
			RestartableInit: c["restartPolicy"] == "Always"})
	}
	return out
}

// ReadList reads a resource list from an object (nil when absent). A value that is not a
// quantity is left out.
func ReadList(v any) List {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(List, len(m))
	for k, x := range m {
		if q, ok := parseValue(x); ok {
			out[k] = q
		}
	}
	return out
}

func parseValue(x any) (quantity.Quantity, bool) {
	var s string
	switch v := x.(type) {
	case string:
		s = v
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return quantity.Quantity{}, false
	}
	q, err := quantity.Parse(s)
	return q, err == nil
}

func spec(pod map[string]any) map[string]any {
	s, _ := pod["spec"].(map[string]any)
	return s
}

func status(pod map[string]any) map[string]any {
	s, _ := pod["status"].(map[string]any)
	return s
}

// IsSupportedPodLevelResource is resource.IsSupportedPodLevelResource: cpu, memory and
// hugepages-*.
func IsSupportedPodLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-")
}

// PodLevel reads spec.resources' requests and limits; set is false when there is no
// spec.resources.
func PodLevel(pod map[string]any) (requests, limits List, set bool) {
	res, ok := spec(pod)["resources"].(map[string]any)
	if !ok {
		return nil, nil, false
	}
	return ReadList(res["requests"]), ReadList(res["limits"]), true
}

func anySupported(l List) bool {
	for n := range l {
		if IsSupportedPodLevelResource(n) {
			return true
		}
	}
	return false
}

// PodLevelResourcesSet is resource.IsPodLevelResourcesSet: spec.resources' requests or limits
// name a supported resource.
func PodLevelResourcesSet(pod map[string]any) bool {
	req, lim, ok := PodLevel(pod)
	return ok && (anySupported(req) || anySupported(lim))
}

// containerStatus finds a container's status by name among containerStatuses, then
// initContainerStatuses.
func containerStatus(pod map[string]any, name string) map[string]any {
	st := status(pod)
	for _, key := range []string{"containerStatuses", "initContainerStatuses"} {
		list, _ := st[key].([]any)
		for _, x := range list {
			if cs, _ := x.(map[string]any); cs != nil && cs["name"] == name {
				return cs
			}
		}
	}
	return nil
}

// resizeInfeasible is resource.IsPodResizeInfeasible.
func resizeInfeasible(pod map[string]any) bool {
	conds, _ := status(pod)["conditions"].([]any)
	for _, x := range conds {
		c, _ := x.(map[string]any)
		if c["type"] == "PodResizePending" {
			return c["reason"] == "Infeasible"
		}
	}
	return false
}

// listAt reads a resource list at m[keys...], and whether it is there (a non-nil list).
func listAt(m map[string]any, keys ...string) (List, bool) {
	for _, k := range keys[:len(keys)-1] {
		m, _ = m[k].(map[string]any)
		if m == nil {
			return nil, false
		}
	}
	v, ok := m[keys[len(keys)-1]].(map[string]any)
	if !ok {
		return nil, false
	}
	return ReadList(v), true
}

type perContainer func(c Container, cs map[string]any, infeasible bool) List

func specRequests(c Container, _ map[string]any, _ bool) List { return c.Requests }

func allocatedRequests(c Container, cs map[string]any, infeasible bool) List {
	if l, ok := listAt(cs, "allocatedResources"); ok {
		return l
	}
	if infeasible {
		return nil
	}
	return c.Requests
}

func actuatedRequests(c Container, cs map[string]any, infeasible bool) List {
	if l, ok := listAt(cs, "resources", "requests"); ok {
		return l
	}
	if l, ok := listAt(cs, "allocatedResources"); ok {
		return l
	}
	if infeasible {
		return nil
	}
	return c.Requests
}

func specLimits(c Container, _ map[string]any, _ bool) List { return c.Limits }

func actuatedLimits(c Container, cs map[string]any, infeasible bool) List {
	if l, ok := listAt(cs, "resources", "limits"); ok {
		return l
	}
	if infeasible {
		return nil
	}
	return c.Limits
}

// aggregate is aggregateContainerResourcesByFn: containers summed, restartable init containers
// (sidecars) summed with them, the largest of the init containers (each with the sidecars
// started before it) taken when larger. Statuses are read only with UseStatusResources.
func aggregate(pod map[string]any, opts Options, fn perContainer) (List, error) {
	infeasible := opts.UseStatusResources && resizeInfeasible(pod)
	statusOf := func(name string) map[string]any {
		if !opts.UseStatusResources {
			return nil
		}
		return containerStatus(pod, name)
	}
	out := List{}
	for _, c := range Containers(pod, "containers") {
		if err := addInto(out, fn(c, statusOf(c.Name), infeasible)); err != nil {
			return nil, err
		}
	}
	sidecars := List{}
	inits := List{}
	for _, c := range Containers(pod, "initContainers") {
		res := fn(c, statusOf(c.Name), infeasible)
		if c.RestartableInit {
			if err := addInto(out, res); err != nil {
				return nil, err
			}
			if err := addInto(sidecars, res); err != nil {
				return nil, err
			}
			maxInto(inits, sidecars)
			continue
		}
		combined := List{}
		if err := addInto(combined, res); err != nil {
			return nil, err
		}
		if err := addInto(combined, sidecars); err != nil {
			return nil, err
		}
		maxInto(inits, combined)
	}
	maxInto(out, inits)
	return out, nil
}

// Requests is resource.PodRequests(pod, opts): the containers' aggregate (with
// UseStatusResources the largest of the spec's, the allocated and the actuated), pod-level
// requests in place of it where they name a supported resource, then spec.overhead added.
func Requests(pod map[string]any, opts Options) (List, error) {
	reqs, err := aggregate(pod, opts, specRequests)
	if err != nil {
		return nil, err
	}
	if opts.UseStatusResources {
		allocated, err := aggregate(pod, opts, allocatedRequests)
		if err != nil {
			return nil, err
		}
		actuated, err := aggregate(pod, opts, actuatedRequests)
		if err != nil {
			return nil, err
		}
		if resizeInfeasible(pod) {
			reqs = maxOf(actuated, allocated)
		} else {
			reqs = maxOf(reqs, actuated, allocated)
		}
	}
	if plReq, _, ok := PodLevel(pod); ok && anySupported(plReq) {
		for n, q := range plReq {
			if IsSupportedPodLevelResource(n) {
				reqs[n] = q
			}
		}
	}
	if overhead, ok := listAt(spec(pod), "overhead"); ok {
		if err := addInto(reqs, overhead); err != nil {
			return nil, err
		}
	}
	return reqs, nil
}

// Limits is resource.PodLimits(pod, opts): the containers' aggregate (with UseStatusResources
// the larger of the spec's and the actuated), pod-level limits in place of it where pod-level
// resources are set, then spec.overhead added to the non-zero limits.
func Limits(pod map[string]any, opts Options) (List, error) {
	limits, err := aggregate(pod, opts, specLimits)
	if err != nil {
		return nil, err
	}
	if opts.UseStatusResources {
		actuated, err := aggregate(pod, opts, actuatedLimits)
		if err != nil {
			return nil, err
		}
		if resizeInfeasible(pod) {
			limits = maxOf(actuated)
		} else {
			limits = maxOf(limits, actuated)
		}
	}
	if PodLevelResourcesSet(pod) {
		_, plLim, _ := PodLevel(pod)
		for n, q := range plLim {
			if IsSupportedPodLevelResource(n) {
				limits[n] = q
			}
		}
	}
	if overhead, ok := listAt(spec(pod), "overhead"); ok {
		for n, q := range overhead {
			if v, ok := limits[n]; ok && !v.IsZero() {
				s, err := v.Add(q)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", n, err)
				}
				limits[n] = s
			}
		}
	}
	return limits, nil
}

// addInto is addResourceList: list += other, in place.
func addInto(list, other List) error {
	for k, v := range other {
		if cur, ok := list[k]; ok {
			s, err := cur.Add(v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			list[k] = s
		} else {
			list[k] = v
		}
	}
	return nil
}

// maxInto is maxResourceList: list = max(list, other), key by key, in place.
func maxInto(list, other List) {
	for k, v := range other {
		if cur, ok := list[k]; !ok || v.Cmp(cur) > 0 {
			list[k] = v
		}
	}
}

// maxOf is resource's max: a copy of a raised to each of others.
func maxOf(a List, others ...List) List {
	out := make(List, len(a))
	for k, v := range a {
		out[k] = v
	}
	for _, o := range others {
		maxInto(out, o)
	}
	return out
}
