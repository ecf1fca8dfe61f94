package defaults

// Helpers for the defaulting functions, over the decoded form of defaults.go: a
// non-pointer scalar field that is absent holds its zero value, a pointer field that is absent
// is nil, non-pointer struct fields are always present.

// builtinDefaulters returns the SetDefaults_ function of each Go type, by OpenAPI name: those
// the files apis.go, core.go, ext.go and workloads.go list (no init() registration: loadDefaulting reads them
// once, when the defaulting tables are built).
func builtinDefaulters() map[string]func(map[string]any) {
	out := map[string]func(map[string]any){}
	for _, fns := range []map[string]func(map[string]any){apisDefaulters(), coreDefaulters(), extDefaulters(), workloadsDefaulters()} {
		for k, v := range fns {
			out[k] = v
		}
	}
	return out
}

func dstr(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func dint(m map[string]any, k string) int64 {
	n, _ := m[k].(int64)
	return n
}

func dbool(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}

// dmap returns the object at k, nil when absent or null.
func dmap(m map[string]any, k string) map[string]any {
	if m == nil {
		return nil
	}
	x, _ := m[k].(map[string]any)
	return x
}

func dlist(m map[string]any, k string) []any {
	if m == nil {
		return nil
	}
	x, _ := m[k].([]any)
	return x
}

// has reports whether a pointer (or collection) field is set: present and not null.
func has(m map[string]any, k string) bool {
	return m != nil && m[k] != nil
}

// setStr sets a non-pointer string field; "" removes it (the zero value is absence).
func setStr(m map[string]any, k, v string) {
	if v == "" {
		delete(m, k)
		return
	}
	m[k] = v
}

// defaultStr sets a non-pointer string field when it holds "".
func defaultStr(m map[string]any, k, v string) {
	if dstr(m, k) == "" {
		setStr(m, k, v)
	}
}

// defaultPtr sets a pointer field when it is nil.
func defaultPtr(m map[string]any, k string, v any) {
	if !has(m, k) {
		m[k] = v
	}
}

// defaultNum sets a non-pointer integer field when it holds 0.
func defaultNum(m map[string]any, k string, v int64) {
	if dint(m, k) == 0 {
		m[k] = v
	}
}

// ensureMap returns the object at k, creating it (a new pointer target or map) when nil.
func ensureMap(m map[string]any, k string) map[string]any {
	if x := dmap(m, k); x != nil {
		return x
	}
	x := map[string]any{}
	m[k] = x
	return x
}

// maps returns the objects of the list at k (items that are not objects are skipped).
func maps(m map[string]any, k string) []map[string]any {
	l := dlist(m, k)
	out := make([]map[string]any, 0, len(l))
	for _, x := range l {
		if mm, ok := x.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// copyMissing copies the entries of from that to lacks (quantities are immutable: shared).
func copyMissing(to, from map[string]any) {
	for k, v := range from {
		if _, ok := to[k]; !ok {
			to[k] = v
		}
	}
}

// dig follows non-pointer/pointer struct fields; nil when one is nil.
func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = dmap(m, k)
		if m == nil {
			return nil
		}
	}
	return m
}
