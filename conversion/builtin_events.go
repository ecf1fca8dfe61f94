package conversion

import "github.com/writepath/writepath/internal/value"

import "github.com/writepath/writepath/schema"

// eventFields maps events.k8s.io/v1 Event fields to core/v1 Event fields, as
// the conversions through the internal Event do (pkg/apis/events/v1's
// Convert_v1_Event_To_core_Event and back); the other fields keep their names
// (metadata, eventTime, series, reportingInstance, action, reason, related,
// type).
var eventFields = [][2]string{
	{"regarding", "involvedObject"},
	{"note", "message"},
	{"deprecatedSource", "source"},
	{"deprecatedFirstTimestamp", "firstTimestamp"},
	{"deprecatedLastTimestamp", "lastTimestamp"},
	{"deprecatedCount", "count"},
	{"reportingController", "reportingComponent"},
}

var (
	coreEvent   = schema.GroupVersionKind{Version: "v1", Kind: "Event"}
	eventsEvent = schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}
)

// convertEvent converts an Event between core/v1 and events.k8s.io/v1 by
// renaming its fields. Fields the target does not have are dropped (a core
// Event's fields all have a counterpart). obj is not modified.
func convertEvent(obj map[string]any, from, to schema.GroupVersionKind) (map[string]any, bool, error) {
	var rename map[string]string
	switch {
	case from == eventsEvent && to == coreEvent:
		rename = map[string]string{}
		for _, p := range eventFields {
			rename[p[0]] = p[1]
		}
	case from == coreEvent && to == eventsEvent:
		rename = map[string]string{}
		for _, p := range eventFields {
			rename[p[1]] = p[0]
		}
	default:
		return nil, false, nil
	}
	c, err := value.DeepCopyMap(obj)
	if err != nil {
		return nil, true, err
	}
	out := make(map[string]any, len(c))
	for k, v := range c {
		if n, ok := rename[k]; ok {
			out[n] = v
			continue
		}
		out[k] = v
	}
	out["apiVersion"] = to.APIVersion()
	// The converted object is the typed one as the apiserver encodes it: its
	// struct fields and non-omitempty fields are there even when zero.
	zero := eventZeroFields
	if to == eventsEvent {
		zero = eventsZeroFields
		// core/v1 always encodes reportingComponent and reportingInstance; events.k8s.io/v1
		// omits them when empty.
		for _, f := range []string{"reportingController", "reportingInstance"} {
			if out[f] == "" {
				delete(out, f)
			}
		}
	}
	for _, z := range zero {
		if _, ok := out[z.name]; !ok {
			out[z.name] = z.value()
		}
	}
	return out, true, nil
}

type zeroField struct {
	name  string
	value func() any
}

func emptyObject() any { return map[string]any{} }
func null() any        { return nil }
func emptyString() any { return "" }

// eventZeroFields are the fields a core/v1 Event always has in JSON (struct
// and time fields, reportingComponent and reportingInstance without
// omitempty), as recorded from kube-apiserver 1.37.
var eventZeroFields = []zeroField{{"involvedObject", emptyObject}, {"source", emptyObject}, {"firstTimestamp", null},
	{"lastTimestamp", null}, {"eventTime", null}, {"reportingComponent", emptyString}, {"reportingInstance", emptyString}}

// eventsZeroFields are those of an events.k8s.io/v1 Event.
var eventsZeroFields = []zeroField{{"regarding", emptyObject}, {"deprecatedSource", emptyObject},
	{"deprecatedFirstTimestamp", null}, {"deprecatedLastTimestamp", null}, {"eventTime", null}}
