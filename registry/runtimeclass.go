package registry

import (
	"fmt"
	"reflect"

	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

var runtimeClassesResource = schema.GroupVersionResource{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"}

// podRuntimeClass returns the RuntimeClass a Pod names (nil when it names none, or with the
// RuntimeClass plugin disabled) or the plugin's 403 when it is missing.
func (h *handler) podRuntimeClass(obj, spec map[string]any) (map[string]any, error) {
	name, ok := spec["runtimeClassName"].(string)
	if !ok || h.pluginDisabled("RuntimeClass") {
		return nil, nil
	}
	rc, err := h.w.Get(h.ctx, runtimeClassesResource, "", name)
	if err != nil {
		return nil, worldError(err, "Get(runtimeclasses)")
	}
	if rc == nil {
		return nil, status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), fmt.Errorf("pod rejected: RuntimeClass %q not found", name))
	}
	return rc, nil
}

// runtimeClassAdmit is the RuntimeClass plugin's Admit on a Pod create
// (plugin/pkg/admission/runtimeclass): the class's overhead.podFixed becomes spec.overhead
// (a different overhead already set is a 403), its scheduling.nodeSelector is merged into
// spec.nodeSelector (a key with another value is a 403) and its tolerations are merged after
// the Pod's (tolerations.MergeTolerations). spec is obj's, owned by the caller.
func (h *handler) runtimeClassAdmit(obj, spec map[string]any) error {
	rc, err := h.podRuntimeClass(obj, spec)
	if err != nil || rc == nil {
		return err
	}
	forbidden := func(msg string) error {
		return status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), fmt.Errorf("%s", msg))
	}
	if oh, ok := rc["overhead"].(map[string]any); ok {
		fixed, _ := oh["podFixed"].(map[string]any)
		if cur, _ := spec["overhead"].(map[string]any); len(cur) > 0 && !sameResources(fixed, cur) {
			return forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
		}
		if fixed == nil {
			delete(spec, "overhead")
		} else {
			spec["overhead"] = shallow(fixed)
		}
	}
	sched, ok := rc["scheduling"].(map[string]any)
	if !ok {
		return nil
	}
	rsel, _ := sched["nodeSelector"].(map[string]any)
	if psel, ok := spec["nodeSelector"].(map[string]any); !ok {
		if rsel != nil {
			spec["nodeSelector"] = shallow(rsel)
		}
	} else {
		merged := shallow(psel)
		for _, k := range sortedKeys(rsel) {
			if pv, ok := psel[k]; ok && pv != rsel[k] {
				return forbidden(fmt.Sprintf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %v; pod.spec.nodeSelector[%s] = %v", k, rsel[k], k, pv))
			}
			merged[k] = rsel[k]
		}
		spec["nodeSelector"] = merged
	}
	ptols, _ := spec["tolerations"].([]any)
	rtols, _ := sched["tolerations"].([]any)
	if merged := mergeTolerations(ptols, rtols); merged != nil {
		spec["tolerations"] = merged
	} else {
		delete(spec, "tolerations")
	}
	return nil
}

// runtimeClassValidate is the RuntimeClass plugin's Validate on a Pod create: spec.overhead
// must be the class's overhead.podFixed, and a Pod whose class defines no overhead (or that
// names no class) may set none.
func (h *handler) runtimeClassValidate(obj map[string]any) error {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil
	}
	rc, err := h.podRuntimeClass(obj, spec)
	if err != nil {
		return err
	}
	cur, set := spec["overhead"].(map[string]any)
	if oh, ok := rc["overhead"].(map[string]any); ok {
		fixed, _ := oh["podFixed"].(map[string]any)
		if !sameResources(fixed, cur) {
			return status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
	} else if set {
		return status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), fmt.Errorf("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	return nil
}

// sameResources is apiequality.Semantic.DeepEqual on two ResourceLists: the same names, each
// quantity equal by value (nil and empty are equal).
func sameResources(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok {
			return false
		}
		as, _ := av.(string)
		bs, _ := bv.(string)
		aq, err1 := quantity.Parse(as)
		bq, err2 := quantity.Parse(bs)
		if err1 != nil || err2 != nil {
			if as != bs {
				return false
			}
			continue
		}
		if aq.Rat().Cmp(bq.Rat()) != 0 {
			return false
		}
	}
	return true
}

// mergeTolerations is pkg/util/tolerations.MergeTolerations: first then second, without the
// tolerations another one tolerates a superset of (of equal ones, the first is kept).
func mergeTolerations(first, second []any) []any {
	all := append(append([]any(nil), first...), second...)
	var merged []any
next:
	for i, t := range all {
		for _, t2 := range merged {
			if tolerationSuperset(t2, t) {
				continue next
			}
		}
		for _, t2 := range all[i+1:] {
			if !sameToleration(t, t2) && tolerationSuperset(t2, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

type toleration struct {
	key, operator, value, effect string
	seconds                      *int64
}

func tolerationOf(v any) toleration {
	m, _ := v.(map[string]any)
	s := func(k string) string { x, _ := m[k].(string); return x }
	t := toleration{key: s("key"), operator: s("operator"), value: s("value"), effect: s("effect")}
	if n, ok := int64Of(m["tolerationSeconds"]); ok {
		t.seconds = &n
	}
	return t
}

func int64Of(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	case interface{ Int64() (int64, error) }:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

func sameToleration(a, b any) bool {
	return reflect.DeepEqual(tolerationOf(a), tolerationOf(b))
}

// tolerationSuperset is the isSuperset of pkg/util/tolerations: whether ss tolerates a
// superset of what t tolerates.
func tolerationSuperset(ssv, tv any) bool {
	if sameToleration(ssv, tv) {
		return true
	}
	ss, t := tolerationOf(ssv), tolerationOf(tv)
	if t.key != ss.key && (ss.key != "" || ss.operator != "Exists") {
		return false
	}
	if t.effect != ss.effect && ss.effect != "" {
		return false
	}
	if ss.effect == "NoExecute" && ss.seconds != nil && (t.seconds == nil || *t.seconds > *ss.seconds) {
		return false
	}
	switch ss.operator {
	case "Equal", "":
		return t.operator == "Equal" && t.value == ss.value
	case "Exists":
		return true
	}
	return false
}
