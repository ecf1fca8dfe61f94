package resourcequota

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/writepath/writepath/internal/value"
)

// Attributes are what the ResourceQuota admission plugin reads of a request
// (admission.Attributes).
type Attributes struct {
	// Group and Resource name the request's resource; Subresource its subresource ("" for the
	// main resource).
	Group, Resource, Subresource string
	// Namespace is the request's namespace ("" for a cluster-scoped resource).
	Namespace string
	// Operation is CREATE or UPDATE (the plugin admits nothing else).
	Operation Operation
	// Object is the object being written (after mutating admission, defaulted and validated);
	// OldObject the stored one on an update.
	Object, OldObject map[string]any
	// DryRun says the request does not persist: quotas are checked but not charged.
	DryRun bool
}

// Forbidden is a refusal of the plugin: the apiserver answers it as admission.NewForbidden,
// 403 `<resource> "<name>" is forbidden: <Message>`.
type Forbidden struct{ Message string }

func (e *Forbidden) Error() string { return e.Message }

// Admit is the ResourceQuota admission plugin on one request (quotaEvaluator.Evaluate,
// checkQuotas and CheckRequest of k8s.io/apiserver's plugin/resourcequota, with the default
// configuration: no limited resources): quotas are the ResourceQuotas of the request's
// namespace as the plugin's informer holds them, in the order to check them. It returns the
// quotas whose status.used the request charges, each a copy with its new status.used (to be
// written to the quota's /status before the object is stored), or the refusal: a *Forbidden
// ("exceeded quota: ...", "status unknown for quota: ...", "failed quota: ...", "quota usage is
// negative ...") or another error (an evaluator's). Nothing is charged on a dry run, a
// cluster-scoped request, a Namespace create, an ignored resource or an operation the
// resource's evaluator does not handle. Inputs are not modified.
func Admit(quotas []map[string]any, a Attributes, now time.Time) ([]map[string]any, error) {
	if a.Operation != Create && a.Operation != Update {
		return nil, nil
	}
	if a.Namespace == "" || a.Operation == Create && a.Group == "" && a.Resource == "namespaces" {
		return nil, nil
	}
	e := evaluatorFor(a.Group, a.Resource)
	if e == nil || !e.handles(a.Operation, a.Subresource, a.Object, a.OldObject) {
		return nil, nil
	}
	if len(quotas) == 0 {
		return nil, nil
	}
	used, err := checkRequest(quotas, a, e, now)
	if err != nil {
		return nil, err
	}
	if a.DryRun || used == nil {
		return nil, nil
	}
	var out []map[string]any
	for i, q := range quotas {
		if used[i] == nil {
			continue
		}
		if equal(readList(statusOf(q)["used"]), used[i]) {
			continue
		}
		c, err := value.DeepCopyMap(q)
		if err != nil {
			return nil, err
		}
		st, _ := c["status"].(map[string]any)
		if st == nil {
			st = map[string]any{}
			c["status"] = st
		}
		st["used"] = used[i].JSON()
		out = append(out, c)
	}
	return out, nil
}

// checkRequest is CheckRequest: for each quota, its new status.used when the request charges
// it (nil otherwise).
func checkRequest(quotas []map[string]any, a Attributes, e *evaluator, now time.Time) ([]ResourceList, error) {
	obj := a.Object
	var interesting []int
	for i, q := range quotas {
		if _, err := e.matchingScopes(obj, quotaScopes(q)); err != nil {
			return nil, fmt.Errorf("error matching scopes of quota %s, err: %v", quotaName(q), err)
		}
		match, err := e.matches(q, obj)
		if err != nil {
			return nil, err
		}
		if !match {
			continue
		}
		st := statusOf(q)
		hard := readList(st["hard"])
		restricted := e.matching(hard.names())
		if e.constraints != nil {
			if err := e.constraints(restricted, obj); err != nil {
				return nil, &Forbidden{Message: fmt.Sprintf("failed quota: %s: %v", quotaName(q), err)}
			}
		}
		if !hasUsageStats(hard, readList(st["used"]), restricted) {
			return nil, &Forbidden{Message: fmt.Sprintf("status unknown for quota: %s, resources: %s", quotaName(q), prettyNames(restricted))}
		}
		interesting = append(interesting, i)
	}
	input, err := e.usage(withNamespace(obj, a.Namespace), now)
	if err != nil {
		return nil, err
	}
	if neg := negative(input); len(neg) > 0 {
		return nil, &Forbidden{Message: "quota usage is negative for resource(s): " + strings.Join(neg, ",")}
	}
	delta := make(map[int]ResourceList, len(interesting))
	for _, i := range interesting {
		delta[i] = input
	}
	if a.Operation == Update {
		if a.OldObject == nil {
			return nil, &Forbidden{Message: "unable to get previous usage since prior version of object was not found"}
		}
		meta, _ := a.OldObject["metadata"].(map[string]any)
		if rv, _ := meta["resourceVersion"].(string); rv != "" {
			prev, err := e.usage(a.OldObject, now)
			if err != nil {
				return nil, err
			}
			d, err := subtractNonNegative(input, prev)
			if err != nil {
				return nil, err
			}
			for _, i := range interesting {
				match, err := e.matches(quotas[i], a.OldObject)
				if err != nil {
					return nil, err
				}
				if match {
					delta[i] = d
				}
			}
		}
	}
	for i, d := range delta {
		if d = removeZeros(d); len(d) == 0 {
			delete(delta, i)
		} else {
			delta[i] = d
		}
	}
	if len(interesting) == 0 || len(delta) == 0 {
		return nil, nil
	}
	out := make([]ResourceList, len(quotas))
	for _, i := range interesting {
		d, ok := delta[i]
		if !ok {
			continue
		}
		st := statusOf(quotas[i])
		hard, used := readList(st["hard"]), readList(st["used"])
		requested := mask(d, hard.names())
		newUsed, err := add(used, requested)
		if err != nil {
			return nil, err
		}
		if a.Subresource != "status" {
			if ok, exceeded := lessOrEqual(mask(newUsed, requested.names()), hard); !ok {
				return nil, &Forbidden{Message: fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
					quotaName(quotas[i]), mask(requested, exceeded), mask(used, exceeded), mask(hard, exceeded))}
			}
		}
		out[i] = newUsed
	}
	return out, nil
}

// withNamespace is obj with metadata.namespace set to ns when it has none (CheckRequest sets
// it on the input object for evaluators that read it).
func withNamespace(obj map[string]any, ns string) map[string]any {
	meta, _ := obj["metadata"].(map[string]any)
	if s, _ := meta["namespace"].(string); s != "" || ns == "" {
		return obj
	}
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["namespace"] = ns
	c["metadata"] = m
	return c
}

// hasUsageStats: every hard resource among interesting has a used value.
func hasUsageStats(hard, used ResourceList, interesting []string) bool {
	set := toSet(interesting)
	for name := range hard {
		if !set[name] {
			continue
		}
		if _, ok := used[name]; !ok {
			return false
		}
	}
	return true
}

func prettyNames(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	return strings.Join(s, ",")
}

// IsForbidden reports whether err is the plugin's refusal, and its message.
func IsForbidden(err error) (string, bool) {
	var f *Forbidden
	if errors.As(err, &f) {
		return f.Message, true
	}
	return "", false
}
