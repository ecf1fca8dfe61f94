package validation

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// Event, core v1 and events.k8s.io/v1: the one events strategy (pkg/registry/core/event) over
// ValidateEventCreate and ValidateEventUpdate, which read the request's group: a core v1 write
// gets only the legacy rules (no metadata, no immutability: an Event of core v1 may change at
// will), an events.k8s.io write the strict ones too. Both shapes are read as the internal
// Event they convert to (regarding is involvedObject, note message, deprecatedSource source,
// ...), and errors name the internal fields, as the apiserver's do (reportingComponent for a core
// v1 write, reportingController otherwise).

// eventView is an Event of either version under the internal field names.
type eventView struct {
	namespace                               string
	involvedObject, source, series, related map[string]any
	hasRelated, hasSeries                   bool
	reason, message, typ, action            string
	reportingController, reportingInstance  string
	firstTimestamp, lastTimestamp           any
	eventTime                               any
	count                                   int64
}

func newEventView(obj map[string]any, strict bool) eventView {
	v := eventView{namespace: str(mapOf(obj["metadata"]), "namespace"), reason: str(obj, "reason"), typ: str(obj, "type"),
		action: str(obj, "action"), reportingInstance: str(obj, "reportingInstance"), eventTime: obj["eventTime"]}
	v.series, v.hasSeries = obj["series"].(map[string]any)
	v.related, v.hasRelated = obj["related"].(map[string]any)
	if strict {
		v.involvedObject, v.message, v.source = mapOf(obj["regarding"]), str(obj, "note"), mapOf(obj["deprecatedSource"])
		v.firstTimestamp, v.lastTimestamp = obj["deprecatedFirstTimestamp"], obj["deprecatedLastTimestamp"]
		v.count, _ = integer(obj, "deprecatedCount")
		v.reportingController = str(obj, "reportingController")
		return v
	}
	v.involvedObject, v.message, v.source = mapOf(obj["involvedObject"]), str(obj, "message"), mapOf(obj["source"])
	v.firstTimestamp, v.lastTimestamp = obj["firstTimestamp"], obj["lastTimestamp"]
	v.count, _ = integer(obj, "count")
	v.reportingController = str(obj, "reportingComponent")
	return v
}

// strictEvents reports whether writes of the group get the strict rules (events.k8s.io/v1).
func strictEvents(group string) bool { return group == "events.k8s.io" }

func validateEvent(strict bool) func(map[string]any, Options) field.ErrorList {
	return func(obj map[string]any, _ Options) field.ErrorList {
		e := newEventView(obj, strict)
		errs := legacyEvent(e, strict)
		if !strict {
			return errs
		}
		errs = append(errs, coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)...)
		errs = append(errs, eventSeries(e)...)
		if isZeroTime(e.eventTime) {
			errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
		}
		if e.typ != "Normal" && e.typ != "Warning" {
			errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.typ)))
		}
		if !isZeroTime(e.firstTimestamp) {
			errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
		}
		if !isZeroTime(e.lastTimestamp) {
			errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
		}
		if e.count != 0 {
			errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
		}
		if str(e.source, "component") != "" || str(e.source, "host") != "" {
			errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
		}
		return distinct(errs)
	}
}

func validateEventUpdate(strict bool) func(map[string]any, map[string]any, Options) field.ErrorList {
	return func(obj, old map[string]any, opts Options) field.ErrorList {
		if opts.Subresource != "" {
			return nil
		}
		e := newEventView(obj, strict)
		errs := legacyEvent(e, strict)
		if !strict {
			return errs
		}
		o := newEventView(old, strict)
		errs = append(errs, coreObjectMetaUpdate(obj, old)...)
		if e.hasSeries != o.hasSeries || !sameEventSeries(e.series, o.series) {
			errs = append(errs, eventSeries(e)...)
		}
		immutableAs := func(name string, v, oldV any, equal bool) {
			if !equal {
				errs = append(errs, field.Invalid(field.NewPath(name), v, "field is immutable"))
			}
		}
		immutableAs("involvedObject", objectReferenceValue(e.involvedObject, true), nil, sameObjectReference(e.involvedObject, o.involvedObject))
		immutableAs("reason", e.reason, nil, e.reason == o.reason)
		immutableAs("message", e.message, nil, e.message == o.message)
		immutableAs("source", eventSourceValue(e.source), nil, str(e.source, "component") == str(o.source, "component") && str(e.source, "host") == str(o.source, "host"))
		immutableAs("firstTimestamp", timeValue(e.firstTimestamp, time.RFC3339), nil, sameTime2(e.firstTimestamp, o.firstTimestamp))
		immutableAs("lastTimestamp", timeValue(e.lastTimestamp, time.RFC3339), nil, sameTime2(e.lastTimestamp, o.lastTimestamp))
		immutableAs("count", e.count, nil, e.count == o.count)
		immutableAs("reason", e.reason, nil, e.reason == o.reason)
		immutableAs("type", e.typ, nil, e.typ == o.typ)
		immutableAs("eventTime", timeValue(e.eventTime, microFormat), nil, sameTime2(e.eventTime, o.eventTime))
		immutableAs("action", e.action, nil, e.action == o.action)
		immutableAs("related", objectReferenceValue(e.related, e.hasRelated), nil, e.hasRelated == o.hasRelated && sameObjectReference(e.related, o.related))
		immutableAs("reportingController", e.reportingController, nil, e.reportingController == o.reportingController)
		immutableAs("reportingInstance", e.reportingInstance, nil, e.reportingInstance == o.reportingInstance)
		return distinct(errs)
	}
}

// legacyEvent is legacyValidateEvent.
func legacyEvent(e eventView, strict bool) field.ErrorList {
	var errs field.ErrorList
	rcName := "reportingController"
	if !strict {
		rcName = "reportingComponent"
	}
	nsPath := field.NewPath("involvedObject", "namespace")
	ns := str(e.involvedObject, "namespace")
	if isZeroTime(e.eventTime) {
		if ns == "" {
			if e.namespace != "" && e.namespace != "default" {
				errs = append(errs, field.Invalid(nsPath, ns, "does not match event.namespace"))
			}
		} else if e.namespace != ns {
			errs = append(errs, field.Invalid(nsPath, ns, "does not match event.namespace"))
		}
		return errs
	}
	if ns == "" && e.namespace != "default" && e.namespace != "kube-system" {
		errs = append(errs, field.Invalid(nsPath, ns, "does not match event.namespace"))
	}
	if e.reportingController == "" {
		errs = append(errs, field.Required(field.NewPath(rcName), ""))
	}
	errs = append(errs, invalids(field.NewPath(rcName), e.reportingController, validation.IsQualifiedName(e.reportingController))...)
	if e.reportingInstance == "" {
		errs = append(errs, field.Required(field.NewPath("reportingInstance"), ""))
	}
	if len(e.reportingInstance) > 128 {
		errs = append(errs, field.Invalid(field.NewPath("reportingInstance"), "", "can have at most 128 characters"))
	}
	if e.action == "" {
		errs = append(errs, field.Required(field.NewPath("action"), ""))
	}
	if len(e.action) > 128 {
		errs = append(errs, field.Invalid(field.NewPath("action"), "", "can have at most 128 characters"))
	}
	if e.reason == "" {
		errs = append(errs, field.Required(field.NewPath("reason"), ""))
	}
	if len(e.reason) > 128 {
		errs = append(errs, field.Invalid(field.NewPath("reason"), "", "can have at most 128 characters"))
	}
	if len(e.message) > 1024 {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", "can have at most 1024 characters"))
	}
	return errs
}

// eventSeries is validateV1EventSeries.
func eventSeries(e eventView) field.ErrorList {
	if !e.hasSeries {
		return nil
	}
	var errs field.ErrorList
	if n, _ := integer(e.series, "count"); n < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if isZeroTime(e.series["lastObservedTime"]) {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

func sameEventSeries(a, b map[string]any) bool {
	na, _ := integer(a, "count")
	nb, _ := integer(b, "count")
	return na == nb && sameTime2(a["lastObservedTime"], b["lastObservedTime"])
}

const microFormat = "2006-01-02T15:04:05.000000Z07:00"

// isZeroTime reports whether a metav1.Time or MicroTime field is unset (or the zero time).
func isZeroTime(v any) bool {
	t, ok := timeOrZero(v)
	return !ok || t.IsZero()
}

// sameTime2 compares two time fields by instant (unset is the zero time).
func sameTime2(a, b any) bool {
	ta, _ := timeOrZero(a)
	tb, _ := timeOrZero(b)
	return ta.Equal(tb)
}

// timeValue is a metav1.Time or MicroTime as a bad value: its JSON (null when zero).
func timeValue(v any, layout string) json.RawMessage {
	t, ok := timeOrZero(v)
	if !ok || t.IsZero() {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(t.UTC().Format(layout))
	return b
}

// objectReferenceFields are the internal ObjectReference's fields: v1 name and Go name.
var objectReferenceFields = [][2]string{{"kind", "Kind"}, {"namespace", "Namespace"}, {"name", "Name"}, {"uid", "UID"},
	{"apiVersion", "APIVersion"}, {"resourceVersion", "ResourceVersion"}, {"fieldPath", "FieldPath"}}

// objectReferenceValue is an internal ObjectReference as a bad value (null when unset).
func objectReferenceValue(ref map[string]any, present bool) json.RawMessage {
	if !present {
		return json.RawMessage("null")
	}
	b := []byte{'{'}
	for i, f := range objectReferenceFields {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(f[1])
		v, _ := json.Marshal(str(ref, f[0]))
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}')
}

func sameObjectReference(a, b map[string]any) bool {
	for _, f := range objectReferenceFields {
		if str(a, f[0]) != str(b, f[0]) {
			return false
		}
	}
	return true
}

// eventSourceValue is an internal EventSource as a bad value.
func eventSourceValue(src map[string]any) json.RawMessage {
	b, _ := json.Marshal(struct{ Component, Host string }{str(src, "component"), str(src, "host")})
	return b
}
