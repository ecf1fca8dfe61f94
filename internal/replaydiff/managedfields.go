package replaydiff

import (
	"sort"
	"time"
)

// ManagedFieldsByKey returns want and got with the managedFields lists whose order came from
// times that the replay does not reproduce put in one order on both sides.
//
// kube-apiserver sorts an object's managedFields by operation, then the entry's time in whole
// seconds, then manager, then subresource (k8s.io/apimachinery's managedfields
// sortEncodedManagedFields). A replay normalises times (its clock is not the recorder's, and
// controllers that wrote a second later in the recorded cluster write in the same second in the
// replay), so where the recorded entries' times differ the order is partly a time and not
// compared: there, both lists (the one at the same place in want and in got: maps by key, lists
// by index) are sorted by the comparator with equal times, operation, manager, subresource (an
// entry without a time, at second 0 on both servers, still before the timed ones), unless the
// replayed list breaks what no time decides (operation, the untimed entries first): then it
// is compared as it is. Every entry is still compared whole, so no difference in content is hidden; where the
// recorded times are all one second the order is compared as it is. Neither input is
// modified; the lists sorted are fresh.
func ManagedFieldsByKey(want, got any) (any, any) {
	return managedFieldsByKey(want, got, "")
}

func managedFieldsByKey(want, got any, key string) (any, any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return want, got
		}
		wo, gocopy := make(map[string]any, len(w)), make(map[string]any, len(g))
		for k, v := range g {
			gocopy[k] = v
		}
		for k, wv := range w {
			wo[k] = wv
			if gv, ok := g[k]; ok {
				wo[k], gocopy[k] = managedFieldsByKey(wv, gv, k)
			}
		}
		return wo, gocopy
	case []any:
		g, ok := got.([]any)
		if !ok {
			return want, got
		}
		if key == "managedFields" {
			if !timesDiffer(w) {
				return want, got
			}
			if !untimedOrder(g) {
				// What no time decides (operation, an untimed entry first) is compared.
				return sortedEntries(w), got
			}
			return sortedEntries(w), sortedEntries(g)
		}
		wo, gocopy := append([]any(nil), w...), append([]any(nil), g...)
		for i := range w {
			if i < len(g) {
				wo[i], gocopy[i] = managedFieldsByKey(w[i], g[i], key)
			}
		}
		return wo, gocopy
	}
	return want, got
}

// timesDiffer: two entries of l carry times of different seconds (an entry without a time, as
// kube-apiserver compares it, stands at second 0).
func timesDiffer(l []any) bool {
	var first int64
	for i, e := range l {
		s := entrySecond(e)
		if i == 0 {
			first = s
		} else if s != first {
			return true
		}
	}
	return false
}

func entrySecond(e any) int64 {
	m, _ := e.(map[string]any)
	s, _ := m["time"].(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.Unix()
}

// untimedOrder: l is ordered by what the comparator decides without the times' values, the
// operation and, within one, the entries without a time first.
func untimedOrder(l []any) bool {
	for i := 1; i < len(l); i++ {
		if entryLess(l[i], l[i-1], false) {
			return false
		}
	}
	return true
}

func field(e any, k string) string {
	m, _ := e.(map[string]any)
	s, _ := m[k].(string)
	return s
}

// entryLess is kube-apiserver's comparator with every time one value (an absent time is second
// 0 on both servers: before the timed entries); names compares manager and subresource too.
func entryLess(a, b any, names bool) bool {
	if x, y := field(a, "operation"), field(b, "operation"); x != y {
		return x < y
	}
	if x, y := field(a, "time") != "", field(b, "time") != ""; x != y {
		return y
	}
	if !names {
		return false
	}
	for _, k := range []string{"manager", "subresource"} {
		if x, y := field(a, k), field(b, k); x != y {
			return x < y
		}
	}
	return false
}

func sortedEntries(l []any) []any {
	out := append([]any(nil), l...)
	sort.SliceStable(out, func(i, j int) bool { return entryLess(out[i], out[j], true) })
	return out
}
