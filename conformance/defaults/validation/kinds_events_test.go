package validation

import (
	"math/rand"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	"k8s.io/kubernetes/pkg/registry/core/event"
)

// Events of both groups, through the one strategy: old-style core Events (no eventTime, the
// source and counters set) and new-style ones (eventTime, reporting controller and instance,
// action), in the namespace of the object they are about or not.

func eventKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Event"}, resource: "events", seed: seedCoreEvent, complete: true,
			create: event.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": event.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, resource: "events", seed: seedEvent, complete: true, name: "Event.events.k8s.io",
			create: event.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": event.Strategy}},
	}
}

var eventClock = time.Date(2026, 12, 3, 12, 0, 0, 123456000, time.UTC)

func seedCoreEvent(r *rand.Rand) runtime.Object {
	e := &v1.Event{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}, ObjectMeta: seedMeta(r),
		InvolvedObject: v1.ObjectReference{Kind: "Pod", Namespace: pick(r, []string{"validation-pod", "", "other"}), Name: "web", UID: "u1"},
		Reason:         "Started", Message: "Started container", Type: pick(r, []string{"Normal", "Warning"})}
	if r.Intn(2) == 0 {
		e.Source = v1.EventSource{Component: "kubelet", Host: "node-1"}
		e.FirstTimestamp, e.LastTimestamp, e.Count = metav1.NewTime(eventClock.Truncate(time.Second)), metav1.NewTime(eventClock.Add(time.Minute).Truncate(time.Second)), 3
		return e
	}
	e.EventTime = metav1.NewMicroTime(eventClock)
	e.ReportingController, e.ReportingInstance, e.Action = pick(r, []string{"kubelet", "example.com/ctl"}), "node-1", "Start"
	if r.Intn(3) == 0 {
		e.Series = &v1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(eventClock.Add(time.Second))}
	}
	if r.Intn(3) == 0 {
		e.Related = &v1.ObjectReference{Kind: "Node", Name: "node-1"}
	}
	return e
}

func seedEvent(r *rand.Rand) runtime.Object {
	e := &eventsv1.Event{TypeMeta: metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, ObjectMeta: seedMeta(r),
		EventTime: metav1.NewMicroTime(eventClock), ReportingController: pick(r, []string{"example.com/ctl", "kubelet"}), ReportingInstance: "ctl-1",
		Action: "Scale", Reason: "Scaled", Note: "scaled up", Type: pick(r, []string{"Normal", "Warning"}),
		Regarding: v1.ObjectReference{Kind: "Deployment", Namespace: pick(r, []string{"validation-pod", ""}), Name: "web"}}
	switch r.Intn(4) {
	case 0:
		e.Series = &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(eventClock.Add(time.Second))}
	case 1:
		e.Related = &v1.ObjectReference{Kind: "ReplicaSet", Name: "web-1"}
	case 2:
		e.EventTime = metav1.MicroTime{}
	}
	return e
}
