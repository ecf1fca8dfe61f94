package object

import (
	"sort"
	"time"

	"github.com/writepath/writepath/internal/value"
)

// Object is a Kubernetes object in the library's object model.
type Object = map[string]any

// Map returns obj[keys...] as a map (nil when absent or not a map).
func Map(obj map[string]any, keys ...string) map[string]any {
	cur := obj
	for _, k := range keys {
		next, _ := cur[k].(map[string]any)
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// String returns obj[keys...] as a string ("" when absent).
func String(obj map[string]any, keys ...string) string {
	if len(keys) == 0 {
		return ""
	}
	s, _ := Map(obj, keys[:len(keys)-1]...)[keys[len(keys)-1]].(string)
	return s
}

// Int returns obj[keys...] as an int64 and whether it is present as a number.
func Int(obj map[string]any, keys ...string) (int64, bool) {
	if len(keys) == 0 {
		return 0, false
	}
	switch v := Map(obj, keys[:len(keys)-1]...)[keys[len(keys)-1]].(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), true
	}
	return 0, false
}

// List returns obj[keys...] as a list.
func List(obj map[string]any, keys ...string) []any {
	if len(keys) == 0 {
		return nil
	}
	l, _ := Map(obj, keys[:len(keys)-1]...)[keys[len(keys)-1]].([]any)
	return l
}

// Name, Namespace, UID and Generation read metadata.
func Name(obj map[string]any) string      { return String(obj, "metadata", "name") }
func Namespace(obj map[string]any) string { return String(obj, "metadata", "namespace") }
func UID(obj map[string]any) string       { return String(obj, "metadata", "uid") }
func Generation(obj map[string]any) int64 {
	g, _ := Int(obj, "metadata", "generation")
	return g
}

// Deleting reports whether metadata.deletionTimestamp is set.
func Deleting(obj map[string]any) bool {
	return Map(obj, "metadata")["deletionTimestamp"] != nil
}

// Key is the cache key namespace/name.
func Key(obj map[string]any) string { return Namespace(obj) + "/" + Name(obj) }

// OwnerRef is a metadata.ownerReferences entry.
type OwnerRef struct {
	APIVersion, Kind, Name, UID    string
	Controller, BlockOwnerDeletion bool
}

// ControllerOf returns the ownerReference with controller: true, as metav1.GetControllerOf.
func ControllerOf(obj map[string]any) (OwnerRef, bool) {
	for _, x := range List(obj, "metadata", "ownerReferences") {
		m, _ := x.(map[string]any)
		if c, _ := m["controller"].(bool); c {
			b, _ := m["blockOwnerDeletion"].(bool)
			return OwnerRef{APIVersion: String(m, "apiVersion"), Kind: String(m, "kind"), Name: String(m, "name"),
				UID: String(m, "uid"), Controller: true, BlockOwnerDeletion: b}, true
		}
	}
	return OwnerRef{}, false
}

// ControllerRef is metav1.NewControllerRef of owner as kind in apiVersion.
func ControllerRef(owner map[string]any, apiVersion, kind string) map[string]any {
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "name": Name(owner), "uid": UID(owner),
		"controller": true, "blockOwnerDeletion": true}
}

// Time parses an RFC 3339 metav1.Time; the zero time when absent or malformed.
func Time(v any) time.Time {
	s, _ := v.(string)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// FormatTime prints t as metav1.Time marshals it (UTC, seconds).
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Condition returns the status.conditions entry of type t.
func Condition(obj map[string]any, t string) map[string]any {
	for _, x := range List(obj, "status", "conditions") {
		m, _ := x.(map[string]any)
		if String(m, "type") == t {
			return m
		}
	}
	return nil
}

// PodReady is podutil.IsPodReady: a Ready condition with status True.
func PodReady(pod map[string]any) bool {
	return String(Condition(pod, "Ready"), "status") == "True"
}

// PodReadyTime is the lastTransitionTime of a True Ready condition (zero otherwise).
func PodReadyTime(pod map[string]any) time.Time {
	c := Condition(pod, "Ready")
	if String(c, "status") != "True" {
		return time.Time{}
	}
	return Time(c["lastTransitionTime"])
}

// PodAvailable is podutil.IsPodAvailable.
func PodAvailable(pod map[string]any, minReadySeconds int64, now time.Time) bool {
	if !PodReady(pod) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	t := Time(Condition(pod, "Ready")["lastTransitionTime"])
	return !t.IsZero() && !t.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}

// Phase is status.phase.
func Phase(pod map[string]any) string { return String(pod, "status", "phase") }

// PodActive is controller.IsPodActive: not Succeeded, not Failed, not being deleted.
func PodActive(pod map[string]any) bool {
	p := Phase(pod)
	return p != "Succeeded" && p != "Failed" && !Deleting(pod)
}

// PodTerminating is controller.IsPodTerminating: not terminal and being deleted.
func PodTerminating(pod map[string]any) bool {
	p := Phase(pod)
	return p != "Succeeded" && p != "Failed" && Deleting(pod)
}

// Labels returns metadata.labels' string entries (a new map).
func Labels(obj map[string]any) map[string]string {
	return StringMap(Map(obj, "metadata", "labels"))
}

// StringMap returns the string entries of m in a new map.
func StringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// Copy deep-copies obj (nil stays nil).
func Copy(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	c, err := value.DeepCopyMap(obj)
	if err != nil {
		// Values outside the model are kept by reference; the controllers never write them.
		out := make(map[string]any, len(obj))
		for k, v := range obj {
			out[k] = v
		}
		return out
	}
	return c
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
