package schemacrd

import (
	"fmt"
	"math/rand"
	"sort"
)

// gen draws random OpenAPI schemas (as CRDs write them) and objects for them. Schemas are mostly
// structural, with a share of violations so that the structural-schema rules get exercised;
// objects mostly follow their schema, with wrong types, unknown fields, nulls, duplicates and
// boundary values mixed in.
type gen struct {
	r *rand.Rand
}

var propNames = []string{"a", "b", "c", "name", "port", "spec", "items", "x-y", "kind", "apiVersion", "metadata", "value"}

func (g *gen) chance(p float64) bool   { return g.r.Float64() < p }
func (g *gen) pick(l ...string) string { return l[g.r.Intn(len(l))] }

// rootSchema draws a root schema (type object at the root).
func (g *gen) rootSchema() map[string]any {
	s := g.objectSchema(0, true)
	if g.chance(0.03) {
		s["type"] = g.pick("", "array", "string")
	}
	if g.chance(0.03) {
		s["additionalProperties"] = map[string]any{"type": "string"}
	}
	if g.chance(0.05) {
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		md := map[string]any{"type": "object"}
		if g.chance(0.5) {
			md["properties"] = map[string]any{"name": map[string]any{"type": "string", "maxLength": int64(10)}}
		}
		props["metadata"] = md
	}
	return s
}

func (g *gen) schema(depth int) map[string]any {
	if depth > 4 {
		return g.scalarSchema()
	}
	switch g.r.Intn(10) {
	case 0, 1, 2:
		return g.objectSchema(depth, false)
	case 3, 4:
		return g.arraySchema(depth)
	case 5:
		s := map[string]any{"x-kubernetes-preserve-unknown-fields": true}
		if g.chance(0.5) {
			s["type"] = "object"
		}
		if g.chance(0.3) {
			s["properties"] = map[string]any{"a": g.scalarSchema()}
		}
		return s
	case 6:
		s := map[string]any{"x-kubernetes-int-or-string": true}
		if g.chance(0.3) {
			s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
		if g.chance(0.2) {
			s["pattern"] = "^[0-9]+%?$"
		}
		return s
	default:
		return g.scalarSchema()
	}
}

func (g *gen) objectSchema(depth int, root bool) map[string]any {
	s := map[string]any{"type": "object"}
	n := g.r.Intn(4)
	props := map[string]any{}
	for i := 0; i < n; i++ {
		k := propNames[g.r.Intn(len(propNames))]
		if !root && k == "metadata" && !g.chance(0.1) {
			continue
		}
		props[k] = g.schema(depth + 1)
	}
	if len(props) > 0 {
		s["properties"] = props
	}
	if !root && len(props) == 0 && g.chance(0.5) {
		if g.chance(0.85) {
			s["additionalProperties"] = g.schema(depth + 1)
		} else {
			s["additionalProperties"] = g.chance(0.5)
		}
	}
	if !root && g.chance(0.1) {
		s["x-kubernetes-embedded-resource"] = true
		if g.chance(0.5) {
			s["x-kubernetes-preserve-unknown-fields"] = true
		}
	}
	if !root && g.chance(0.1) {
		s["x-kubernetes-preserve-unknown-fields"] = true
	}
	if len(props) > 0 && g.chance(0.3) {
		keys := sortedKeys(props)
		s["required"] = []any{keys[g.r.Intn(len(keys))]}
	}
	if g.chance(0.1) {
		s["minProperties"] = int64(g.r.Intn(3))
	}
	if g.chance(0.1) {
		s["maxProperties"] = int64(g.r.Intn(3))
	}
	if !root && g.chance(0.1) {
		s["x-kubernetes-map-type"] = g.pick("atomic", "granular")
	}
	if !root && g.chance(0.1) {
		s["nullable"] = true
	}
	if !root && g.chance(0.1) {
		s["default"] = map[string]any{"a": "d", "zz": int64(1)}
	}
	g.valueValidations(s, props, depth)
	return s
}

func (g *gen) arraySchema(depth int) map[string]any {
	s := map[string]any{"type": "array"}
	if g.chance(0.95) {
		if g.chance(0.4) {
			item := map[string]any{"type": "object", "properties": map[string]any{
				"name": map[string]any{"type": "string"}, "port": map[string]any{"type": "integer"}, "value": g.schema(depth + 1)}}
			if g.chance(0.5) {
				item["required"] = []any{"name"}
			}
			s["items"] = item
			switch g.r.Intn(4) {
			case 0:
				s["x-kubernetes-list-type"] = "map"
				if g.chance(0.5) {
					s["x-kubernetes-list-map-keys"] = []any{"name"}
				} else {
					s["x-kubernetes-list-map-keys"] = []any{"name", "port"}
				}
			case 1:
				s["x-kubernetes-list-type"] = "atomic"
			}
		} else {
			s["items"] = g.schema(depth + 1)
			if g.chance(0.3) {
				s["x-kubernetes-list-type"] = "set"
			}
		}
	}
	if g.chance(0.15) {
		s["minItems"] = int64(g.r.Intn(3))
	}
	if g.chance(0.15) {
		s["maxItems"] = int64(g.r.Intn(4))
	}
	if g.chance(0.1) {
		s["uniqueItems"] = true
	}
	if g.chance(0.05) {
		s["nullable"] = true
	}
	return s
}

func (g *gen) scalarSchema() map[string]any {
	switch g.r.Intn(5) {
	case 0, 1:
		s := map[string]any{"type": "string"}
		if g.chance(0.2) {
			s["maxLength"] = int64(g.r.Intn(6))
		}
		if g.chance(0.2) {
			s["minLength"] = int64(g.r.Intn(4))
		}
		if g.chance(0.2) {
			s["pattern"] = g.pick("^[a-z]+$", "^a", "[0-9]", "^(foo|bar)$", "é")
		}
		if g.chance(0.25) {
			s["format"] = g.pick("uuid", "date-time", "datetime", "date", "ipv4", "ipv6", "cidr", "hostname", "email", "uri",
				"byte", "duration", "mac", "k8s-short-name", "k8s-long-name", "isbn", "hexcolor", "rgbcolor", "ssn",
				"creditcard", "bsonobjectid", "password", "int32", "unknownformat")
		}
		if g.chance(0.15) {
			s["enum"] = []any{"a", "b", "A"}
		}
		if g.chance(0.1) {
			s["default"] = g.pick("a", "def", "")
		}
		if g.chance(0.05) {
			s["nullable"] = true
		}
		return s
	case 2:
		s := map[string]any{"type": "integer"}
		g.numeric(s, true)
		return s
	case 3:
		s := map[string]any{"type": "number"}
		g.numeric(s, false)
		return s
	default:
		s := map[string]any{"type": "boolean"}
		if g.chance(0.1) {
			s["default"] = true
		}
		if g.chance(0.1) {
			s["enum"] = []any{true}
		}
		return s
	}
}

func (g *gen) num(intOnly bool) any {
	switch g.r.Intn(6) {
	case 0:
		return float64(g.r.Intn(20)) / 4
	case 1:
		return int64(g.r.Intn(10) - 2)
	case 2:
		return float64(1 << 31)
	case 3:
		return -1.5
	default:
		return int64(g.r.Intn(100))
	}
}

func (g *gen) numeric(s map[string]any, integer bool) {
	if g.chance(0.3) {
		if integer {
			s["format"] = g.pick("int32", "int64", "uint32", "float", "")
		} else {
			s["format"] = g.pick("float", "double", "int32", "")
		}
	}
	if g.chance(0.25) {
		s["minimum"] = g.num(integer)
		if g.chance(0.3) {
			s["exclusiveMinimum"] = true
		}
	}
	if g.chance(0.25) {
		s["maximum"] = g.num(integer)
		if g.chance(0.3) {
			s["exclusiveMaximum"] = true
		}
	}
	if g.chance(0.2) {
		s["multipleOf"] = g.pick2(int64(2), int64(3), 0.5, 1.5, 0.1, int64(10))
	}
	if g.chance(0.1) {
		s["enum"] = []any{int64(1), int64(2), 2.5, "A"}
	}
	if g.chance(0.1) {
		s["default"] = int64(7)
	}
	if g.chance(0.05) {
		s["nullable"] = true
	}
}

func (g *gen) pick2(l ...any) any { return l[g.r.Intn(len(l))] }

// valueValidations adds allOf/anyOf/oneOf/not clauses, mostly structural ones.
func (g *gen) valueValidations(s map[string]any, props map[string]any, depth int) {
	keys := sortedKeys(props)
	clause := func() map[string]any {
		c := map[string]any{}
		switch g.r.Intn(6) {
		case 0:
			if len(keys) > 0 {
				c["required"] = []any{keys[g.r.Intn(len(keys))]}
			} else {
				c["minProperties"] = int64(1)
			}
		case 1:
			if len(keys) > 0 {
				k := keys[g.r.Intn(len(keys))]
				c["properties"] = map[string]any{k: map[string]any{"minLength": int64(2)}}
			}
		case 2:
			c["maxProperties"] = int64(g.r.Intn(3))
		case 3:
			// not structural: types and descriptions inside value validations
			c["type"] = "object"
			if g.chance(0.5) {
				c["description"] = "x"
			}
		case 4:
			c["properties"] = map[string]any{"undeclared": map[string]any{"maxLength": int64(1)}}
		default:
			if len(keys) > 0 {
				c["required"] = []any{keys[0], keys[len(keys)-1]}
			}
		}
		return c
	}
	if g.chance(0.12) {
		s["anyOf"] = []any{clause(), clause()}
	}
	if g.chance(0.1) {
		s["oneOf"] = []any{clause(), clause()}
	}
	if g.chance(0.1) {
		s["allOf"] = []any{clause(), clause()}
	}
	if g.chance(0.06) {
		s["not"] = clause()
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// value draws a value for schema s (nil schema: anything).
func (g *gen) value(s map[string]any, depth int) any {
	if g.chance(0.04) {
		return nil
	}
	if g.chance(0.05) || s == nil {
		return g.anyValue(depth)
	}
	if d, ok := s["default"]; ok && g.chance(0.1) {
		return d
	}
	if e, ok := s["enum"].([]any); ok && g.chance(0.6) {
		return e[g.r.Intn(len(e))]
	}
	t, _ := s["type"].(string)
	if s["x-kubernetes-int-or-string"] == true {
		if g.chance(0.5) {
			return int64(g.r.Intn(100))
		}
		return g.pick("50%", "abc", "10")
	}
	switch t {
	case "object":
		m := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for _, k := range sortedKeys(props) {
			if g.chance(0.75) {
				m[k] = g.value(props[k].(map[string]any), depth+1)
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for i := 0; i < g.r.Intn(3); i++ {
				m[g.pick("k1", "k2", "kind", "a.b")] = g.value(ap, depth+1)
			}
		}
		if g.chance(0.15) {
			m[g.pick("unknown", "extra", "apiVersion", "kind", "metadata")] = g.anyValue(depth + 1)
		}
		if s["x-kubernetes-embedded-resource"] == true && g.chance(0.8) {
			m["apiVersion"] = g.pick2("v1", "apps/v1", "a/b/c", int64(1), "")
			m["kind"] = g.pick2("Pod", "my-kind", "", "Bad_Kind", true)
			if g.chance(0.8) {
				m["metadata"] = g.metadata()
			}
		}
		return m
	case "array":
		items, _ := s["items"].(map[string]any)
		n := g.r.Intn(4)
		l := make([]any, 0, n)
		for i := 0; i < n; i++ {
			if len(l) > 0 && g.chance(0.2) {
				l = append(l, deepCopy(l[g.r.Intn(len(l))]))
				continue
			}
			l = append(l, g.value(items, depth+1))
		}
		return l
	case "string":
		if f, ok := s["format"].(string); ok && g.chance(0.7) {
			return g.formatted(f)
		}
		return g.pick("", "a", "abc", "hello-world", "é", "foo", "bar", "12", "ABC")
	case "integer":
		return g.pick2(int64(0), int64(1), int64(-3), int64(7), int64(2147483648), 2.0, 2.5, int64(9007199254740993))
	case "number":
		return g.pick2(int64(1), 0.5, 1.5, -2.25, 3.4e39, 10.0)
	case "boolean":
		return g.chance(0.5)
	}
	return g.anyValue(depth)
}

func (g *gen) metadata() any {
	if g.chance(0.05) {
		return "not-an-object"
	}
	m := map[string]any{}
	if g.chance(0.7) {
		m["name"] = g.pick2("n1", "Bad_Name", "", "a/b", "..", int64(5))
	}
	if g.chance(0.2) {
		m["namespace"] = g.pick("default", "Bad NS")
	}
	if g.chance(0.2) {
		m["labels"] = map[string]any{g.pick("app", "bad key/x/y", "example.com/x"): g.pick2("v", "bad value!", int64(1))}
	}
	if g.chance(0.1) {
		m["unknownMeta"] = "x"
	}
	if g.chance(0.1) {
		m["generation"] = g.pick2(int64(3), 1.5, "x")
	}
	if g.chance(0.1) {
		m["creationTimestamp"] = g.pick2("2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123+02:00", "bad", nil)
	}
	if g.chance(0.1) {
		m["finalizers"] = []any{g.pick("a/b", "bad finalizer")}
	}
	if g.chance(0.1) {
		m["managedFields"] = []any{map[string]any{"manager": g.pick("kubectl", "bad\x01manager", ""), "operation": g.pick("Apply", "Update", "Patch", ""),
			"fieldsType": g.pick("FieldsV1", "FieldsV2"), "fieldsV1": map[string]any{"f:spec": map[string]any{}}, "time": "2024-01-01T00:00:00Z"}}
	}
	return m
}

func (g *gen) formatted(f string) string {
	good := map[string][]string{
		"uuid":      {"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"},
		"date-time": {"2024-01-02T03:04:05Z", "2024-01-02t03:04:05.5+01:00"}, "datetime": {"2024-01-02T03:04:05Z"},
		"date": {"2024-02-29", "2023-02-29"}, "ipv4": {"1.2.3.4", "010.1.1.1", "::ffff:1.2.3.4"},
		"ipv6": {"::1", "fe80::1%eth0"}, "cidr": {"10.0.0.0/8", "::/0", "1.2.3.4/33", "010.0.0.0/08"},
		"hostname": {"example.com", "-bad-", "a_b"}, "email": {"a@b.c", "Foo <a@b.c>"},
		"uri": {"http://x/y", "/path", "rel"}, "byte": {"YWJj", "YWJ", "===="}, "duration": {"1h", "3 days", "5x"},
		"mac": {"00:11:22:33:44:55", "0011.2233.4455"}, "k8s-short-name": {"abc", "a.b"}, "k8s-long-name": {"a.b", "A"},
		"isbn": {"0306406152", "9780306406157", "123"}, "hexcolor": {"#fff", "ggg"}, "rgbcolor": {"rgb(1,2,3)", "rgb(256,0,0)"},
		"ssn": {"123-45-6789", "123456789"}, "creditcard": {"4111 1111 1111 1111", "4111"}, "bsonobjectid": {"507f1f77bcf86cd799439011", "xyz"},
	}
	if l, ok := good[f]; ok {
		return l[g.r.Intn(len(l))]
	}
	return g.pick("x", "")
}

func (g *gen) anyValue(depth int) any {
	if depth > 5 {
		return "leaf"
	}
	switch g.r.Intn(7) {
	case 0:
		return nil
	case 1:
		return g.chance(0.5)
	case 2:
		return int64(g.r.Intn(10))
	case 3:
		return 1.5
	case 4:
		return g.pick("s", "")
	case 5:
		return []any{g.anyValue(depth + 1)}
	default:
		return map[string]any{g.pick("a", "b", "metadata"): g.anyValue(depth + 1)}
	}
}

// mutate returns a changed copy of v (for ratcheting: the old object).
func (g *gen) mutate(v any, s map[string]any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		c := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for _, k := range sortedKeys(x) {
			e := x[k]
			if g.chance(0.1) {
				continue
			}
			var ps map[string]any
			if props != nil {
				ps, _ = props[k].(map[string]any)
			}
			if ps == nil {
				ps, _ = s["additionalProperties"].(map[string]any)
			}
			if g.chance(0.7) {
				c[k] = deepCopy(e)
			} else {
				c[k] = g.mutate(e, ps, depth+1)
			}
		}
		return c
	case []any:
		items, _ := s["items"].(map[string]any)
		c := make([]any, 0, len(x))
		for _, e := range x {
			if g.chance(0.8) {
				c = append(c, deepCopy(e))
			} else {
				c = append(c, g.mutate(e, items, depth+1))
			}
		}
		if g.chance(0.2) && len(c) > 1 {
			c[0], c[1] = c[1], c[0]
		}
		return c
	}
	if g.chance(0.5) {
		return g.value(s, depth)
	}
	return v
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

func (g *gen) object(s map[string]any) map[string]any {
	obj, ok := g.value(s, 0).(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	if g.chance(0.9) {
		obj["apiVersion"] = "example.com/v1"
		obj["kind"] = "Widget"
		obj["metadata"] = g.metadata()
	}
	return obj
}

var _ = fmt.Sprint
