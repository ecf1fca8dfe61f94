package versions

import (
	"fmt"

	"github.com/writepath/writepath/field"
)

// Observation compares an object's metadata.generation with the generations its
// status says were observed: status.observedGeneration and the observedGeneration
// of each entry of status.conditions.
type Observation struct {
	// Generation is metadata.generation (0 when absent).
	Generation int64
	// ObservedGeneration is status.observedGeneration; HasObservedGeneration
	// tells whether the field is present.
	ObservedGeneration    int64
	HasObservedGeneration bool
	// Conditions lists status.conditions in order.
	Conditions []ConditionObservation
}

// ConditionObservation is one condition's view of the generation.
type ConditionObservation struct {
	// Type is the condition's type.
	Type string
	// ObservedGeneration is the condition's observedGeneration; Has tells
	// whether the condition carries one.
	ObservedGeneration int64
	Has                bool
}

// Current reports whether the condition was computed for generation g or a
// later one. A condition without observedGeneration is not current.
func (c ConditionObservation) Current(g int64) bool { return c.Has && c.ObservedGeneration >= g }

// StatusCurrent reports whether status.observedGeneration is at least the
// generation — the test kubectl rollout status and controllers use: the
// controller has seen the latest spec. An absent observedGeneration is not
// current.
func (o Observation) StatusCurrent() bool {
	return o.HasObservedGeneration && o.ObservedGeneration >= o.Generation
}

// StaleConditions returns the types of the conditions that carry an
// observedGeneration older than the generation (metav1.Condition's contract:
// such a condition is out of date). Conditions without one are not listed.
func (o Observation) StaleConditions() []string {
	var out []string
	for _, c := range o.Conditions {
		if c.Has && c.ObservedGeneration < o.Generation {
			out = append(out, c.Type)
		}
	}
	return out
}

// Current reports whether the status is current and no condition is stale.
func (o Observation) Current() bool {
	return o.StatusCurrent() && len(o.StaleConditions()) == 0
}

// Observe reads the generation fields of obj. It fails when one of them is
// present but not an integer, or status/conditions have the wrong shape. obj
// is not modified.
func Observe(obj map[string]any) (Observation, error) {
	g, err := generationOf(obj, "")
	if err != nil {
		return Observation{}, err
	}
	o := Observation{Generation: g}
	var st map[string]any
	switch v := obj["status"].(type) {
	case nil:
		return o, nil
	case map[string]any:
		st = v
	default:
		return Observation{}, field.Invalid(field.NewPath("status"), v, "must be an object")
	}
	if v, ok := st["observedGeneration"]; ok && v != nil {
		n, ok := integer(v)
		if !ok {
			return Observation{}, field.Invalid(field.NewPath("status", "observedGeneration"), v, "must be an integer")
		}
		o.ObservedGeneration, o.HasObservedGeneration = n, true
	}
	switch cs := st["conditions"].(type) {
	case nil:
	case []any:
		for i, c := range cs {
			p := field.NewPath("status", "conditions").Index(i)
			cm, ok := c.(map[string]any)
			if !ok {
				return Observation{}, field.Invalid(p, c, "must be an object")
			}
			t, _ := cm["type"].(string)
			co := ConditionObservation{Type: t}
			if v, ok := cm["observedGeneration"]; ok && v != nil {
				n, ok := integer(v)
				if !ok {
					return Observation{}, field.Invalid(p.Child("observedGeneration"), v, "must be an integer")
				}
				co.ObservedGeneration, co.Has = n, true
			}
			o.Conditions = append(o.Conditions, co)
		}
	default:
		return Observation{}, field.Invalid(field.NewPath("status", "conditions"), cs, "must be a list")
	}
	return o, nil
}

// String summarises the observation: "generation 3, observed 2 (stale); stale conditions: Ready".
func (o Observation) String() string {
	s := fmt.Sprintf("generation %d, ", o.Generation)
	if o.HasObservedGeneration {
		s += fmt.Sprintf("observed %d", o.ObservedGeneration)
	} else {
		s += "observedGeneration not set"
	}
	if o.StatusCurrent() {
		s += " (current)"
	} else {
		s += " (stale)"
	}
	if stale := o.StaleConditions(); len(stale) > 0 {
		s += fmt.Sprintf("; stale conditions: %v", stale)
	}
	return s
}

func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	}
	return 0, false
}
