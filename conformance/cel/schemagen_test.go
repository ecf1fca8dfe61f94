package cel

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// schemaGen builds random structural schemas (as written in a CRD: map[string]any) with
// x-kubernetes-validations rules, and objects for them.
type schemaGen struct {
	r *rand.Rand
}

var propNames = []string{"a", "b", "name", "spec", "x-y", "a.b", "namespace", "in", "__x", "a__b", "k/v", "1st", "int", "size", "self"}

func (g *schemaGen) rule(kind string, fields []string) map[string]any {
	r := g.r
	var expr string
	switch kind {
	case "string":
		expr = pick(r, "self.size() < 5", "self.startsWith('a')", "self == oldSelf", "self.matches('^[a-z]+$')", "isQuantity(self)",
			"self.find('[0-9]+') != ''", "self.lowerAscii() == self", "oldSelf.size() <= self.size()", "self in ['a', 'b', 'ab']", "self.size() * 2 > 3", "url(self).getHost() != ''", "isURL(self)")
	case "dyn":
		expr = pick(r, "type(self) == string || self > 0", "self == oldSelf", "type(self) == int", "string(self) != ''")
	case "integer":
		expr = pick(r, "self > 3", "self % 2 == 0", "self <= oldSelf", "self == oldSelf", "self < 100000", "int(string(self)) == self", "self / (self - self) > 0")
	case "number":
		expr = pick(r, "self > 1.5", "self == oldSelf", "self * 2.0 < 10.0", "int(self) >= 0")
	case "boolean":
		expr = pick(r, "self", "!self || oldSelf", "self == oldSelf")
	case "timestamp":
		expr = pick(r, "self > timestamp('2020-01-01T00:00:00Z')", "self == oldSelf", "self.getFullYear() > 2000")
	case "duration":
		expr = pick(r, "self < duration('1h')", "self == oldSelf", "self.getSeconds() > 3")
	case "bytes":
		expr = pick(r, "size(self) > 2", "self == oldSelf", "string(self).startsWith('a')")
	case "list":
		expr = pick(r, "self.size() <= 3", "self == oldSelf", "self + self == self", "self.all(x, x == x)", "self.exists(x, x == self[0])",
			"oldSelf.all(x, x in self)", "self.size() == 0 || self[0] == self[self.size() - 1]", "(self + oldSelf).size() >= self.size()", "self.map(x, x).size() == self.size()", "size(self) < 2 || self[1] != self[0]")
	case "map":
		expr = pick(r, "self.size() < 3", "self == oldSelf", "'a' in self", "self.all(k, k.size() < 3)", "!('x-y' in self) || self['x-y'] == self['x-y']")
	case "object":
		if len(fields) > 0 {
			f := pick(r, fields...)
			expr = pick(r, "has(self."+f+")", "self == oldSelf", "!has(self."+f+") || self."+f+" == self."+f, "has(self."+f+") == has(oldSelf."+f+")",
				"!has(oldSelf."+f+") || has(self."+f+")", "self."+f+" == oldSelf."+f)
		} else {
			expr = pick(r, "self == oldSelf", "true", "self == self")
		}
	default:
		expr = pick(r, "self == oldSelf", "true")
	}
	if r.IntN(20) == 0 {
		expr = pick(r, "self.", "1 +", "'x'", "self.nope == 1", "oldSelf")
	}
	rule := map[string]any{"rule": expr}
	if r.IntN(3) == 0 {
		rule["message"] = pick(r, "must hold", " padded ", "x")
	}
	if r.IntN(4) == 0 {
		rule["messageExpression"] = pick(r, "'value ' + string(self)", "'bad'", "string(self)", "''", "'a\\nb'", "1", "'x'.repeat(2)")
	}
	if r.IntN(5) == 0 {
		rule["reason"] = pick(r, "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate", "Bogus")
	}
	if r.IntN(5) == 0 && len(fields) > 0 {
		rule["fieldPath"] = pick(r, "."+pick(r, fields...), ".nope", "['a']", ".a.b")
	}
	if r.IntN(6) == 0 {
		rule["optionalOldSelf"] = r.IntN(2) == 0
	}
	return rule
}

func (g *schemaGen) rules(kind string, fields []string) []any {
	n := 0
	if g.r.IntN(2) == 0 {
		n = 1 + g.r.IntN(2)
	}
	var out []any
	for i := 0; i < n; i++ {
		out = append(out, g.rule(kind, fields))
	}
	return out
}

// schema returns a schema node and the kind its rules see.
func (g *schemaGen) schema(depth int) map[string]any {
	r := g.r
	k := r.IntN(12)
	if depth >= 3 && k >= 8 {
		k = r.IntN(8)
	}
	var s map[string]any
	kind := ""
	switch k {
	case 0, 1:
		s = map[string]any{"type": "string"}
		kind = "string"
		if r.IntN(3) == 0 {
			s["maxLength"] = int64(r.IntN(20))
		}
		if r.IntN(4) == 0 {
			f := pick(r, "date-time", "duration", "byte", "date")
			s["format"] = f
			kind = map[string]string{"date-time": "timestamp", "date": "timestamp", "duration": "duration", "byte": "bytes"}[f]
		}
	case 2:
		s = map[string]any{"type": "integer"}
		kind = "integer"
	case 3:
		s = map[string]any{"type": "number"}
		kind = "number"
	case 4:
		s = map[string]any{"type": "boolean"}
		kind = "boolean"
	case 5:
		s = map[string]any{"x-kubernetes-int-or-string": true}
		kind = "dyn"
	case 6, 7, 8:
		s, kind = g.object(depth)
	case 9, 10:
		s = map[string]any{"type": "array"}
		kind = "list"
		lt := pick(r, "", "atomic", "set", "map")
		var items map[string]any
		switch lt {
		case "set":
			items = map[string]any{"type": pick(r, "string", "integer")}
		case "map":
			items = map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
				"name":  map[string]any{"type": "string"},
				"value": g.schema(depth + 1),
			}}
			if rs := g.rules("object", []string{"name", "value"}); len(rs) > 0 {
				items["x-kubernetes-validations"] = rs
			}
			s["x-kubernetes-list-map-keys"] = []any{"name"}
		default:
			items = g.schema(depth + 1)
		}
		s["items"] = items
		if lt != "" {
			s["x-kubernetes-list-type"] = lt
		}
		if r.IntN(2) == 0 {
			s["maxItems"] = int64(r.IntN(10))
		}
	default:
		s = map[string]any{"type": "object", "additionalProperties": g.schema(depth + 1)}
		kind = "map"
		if r.IntN(3) == 0 {
			s["maxProperties"] = int64(r.IntN(5))
		}
	}
	if r.IntN(8) == 0 {
		s["nullable"] = true
	}
	if rs := g.rules(kind, objectFields(s)); len(rs) > 0 {
		s["x-kubernetes-validations"] = rs
	}
	return s
}

func objectFields(s map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	var out []string
	for k := range props {
		if k == "a" || k == "b" || k == "name" || k == "spec" || k == "size" {
			out = append(out, k)
		}
	}
	sortStrings(out)
	return out
}

func (g *schemaGen) object(depth int) (map[string]any, string) {
	r := g.r
	s := map[string]any{"type": "object"}
	props := map[string]any{}
	for i := 0; i < 1+r.IntN(4); i++ {
		props[pick(r, propNames...)] = g.schema(depth + 1)
	}
	s["properties"] = props
	if r.IntN(6) == 0 {
		s["x-kubernetes-embedded-resource"] = true
		s["x-kubernetes-preserve-unknown-fields"] = true
	}
	if r.IntN(8) == 0 {
		s["x-kubernetes-map-type"] = pick(r, "atomic", "granular")
	}
	if r.IntN(6) == 0 {
		// rules inside allOf apply to the same value
		if rs := g.rules("object", objectFields(s)); len(rs) > 0 {
			s["allOf"] = []any{map[string]any{"x-kubernetes-validations": rs}}
		} else {
			s["allOf"] = []any{map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": pick(r, "", " ", "true")}}}}
		}
	}
	if r.IntN(3) == 0 {
		var req []any
		for k := range props {
			if r.IntN(2) == 0 {
				req = append(req, k)
			}
		}
		sortAny(req)
		if len(req) > 0 {
			s["required"] = req
		}
	}
	return s, "object"
}

func sortAny(l []any) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].(string) < l[j-1].(string); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// value returns a value for schema s (mostly valid).
func (g *schemaGen) value(s map[string]any, depth int) any {
	r := g.r
	if r.IntN(30) == 0 {
		return pick[any](r, nil, "str", int64(3), true, []any{}, map[string]any{})
	}
	if s["x-kubernetes-int-or-string"] == true {
		if r.IntN(2) == 0 {
			return int64(r.IntN(10))
		}
		return pick(r, "a", "10%", "")
	}
	switch s["type"] {
	case "string":
		switch s["format"] {
		case "date-time":
			return pick(r, "2021-03-04T05:06:07Z", "2019-01-01T00:00:00.123+01:00", "bad", "")
		case "date":
			return pick(r, "2021-03-04", "1999-12-31", "x")
		case "duration":
			return pick(r, "1h", "5s", "3 days", "nope", "90m")
		case "byte":
			return pick(r, "YWJj", "YQ==", "!!", "")
		}
		return pick(r, "a", "ab", "abc", "", "Hello", "1Gi", "https://example.com/x", "x-y", "aaaaaaa")
	case "integer":
		return int64(r.IntN(20) - 5)
	case "number":
		return pick[any](r, 1.5, 0.0, -3.25, int64(4))
	case "boolean":
		return r.IntN(2) == 0
	case "array":
		items, _ := s["items"].(map[string]any)
		n := r.IntN(4)
		out := []any{}
		seen := map[any]bool{}
		for i := 0; i < n; i++ {
			v := g.value(items, depth+1)
			if s["x-kubernetes-list-type"] == "map" {
				if m, ok := v.(map[string]any); ok {
					m["name"] = pick(r, "a", "b", "c")
					if seen[m["name"]] {
						continue
					}
					seen[m["name"]] = true
				}
			}
			if s["x-kubernetes-list-type"] == "set" {
				k := fmt.Sprintf("%#v", v)
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			out = append(out, v)
		}
		return out
	case "object":
		out := map[string]any{}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for i := 0; i < r.IntN(4); i++ {
				out[pick(r, "a", "b", "x-y", "k")] = g.value(ap, depth+1)
			}
			return out
		}
		props, _ := s["properties"].(map[string]any)
		for k, ps := range props {
			if r.IntN(4) != 0 {
				out[k] = g.value(ps.(map[string]any), depth+1)
			}
		}
		if s["x-kubernetes-embedded-resource"] == true {
			out["apiVersion"] = "v1"
			out["kind"] = pick(r, "Pod", "Thing")
			out["metadata"] = map[string]any{"name": pick(r, "n1", "n2")}
		}
		return out
	}
	return pick[any](r, "x", int64(1))
}

// mutate returns a copy of v with random changes (often none).
func (g *schemaGen) mutate(v any) any {
	r := g.r
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if r.IntN(10) == 0 {
				continue
			}
			out[k] = g.mutate(e)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, g.mutate(e))
		}
		if len(out) > 1 && r.IntN(5) == 0 {
			out[0], out[1] = out[1], out[0]
		}
		return out
	case string:
		if r.IntN(6) == 0 {
			return x + "z"
		}
	case int64:
		if r.IntN(6) == 0 {
			return x + int64(r.IntN(5)) - 2
		}
	case bool:
		if r.IntN(6) == 0 {
			return !x
		}
	}
	return v
}

var _ = strconv.Itoa
