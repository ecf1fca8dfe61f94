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
// by index) are sorted by the comparator with equal times, operation, manager, subresource.
// Every entry is still compared whole, so no difference in content is hidden; where the
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

func sortedEntries(l []any) []any {
	out := append([]any(nil), l...)
	field := func(e any, k string) string {
		m, _ := e.(map[string]any)
		s, _ := m[k].(string)
		return s
	}
	sort.SliceStable(out, func(i, j int) bool {
		for _, k := range []string{"operation", "manager", "subresource"} {
			if a, b := field(out[i], k), field(out[j], k); a != b {
				return a < b
			}
		}
		return false
	})
	return out
}
