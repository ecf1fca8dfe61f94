package registry

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The LimitRanger admission plugin of kube-apiserver 1.37 (k8s.io/kubernetes
// plugin/pkg/admission/limitranger), default on, second after NamespaceLifecycle among the
// mutating plugins and first among the validating ones that act on Pods and claims. It reads
// the request namespace's LimitRanges through World, as the plugin reads its informer's lister.
//
//   - It acts on creates and updates of Pods and PersistentVolumeClaims, not on their
//     subresources, except an update of pods/resize; an update of a Pod itself is skipped
//     (containers cannot change there). An update whose stored object has a deletionTimestamp
//     is skipped too.
//   - Admit, on a Pod: each LimitRange in turn gives its Container items' default and
//     defaultRequest (a later item overriding an earlier one for the same resource) to every
//     container and then init container that lacks that limit or request; a LimitRange that
//     set anything writes the annotation kubernetes.io/limit-ranger, "LimitRanger plugin set:
//     " and, per container, "cpu, memory request for container x" then "... limit for
//     container x" (resources sorted), joined by "; " (init containers: "init container x").
//   - Validate, on a Pod: the Container items' min, max and maxLimitRequestRatio against each
//     container and init container, the Pod items' against the pod's requests and limits as
//     the plugin sums them (init containers as their maximum, restartable ones added to the
//     containers; pod-level cpu and memory in spec.resources override the sums, PodLevelResources
//     being on by default); on a claim the PersistentVolumeClaim items' min and max against
//     spec.resources.requests. The first LimitRange with a violation refuses with 403, every
//     violation of that LimitRange in one message (one alone as it is, several in brackets,
//     repeated words once, as utilerrors.NewAggregate prints them).
//
// Where several values are compared, the plugin's rule is kept: milli-units when the request,
// the limit and the bound are all below 2^63/1000, whole units (rounded up) otherwise.
//
// Compared with the reference plugin by conformance/defaults/limitranger, and replayed from
// kube-apiserver 1.37 in testdata/cluster/scenarios/limit-ranger.yaml.

var limitRangesResource = schema.GroupVersionResource{Version: "v1", Resource: "limitranges"}

// maxMilliValue is resource.MaxMilliValue.
const maxMilliValue = int64(math.MaxInt64 / 1000)

// limitRangerActs is DefaultLimitRangerActions.SupportsAttributes with the plugin's Handles
// (create and update) and its skip of objects being deleted: Pods (create; update only on
// pods/resize) and PersistentVolumeClaims (create and update of the claim itself).
func (h *handler) limitRangerActs(op admission.Operation, old map[string]any) bool {
	if h.pluginDisabled("LimitRanger") || h.ep.crd != nil || h.ep.gvk.Group != "" || (op != admission.Create && op != admission.Update) {
		return false
	}
	switch kind, sub := h.ep.gvk.Kind, h.ep.Subresource; {
	case kind == "Pod" && sub == "resize" && op == admission.Update:
	case sub != "":
		return false
	case kind == "Pod" && op == admission.Update:
		return false
	case kind != "Pod" && kind != "PersistentVolumeClaim":
		return false
	}
	return old == nil || metaOf(old)["deletionTimestamp"] == nil
}

// limitRanges lists the request namespace's LimitRanges, by name (the plugin visits its
// informer cache's objects in no defined order; writepath picks one).
func (h *handler) limitRanges() ([]map[string]any, error) {
	list, err := h.w.List(h.ctx, limitRangesResource, h.ep.Namespace)
	if err != nil {
		return nil, worldError(err, "List(limitranges)")
	}
	out := append([]map[string]any(nil), list...)
	sort.SliceStable(out, func(i, j int) bool { return metaString(out[i], "name") < metaString(out[j], "name") })
	return out, nil
}

// limitRangerAdmit is the plugin's Admit: the LimitRanges' container defaults applied to a Pod.
// obj is not modified; the result is a copy where anything changes.
func (h *handler) limitRangerAdmit(op admission.Operation, obj, old map[string]any) (map[string]any, error) {
	if obj == nil || h.ep.gvk.Kind != "Pod" || !h.limitRangerActs(op, old) {
		return obj, nil
	}
	ranges, err := h.limitRanges()
	if err != nil {
		return nil, err
	}
	return limitRangeDefaults(obj, ranges), nil
}

// limitRangerValidate is the plugin's Validate (name is the object's, for the 403).
func (h *handler) limitRangerValidate(op admission.Operation, obj, old map[string]any, name string) error {
	if obj == nil || !h.limitRangerActs(op, old) {
		return nil
	}
	ranges, err := h.limitRanges()
	if err != nil {
		return err
	}
	pod := h.ep.gvk.Kind == "Pod"
	for _, lr := range ranges {
		var msgs []string
		if pod {
			msgs, err = limitRangePodViolations(obj, lr)
			if err != nil {
				return status.InternalError(err)
			}
		} else {
			msgs = limitRangeClaimViolations(obj, lr)
		}
		if len(msgs) > 0 {
			return status.Forbidden(h.ep.groupResource(), name, errors.New(aggregateMessage(msgs)))
		}
	}
	return nil
}

// aggregateMessage is utilerrors.NewAggregate(errs).Error() for these messages: one as it is;
// several once each, in order, joined by ", " in brackets (in brackets only if two differ).
func aggregateMessage(msgs []string) string {
	if len(msgs) == 1 {
		return msgs[0]
	}
	seen := map[string]bool{}
	var uniq []string
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			uniq = append(uniq, m)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "[" + strings.Join(uniq, ", ") + "]"
}

// limitItems are a LimitRange's spec.limits.
func limitItems(lr map[string]any) []map[string]any {
	spec, _ := lr["spec"].(map[string]any)
	return listOfMaps(spec["limits"])
}

// limitRangeDefaults is PodMutateLimitFunc for each LimitRange in turn. pod is not modified.
func limitRangeDefaults(pod map[string]any, ranges []map[string]any) map[string]any {
	var out map[string]any // pod's copy, once something is to change
	for _, lr := range ranges {
		limits, requests := map[string]any{}, map[string]any{}
		for _, item := range limitItems(lr) {
			if item["type"] != "Container" {
				continue
			}
			for k, v := range asMap(item["defaultRequest"]) {
				requests[k] = quantityString(v)
			}
			for k, v := range asMap(item["default"]) {
				limits[k] = quantityString(v)
			}
		}
		if len(limits) == 0 && len(requests) == 0 {
			continue
		}
		cur := pod
		if out != nil {
			cur = out
		}
		spec, _ := cur["spec"].(map[string]any)
		if !needsDefaults(spec, limits, requests) {
			continue
		}
		if out == nil {
			out = value.Clone(pod).(map[string]any)
			spec, _ = out["spec"].(map[string]any)
		}
		var notes []string
		for _, key := range []string{"containers", "initContainers"} {
			what := "container"
			if key == "initContainers" {
				what = "init container"
			}
			for _, c := range listOfMaps(spec[key]) {
				notes = defaultContainer(c, limits, requests, what, notes)
			}
		}
		if len(notes) > 0 {
			md := ownMeta(out)
			ann, _ := md["annotations"].(map[string]any)
			if ann == nil {
				ann = map[string]any{}
				md["annotations"] = ann
			}
			ann["kubernetes.io/limit-ranger"] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
		}
	}
	if out == nil {
		return pod
	}
	return out
}

// needsDefaults reports whether some container or init container of spec lacks one of the
// default limits or requests.
func needsDefaults(spec, limits, requests map[string]any) bool {
	for _, key := range []string{"containers", "initContainers"} {
		for _, c := range listOfMaps(spec[key]) {
			res := asMap(c["resources"])
			have := asMap(res["limits"])
			for k := range limits {
				if _, ok := have[k]; !ok {
					return true
				}
			}
			have = asMap(res["requests"])
			for k := range requests {
				if _, ok := have[k]; !ok {
					return true
				}
			}
		}
	}
	return false
}

// defaultContainer is mergeContainerResources on c (owned): the missing limits and requests
// set, and the annotation's notes for them appended.
func defaultContainer(c, limits, requests map[string]any, what string, notes []string) []string {
	res, _ := c["resources"].(map[string]any)
	if res == nil {
		res = map[string]any{}
	}
	var setLimits, setRequests []string
	fill := func(key string, defaults map[string]any) []string {
		have, _ := res[key].(map[string]any)
		var set []string
		for k, v := range defaults {
			if _, ok := have[k]; ok {
				continue
			}
			if have == nil {
				have = map[string]any{}
				res[key] = have
			}
			have[k] = v
			set = append(set, k)
		}
		sort.Strings(set)
		return set
	}
	setLimits = fill("limits", limits)
	setRequests = fill("requests", requests)
	if len(setLimits)+len(setRequests) > 0 {
		c["resources"] = res
	}
	name, _ := c["name"].(string)
	if len(setRequests) > 0 {
		notes = append(notes, strings.Join(setRequests, ", ")+" request for "+what+" "+name)
	}
	if len(setLimits) > 0 {
		notes = append(notes, strings.Join(setLimits, ", ")+" limit for "+what+" "+name)
	}
	return notes
}

// resourceList is a ResourceList's quantities; a value that is no quantity (never so in a
// stored or validated object) counts as absent.
type resourceList map[string]quantity.Quantity

func parseResourceList(v any) resourceList {
	m := asMap(v)
	out := make(resourceList, len(m))
	for k, x := range m {
		if q, ok := parseQuantityValue(x); ok {
			out[k] = q
		}
	}
	return out
}

// parseQuantityValue reads a quantity as Quantity.UnmarshalJSON reads it: a string, or a JSON
// number as its text.
func parseQuantityValue(v any) (quantity.Quantity, bool) {
	var s string
	switch t := v.(type) {
	case string:
		s = strings.TrimSpace(t)
	case int64:
		s = strconv.FormatInt(t, 10)
	case float64:
		s = strconv.FormatFloat(t, 'g', -1, 64)
	default:
		return quantity.Quantity{}, false
	}
	q, err := quantity.Parse(s)
	return q, err == nil
}

// quantityString is the string the apiserver writes for a quantity read from a stored object.
func quantityString(v any) any {
	if q, ok := parseQuantityValue(v); ok {
		return q.String()
	}
	return v
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// bound is one resource of an item's min, max or maxLimitRequestRatio.
type bound struct {
	name string
	q    quantity.Quantity
}

// bounds are a min, max or maxLimitRequestRatio by resource name: the plugin visits a Go map,
// in no defined order, so where one bound names several resources the apiserver lists their
// violations in any order; writepath lists them by name.
func bounds(v any) []bound {
	m := asMap(v)
	var out []bound
	for _, k := range sortedKeys(m) {
		if q, ok := parseQuantityValue(m[k]); ok {
			out = append(out, bound{k, q})
		}
	}
	return out
}

// enforcedValues is requestLimitEnforcedValues: whole units, or milli-units when all three fit.
func enforcedValues(req, lim, enforced quantity.Quantity) (r, l, e int64) {
	r, l, e = req.ScaledValue(0), lim.ScaledValue(0), enforced.ScaledValue(0)
	if r <= maxMilliValue && l <= maxMilliValue && e <= maxMilliValue {
		r, l, e = req.ScaledValue(-3), lim.ScaledValue(-3), enforced.ScaledValue(-3)
	}
	return
}

func minViolation(kind, name string, enforced quantity.Quantity, requests, limits resourceList) string {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := enforcedValues(req, lim, enforced)
	switch {
	case !hasReq:
		return fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified", name, kind, enforced.String())
	case r < e:
		return fmt.Sprintf("minimum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	case hasLim && l < e:
		return fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s", name, kind, enforced.String(), lim.String())
	}
	return ""
}

func maxRequestViolation(kind, name string, enforced quantity.Quantity, requests resourceList) string {
	req, hasReq := requests[name]
	r, _, e := enforcedValues(req, quantity.Quantity{}, enforced)
	switch {
	case !hasReq:
		return fmt.Sprintf("maximum %s usage per %s is %s.  No request is specified", name, kind, enforced.String())
	case r > e:
		return fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	}
	return ""
}

func maxViolation(kind, name string, enforced quantity.Quantity, requests, limits resourceList) string {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := enforcedValues(req, lim, enforced)
	switch {
	case !hasLim:
		return fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified", name, kind, enforced.String())
	case l > e:
		return fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s", name, kind, enforced.String(), lim.String())
	case hasReq && r > e:
		return fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	}
	return ""
}

func ratioViolation(kind, name string, enforced quantity.Quantity, requests, limits resourceList) string {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, _ := enforcedValues(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, kind, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, kind, enforced.String())
	}
	observed := float64(l) / float64(r)
	display := observed
	maxRatio := float64(enforced.ScaledValue(0))
	if enforced.ScaledValue(0) <= maxMilliValue {
		observed *= 1000
		maxRatio = float64(enforced.ScaledValue(-3))
	}
	if observed > maxRatio {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, kind, enforced.String(), display)
	}
	return ""
}

// checkItem appends the violations of one item's min, max and maxLimitRequestRatio.
func checkItem(msgs []string, kind string, item map[string]any, requests, limits resourceList) []string {
	add := func(m string) {
		if m != "" {
			msgs = append(msgs, m)
		}
	}
	for _, b := range bounds(item["min"]) {
		add(minViolation(kind, b.name, b.q, requests, limits))
	}
	for _, b := range bounds(item["max"]) {
		add(maxViolation(kind, b.name, b.q, requests, limits))
	}
	for _, b := range bounds(item["maxLimitRequestRatio"]) {
		add(ratioViolation(kind, b.name, b.q, requests, limits))
	}
	return msgs
}

// limitRangePodViolations is PodValidateLimitFunc's messages for one LimitRange. Its error is
// quantity.ErrRange, where summing the pod's quantities would need more digits than the
// apiserver could hold.
func limitRangePodViolations(pod, lr map[string]any) ([]string, error) {
	spec, _ := pod["spec"].(map[string]any)
	var msgs []string
	for _, item := range limitItems(lr) {
		switch item["type"] {
		case "Container":
			for _, key := range []string{"containers", "initContainers"} {
				for _, c := range listOfMaps(spec[key]) {
					res := asMap(c["resources"])
					msgs = checkItem(msgs, "Container", item, parseResourceList(res["requests"]), parseResourceList(res["limits"]))
				}
			}
		case "Pod":
			requests, err := podTotal(spec, "requests")
			if err != nil {
				return nil, err
			}
			limits, err := podTotal(spec, "limits")
			if err != nil {
				return nil, err
			}
			msgs = checkItem(msgs, "Pod", item, requests, limits)
		}
	}
	return msgs, nil
}

// podTotal is the plugin's podRequests or podLimits (which: "requests" or "limits"): the
// containers' sum; each init container's amount (a restartable one's the running sum of the
// restartable ones so far, which also adds to the containers', another's its own plus that
// sum) taken at its maximum over the init containers, and the greater of the two kept; then
// spec.resources' cpu and memory in place of the sums.
func podTotal(spec map[string]any, which string) (resourceList, error) {
	total := resourceList{}
	for _, c := range listOfMaps(spec["containers"]) {
		if err := addResources(total, parseResourceList(asMap(c["resources"])[which])); err != nil {
			return nil, err
		}
	}
	restartable, initMax := resourceList{}, resourceList{}
	for _, c := range listOfMaps(spec["initContainers"]) {
		own := parseResourceList(asMap(c["resources"])[which])
		if c["restartPolicy"] == "Always" {
			if err := addResources(total, own); err != nil {
				return nil, err
			}
			if err := addResources(restartable, own); err != nil {
				return nil, err
			}
			own = restartable
		} else {
			tmp := resourceList{}
			if err := addResources(tmp, own); err != nil {
				return nil, err
			}
			if err := addResources(tmp, restartable); err != nil {
				return nil, err
			}
			own = tmp
		}
		maxResources(initMax, own)
	}
	maxResources(total, initMax)
	if podRes, ok := spec["resources"].(map[string]any); ok {
		for k, q := range parseResourceList(podRes[which]) {
			if k == "cpu" || k == "memory" {
				total[k] = q
			}
		}
	}
	return total, nil
}

// addResources is addResourceList: each of add's quantities added to list's (Quantity.Add:
// the sum keeps list's format unless list's is zero).
func addResources(list, add resourceList) error {
	for k, q := range add {
		cur, ok := list[k]
		if !ok {
			list[k] = q
			continue
		}
		sum, err := cur.Add(q)
		if err != nil {
			return fmt.Errorf("limit ranges: adding %s %s and %s: %w", k, cur.String(), q.String(), err)
		}
		list[k] = sum
	}
	return nil
}

// maxResources is maxResourceList: list keeps the greater of its and other's quantities.
func maxResources(list, other resourceList) {
	for k, q := range other {
		if cur, ok := list[k]; !ok || q.Cmp(cur) > 0 {
			list[k] = q
		}
	}
}

// limitRangeClaimViolations is PersistentVolumeClaimValidateLimitFunc's messages for one
// LimitRange: the PersistentVolumeClaim items' min (against the requests, the claim's limits
// not counting) and max (against the requests only).
func limitRangeClaimViolations(claim, lr map[string]any) []string {
	spec, _ := claim["spec"].(map[string]any)
	requests := parseResourceList(asMap(spec["resources"])["requests"])
	var msgs []string
	for _, item := range limitItems(lr) {
		if item["type"] != "PersistentVolumeClaim" {
			continue
		}
		for _, b := range bounds(item["min"]) {
			if m := minViolation("PersistentVolumeClaim", b.name, b.q, requests, resourceList{}); m != "" {
				msgs = append(msgs, m)
			}
		}
		for _, b := range bounds(item["max"]) {
			if m := maxRequestViolation("PersistentVolumeClaim", b.name, b.q, requests); m != "" {
				msgs = append(msgs, m)
			}
		}
	}
	return msgs
}
