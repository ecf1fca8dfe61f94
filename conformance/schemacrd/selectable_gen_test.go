package schemacrd

import "sort"

// selectablePaths lists the ".a.b" paths a selectable field can name in a root schema as
// written: steps through non-empty properties and through additionalProperties schemas (a
// fixed key), never into lists. Each path is returned with its schema.
func selectablePaths(s map[string]any) []string {
	var out []string
	var walk func(s map[string]any, prefix string, depth int)
	walk = func(s map[string]any, prefix string, depth int) {
		if depth > 6 {
			return
		}
		if props, ok := s["properties"].(map[string]any); ok && len(props) > 0 {
			for _, k := range sortedKeys(props) {
				if sub, ok := props[k].(map[string]any); ok {
					out = append(out, prefix+"."+k)
					walk(sub, prefix+"."+k, depth+1)
				}
			}
			return
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			out = append(out, prefix+".key")
			walk(ap, prefix+".key", depth+1)
		}
	}
	walk(s, "", 0)
	sort.Strings(out)
	return out
}

// selectableFields draws spec.versions[].selectableFields for a root schema: mostly paths of the
// schema (scalars of every type, objects, lists), with invalid ones mixed in (missing fields,
// steps below lists or scalars, array notation, no leading dot, metadata, empty, duplicates)
// and now and then more than the 8 allowed.
func (g *gen) selectableFields(s map[string]any) []any {
	cands := selectablePaths(s)
	n := 1 + g.r.Intn(3)
	if g.chance(0.1) {
		n = 9 + g.r.Intn(3)
	}
	var out []any
	for i := 0; i < n; i++ {
		jp := ".spec.size"
		if len(cands) > 0 {
			jp = cands[g.r.Intn(len(cands))]
		}
		if g.chance(0.25) {
			switch g.r.Intn(10) {
			case 0:
				jp += ".nope"
			case 1:
				jp = ""
			case 2:
				jp = jp[1:]
			case 3:
				jp += "[0]"
			case 4:
				jp += "['x']"
			case 5:
				jp = ".metadata." + g.pick("name", "namespace", "labels")
			case 6:
				jp += "."
			case 7:
				jp = "." + g.pick("a", "b", "c", "x") + "." + g.pick("a", "b", "c")
			case 8:
				if len(out) > 0 {
					jp = out[0].(map[string]any)["jsonPath"].(string)
				}
			case 9:
				jp = ".spec]"
			}
		}
		out = append(out, map[string]any{"jsonPath": jp})
	}
	return out
}
