package cluster

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf form of /openapi/v2 (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf,
// as kubectl asks): the openapi.v2.Document message of github.com/google/gnostic-models
// (openapiv2/OpenAPIv2.proto), which kube-openapi produces by parsing the JSON document with
// gnostic and marshalling the result. encodeOpenAPIV2 does the same walk over the decoded JSON:
// every property the OpenAPI 2.0 schema names becomes its field (in field-number order), every
// "x-" property a NamedAny, and default, enum, example and vendor-extension values are Any
// messages holding the value as YAML. Properties that OpenAPI 2.0 does not define are left out
// (gnostic refuses the document; the apiserver never serves one).

// pbField says how one JSON property is encoded: its field number and how its value is written.
type pbField struct {
	num   protowire.Number
	write func(b []byte, num protowire.Number, v any) []byte
}

// pbMessage is a message type: its fields by JSON property, and the field of its "x-" vendor
// extensions (0 for none).
type pbMessage struct {
	fields map[string]pbField
	ext    protowire.Number
	// body, when set, encodes the message instead (maps with patterned keys: Paths, Responses,
	// SecurityRequirement).
	body func(map[string]any) []byte
}

func (m *pbMessage) encode(v any) []byte {
	obj, _ := v.(map[string]any)
	if m.body != nil {
		return m.body(obj)
	}
	type kv struct {
		f pbField
		k string
	}
	var fs []kv
	for k := range obj {
		if f, ok := m.fields[k]; ok {
			fs = append(fs, kv{f, k})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].f.num < fs[j].f.num })
	var b []byte
	for _, f := range fs {
		b = f.f.write(b, f.f.num, obj[f.k])
	}
	if m.ext != 0 {
		b = pbWriteExtensions(b, m.ext, obj)
	}
	return b
}

func pbString(b []byte, num protowire.Number, v any) []byte {
	s, ok := v.(string)
	if !ok || s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func pbBool(b []byte, num protowire.Number, v any) []byte {
	if t, ok := v.(bool); ok && t {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, 1)
	}
	return b
}

func pbNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func pbDouble(b []byte, num protowire.Number, v any) []byte {
	f, ok := pbNumber(v)
	if !ok || f == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(f))
}

func pbInt64(b []byte, num protowire.Number, v any) []byte {
	var n int64
	switch t := v.(type) {
	case int64:
		n = t
	case float64:
		if t != math.Trunc(t) || math.Abs(t) > 1<<62 {
			return b
		}
		n = int64(t)
	default:
		return b
	}
	if n == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(n))
}

func pbStrings(b []byte, num protowire.Number, v any) []byte {
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(string); ok {
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
	}
	return b
}

func pbEmbed(b []byte, num protowire.Number, body []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, body)
}

// pbMsg writes a value as one message of type m; pbMsgs writes each element of a list.
func pbMsg(m func() *pbMessage) func([]byte, protowire.Number, any) []byte {
	return func(b []byte, num protowire.Number, v any) []byte {
		if _, ok := v.(map[string]any); !ok {
			return b
		}
		return pbEmbed(b, num, m().encode(v))
	}
}

func pbMsgs(m func() *pbMessage) func([]byte, protowire.Number, any) []byte {
	return func(b []byte, num protowire.Number, v any) []byte {
		l, _ := v.([]any)
		for _, e := range l {
			if _, ok := e.(map[string]any); ok {
				b = pbEmbed(b, num, m().encode(e))
			}
		}
		return b
	}
}

// pbNamed writes an object's properties (in name order) as repeated Named* messages: name = 1,
// value = 2 written by value.
func pbNamed(value func([]byte, protowire.Number, any) []byte) func([]byte, protowire.Number, any) []byte {
	return func(b []byte, num protowire.Number, v any) []byte {
		obj, _ := v.(map[string]any)
		for _, k := range propertyNames(obj) {
			entry := pbString(nil, 1, k)
			entry = value(entry, 2, obj[k])
			b = pbEmbed(b, num, entry)
		}
		return b
	}
}

// pbNamedIn is pbNamed over a message whose repeated Named* field is field 1 (Definitions,
// Properties, ParameterDefinitions, ...).
func pbNamedIn(value func([]byte, protowire.Number, any) []byte) func([]byte, protowire.Number, any) []byte {
	named := pbNamed(value)
	return func(b []byte, num protowire.Number, v any) []byte {
		if _, ok := v.(map[string]any); !ok {
			return b
		}
		return pbEmbed(b, num, named(nil, 1, v))
	}
}

// pbAny writes an Any message holding v as YAML (field yaml = 2).
func pbAny(b []byte, num protowire.Number, v any) []byte {
	return pbEmbed(b, num, pbString(nil, 2, openAPIYAML(v)))
}

func pbAnys(b []byte, num protowire.Number, v any) []byte {
	l, _ := v.([]any)
	for _, e := range l {
		b = pbAny(b, num, e)
	}
	return b
}

func pbWriteExtensions(b []byte, num protowire.Number, obj map[string]any) []byte {
	for _, k := range propertyNames(obj) {
		if strings.HasPrefix(k, "x-") {
			entry := pbString(nil, 1, k)
			entry = pbAny(entry, 2, obj[k])
			b = pbEmbed(b, num, entry)
		}
	}
	return b
}

func propertyNames(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fields(kv ...any) map[string]pbField {
	m := make(map[string]pbField, len(kv)/3)
	for i := 0; i+2 < len(kv); i += 3 {
		m[kv[i].(string)] = pbField{num: protowire.Number(kv[i+1].(int)), write: kv[i+2].(func([]byte, protowire.Number, any) []byte)}
	}
	return m
}

type pbWriter = func([]byte, protowire.Number, any) []byte

var (
	wString  pbWriter = pbString
	wBool    pbWriter = pbBool
	wDouble  pbWriter = pbDouble
	wInt64   pbWriter = pbInt64
	wStrings pbWriter = pbStrings
	wAny     pbWriter = pbAny
	wAnys    pbWriter = pbAnys
)

// The messages of OpenAPIv2.proto that the apiserver's documents use, built once.
var openAPIV2Types = sync.OnceValue(func() map[string]*pbMessage {
	t := map[string]*pbMessage{}
	with := func(f func(map[string]*pbMessage, []byte, protowire.Number, any) []byte) pbWriter {
		return func(b []byte, num protowire.Number, v any) []byte { return f(t, b, num, v) }
	}
	get := func(name string) func() *pbMessage { return func() *pbMessage { return t[name] } }
	t["Document"] = &pbMessage{ext: 16, fields: fields(
		"swagger", 1, wString, "info", 2, pbMsg(get("Info")), "host", 3, wString, "basePath", 4, wString,
		"schemes", 5, wStrings, "consumes", 6, wStrings, "produces", 7, wStrings,
		"paths", 8, pbMsg(get("Paths")), "definitions", 9, pbNamedIn(pbMsg(get("Schema"))),
		"parameters", 10, pbNamedIn(with(pbParameter)), "responses", 11, pbNamedIn(pbMsg(get("Response"))),
		"security", 12, pbMsgs(get("SecurityRequirement")), "securityDefinitions", 13, pbNamedIn(with(pbSecurityDefinition)),
		"tags", 14, pbMsgs(get("Tag")), "externalDocs", 15, pbMsg(get("ExternalDocs")))}
	t["Info"] = &pbMessage{ext: 7, fields: fields("title", 1, wString, "version", 2, wString, "description", 3, wString,
		"termsOfService", 4, wString, "contact", 5, pbMsg(get("Contact")), "license", 6, pbMsg(get("License")))}
	t["Contact"] = &pbMessage{ext: 4, fields: fields("name", 1, wString, "url", 2, wString, "email", 3, wString)}
	t["License"] = &pbMessage{ext: 3, fields: fields("name", 1, wString, "url", 2, wString)}
	t["ExternalDocs"] = &pbMessage{ext: 3, fields: fields("description", 1, wString, "url", 2, wString)}
	t["Tag"] = &pbMessage{ext: 4, fields: fields("name", 1, wString, "description", 2, wString, "externalDocs", 3, pbMsg(get("ExternalDocs")))}
	t["SecurityRequirement"] = &pbMessage{body: pbSecurityRequirementBody}
	t["Paths"] = &pbMessage{body: func(obj map[string]any) []byte { return pbPathsBody(t, obj) }}
	t["PathItem"] = &pbMessage{ext: 10, fields: fields("$ref", 1, wString, "get", 2, pbMsg(get("Operation")),
		"put", 3, pbMsg(get("Operation")), "post", 4, pbMsg(get("Operation")), "delete", 5, pbMsg(get("Operation")),
		"options", 6, pbMsg(get("Operation")), "head", 7, pbMsg(get("Operation")), "patch", 8, pbMsg(get("Operation")),
		"parameters", 9, with(pbParametersItems))}
	t["Operation"] = &pbMessage{ext: 13, fields: fields("tags", 1, wStrings, "summary", 2, wString, "description", 3, wString,
		"externalDocs", 4, pbMsg(get("ExternalDocs")), "operationId", 5, wString, "produces", 6, wStrings, "consumes", 7, wStrings,
		"parameters", 8, with(pbParametersItems), "responses", 9, pbMsg(get("Responses")), "schemes", 10, wStrings,
		"deprecated", 11, wBool, "security", 12, pbMsgs(get("SecurityRequirement")))}
	t["Responses"] = &pbMessage{body: func(obj map[string]any) []byte { return pbResponsesBody(t, obj) }}
	t["Response"] = &pbMessage{ext: 5, fields: fields("description", 1, wString, "schema", 2, with(pbSchemaItem),
		"headers", 3, pbNamedIn(pbMsg(get("Header"))), "examples", 4, pbWriter(pbExamples))}
	t["JsonReference"] = &pbMessage{fields: fields("$ref", 1, wString, "description", 2, wString)}
	t["BodyParameter"] = &pbMessage{ext: 6, fields: fields("description", 1, wString, "name", 2, wString, "in", 3, wString,
		"required", 4, wBool, "schema", 5, pbMsg(get("Schema")))}
	// The four non-body parameter sub-schemas: the same properties, numbered in each one's order.
	sub := func(order ...string) *pbMessage {
		w := map[string]pbWriter{"required": wBool, "in": wString, "description": wString, "name": wString,
			"allowEmptyValue": wBool, "type": wString, "format": wString, "items": pbMsg(get("PrimitivesItems")),
			"collectionFormat": wString, "default": wAny, "maximum": wDouble, "exclusiveMaximum": wBool,
			"minimum": wDouble, "exclusiveMinimum": wBool, "maxLength": wInt64, "minLength": wInt64,
			"pattern": wString, "maxItems": wInt64, "minItems": wInt64, "uniqueItems": wBool, "enum": wAnys,
			"multipleOf": wDouble}
		m := &pbMessage{fields: map[string]pbField{}}
		for i, k := range order {
			if k == "x-" {
				m.ext = protowire.Number(i + 1)
				continue
			}
			m.fields[k] = pbField{num: protowire.Number(i + 1), write: w[k]}
		}
		return m
	}
	common := []string{"type", "format", "items", "collectionFormat", "default", "maximum", "exclusiveMaximum", "minimum",
		"exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf"}
	withEmpty := append([]string{"required", "in", "description", "name", "allowEmptyValue"}, common...)
	withoutEmpty := append([]string{"required", "in", "description", "name"}, common...)
	t["QueryParameterSubSchema"] = sub(append(withEmpty, "x-")...)
	t["FormDataParameterSubSchema"] = sub(append(withEmpty, "x-")...)
	t["HeaderParameterSubSchema"] = sub(append(withoutEmpty, "x-")...)
	t["PathParameterSubSchema"] = sub(append(withoutEmpty, "x-")...)
	t["PrimitivesItems"] = sub(append(append([]string(nil), common...), "x-")...)
	t["PrimitivesItems"].fields["items"] = pbField{num: 3, write: pbMsg(get("PrimitivesItems"))}
	t["Header"] = sub(append(append([]string(nil), common...), "description", "x-")...)
	t["Schema"] = &pbMessage{ext: 31, fields: fields("$ref", 1, wString, "format", 2, wString, "title", 3, wString,
		"description", 4, wString, "default", 5, wAny, "multipleOf", 6, wDouble, "maximum", 7, wDouble,
		"exclusiveMaximum", 8, wBool, "minimum", 9, wDouble, "exclusiveMinimum", 10, wBool, "maxLength", 11, wInt64,
		"minLength", 12, wInt64, "pattern", 13, wString, "maxItems", 14, wInt64, "minItems", 15, wInt64,
		"uniqueItems", 16, wBool, "maxProperties", 17, wInt64, "minProperties", 18, wInt64, "required", 19, wStrings,
		"enum", 20, wAnys, "additionalProperties", 21, with(pbAdditionalProperties), "type", 22, pbWriter(pbTypeItem),
		"items", 23, with(pbItemsItem), "allOf", 24, pbMsgs(get("Schema")), "properties", 25, pbNamedIn(pbMsg(get("Schema"))),
		"discriminator", 26, wString, "readOnly", 27, wBool, "xml", 28, pbMsg(get("Xml")),
		"externalDocs", 29, pbMsg(get("ExternalDocs")), "example", 30, wAny)}
	t["FileSchema"] = &pbMessage{ext: 10, fields: fields("format", 1, wString, "title", 2, wString, "description", 3, wString,
		"default", 4, wAny, "required", 5, wStrings, "type", 6, wString, "readOnly", 7, wBool,
		"externalDocs", 8, pbMsg(get("ExternalDocs")), "example", 9, wAny)}
	t["Xml"] = &pbMessage{ext: 6, fields: fields("name", 1, wString, "namespace", 2, wString, "prefix", 3, wString,
		"attribute", 4, wBool, "wrapped", 5, wBool)}
	t["ApiKeySecurity"] = &pbMessage{ext: 5, fields: fields("type", 1, wString, "name", 2, wString, "in", 3, wString, "description", 4, wString)}
	t["BasicAuthenticationSecurity"] = &pbMessage{ext: 3, fields: fields("type", 1, wString, "description", 2, wString)}
	return t
})

var responseCode = regexp.MustCompile(`^([0-9]{3})$|^(default)$`)

// encodeOpenAPIV2 encodes a decoded OpenAPI 2.0 document as gnostic's openapi.v2.Document.
func encodeOpenAPIV2(doc map[string]any) []byte {
	return openAPIV2Types()["Document"].encode(doc)
}

// pbPathsBody writes Paths: vendor extensions (1) and one NamedPathItem (2) per "/" key.
func pbPathsBody(t map[string]*pbMessage, obj map[string]any) []byte {
	b := pbWriteExtensions(nil, 1, obj)
	for _, k := range propertyNames(obj) {
		if strings.HasPrefix(k, "/") {
			entry := pbString(nil, 1, k)
			entry = pbMsg(func() *pbMessage { return t["PathItem"] })(entry, 2, obj[k])
			b = pbEmbed(b, 2, entry)
		}
	}
	return b
}

func pbResponsesBody(t map[string]*pbMessage, obj map[string]any) []byte {
	var b []byte
	for _, k := range propertyNames(obj) {
		if !responseCode.MatchString(k) {
			continue
		}
		v, ok := obj[k].(map[string]any)
		if !ok {
			continue
		}
		entry := pbString(nil, 1, k)
		var rv []byte
		if _, ref := v["$ref"]; ref {
			rv = pbEmbed(nil, 2, t["JsonReference"].encode(v))
		} else {
			rv = pbEmbed(nil, 1, t["Response"].encode(v))
		}
		entry = pbEmbed(entry, 2, rv)
		b = pbEmbed(b, 1, entry)
	}
	return pbWriteExtensions(b, 2, obj)
}

func pbSecurityRequirementBody(obj map[string]any) []byte {
	var b []byte
	for _, k := range propertyNames(obj) {
		entry := pbString(nil, 1, k)
		entry = pbEmbed(entry, 2, pbStrings(nil, 1, obj[k]))
		b = pbEmbed(b, 1, entry)
	}
	return b
}

// pbParameter writes a Parameter: a BodyParameter (1) when in is "body", else a
// NonBodyParameter (2) holding the sub-schema of its location.
func pbParameter(t map[string]*pbMessage, b []byte, num protowire.Number, v any) []byte {
	obj, ok := v.(map[string]any)
	if !ok {
		return b
	}
	var p []byte
	in, _ := obj["in"].(string)
	switch in {
	case "body":
		p = pbEmbed(nil, 1, t["BodyParameter"].encode(obj))
	case "header", "formData", "query", "path":
		n, name := map[string]protowire.Number{"header": 1, "formData": 2, "query": 3, "path": 4}[in],
			map[string]string{"header": "HeaderParameterSubSchema", "formData": "FormDataParameterSubSchema",
				"query": "QueryParameterSubSchema", "path": "PathParameterSubSchema"}[in]
		p = pbEmbed(nil, 2, pbEmbed(nil, n, t[name].encode(obj)))
	default:
		return b
	}
	return pbEmbed(b, num, p)
}

// pbParametersItems writes each element of a parameters list as a ParametersItem: a
// JsonReference (2) for a $ref, else a Parameter (1).
func pbParametersItems(t map[string]*pbMessage, b []byte, num protowire.Number, v any) []byte {
	l, _ := v.([]any)
	for _, e := range l {
		obj, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if _, ref := obj["$ref"]; ref {
			b = pbEmbed(b, num, pbEmbed(nil, 2, t["JsonReference"].encode(obj)))
			continue
		}
		if p := pbParameter(t, nil, 1, obj); len(p) > 0 {
			b = pbEmbed(b, num, p)
		}
	}
	return b
}

func pbSecurityDefinition(t map[string]*pbMessage, b []byte, num protowire.Number, v any) []byte {
	obj, ok := v.(map[string]any)
	if !ok {
		return b
	}
	var item []byte
	switch obj["type"] {
	case "basic":
		item = pbEmbed(nil, 1, t["BasicAuthenticationSecurity"].encode(obj))
	case "apiKey":
		item = pbEmbed(nil, 2, t["ApiKeySecurity"].encode(obj))
	default:
		return b // OAuth2 flows: the apiserver defines none
	}
	return pbEmbed(b, num, item)
}

// pbSchemaItem writes a response schema: a FileSchema (2) for type "file", else a Schema (1).
func pbSchemaItem(t map[string]*pbMessage, b []byte, num protowire.Number, v any) []byte {
	obj, ok := v.(map[string]any)
	if !ok {
		return b
	}
	if obj["type"] == "file" {
		return pbEmbed(b, num, pbEmbed(nil, 2, t["FileSchema"].encode(obj)))
	}
	return pbEmbed(b, num, pbEmbed(nil, 1, t["Schema"].encode(obj)))
}

func pbExamples(b []byte, num protowire.Number, v any) []byte {
	obj, ok := v.(map[string]any)
	if !ok {
		return b
	}
	var body []byte
	for _, k := range propertyNames(obj) {
		entry := pbString(nil, 1, k)
		entry = pbAny(entry, 2, obj[k])
		body = pbEmbed(body, 1, entry)
	}
	return pbEmbed(b, num, body)
}

func pbAdditionalProperties(t map[string]*pbMessage, b []byte, num protowire.Number, v any) []byte {
	switch x := v.(type) {
	case bool:
		item := protowire.AppendTag(nil, 2, protowire.VarintType)
		item = protowire.AppendVarint(item, protowire.EncodeBool(x))
		return pbEmbed(b, num, item)
	case map[string]any:
		return pbEmbed(b, num, pbEmbed(nil, 1, t["Schema"].encode(x)))
	}
	return b
}

func pbTypeItem(b []byte, num protowire.Number, v any) []byte {
	switch t := v.(type) {
	case string:
		return pbEmbed(b, num, pbString(nil, 1, t))
	case []any:
		return pbEmbed(b, num, pbStrings(nil, 1, t))
	}
	return b
}

func pbItemsItem(t map[string]*pbMessage, b []byte, num protowire.Number, v any) []byte {
	switch x := v.(type) {
	case map[string]any:
		return pbEmbed(b, num, pbEmbed(nil, 1, t["Schema"].encode(x)))
	case []any:
		var body []byte
		for _, e := range x {
			if _, ok := e.(map[string]any); ok {
				body = pbEmbed(body, 1, t["Schema"].encode(e))
			}
		}
		return pbEmbed(b, num, body)
	}
	return b
}

// openAPIYAML writes v as YAML in block style, as gnostic writes the values it keeps as Any
// (yaml.v3, map keys in order): readers unmarshal it back into the same value.
func openAPIYAML(v any) string {
	var sb strings.Builder
	writeYAML(&sb, v, 0, false)
	return sb.String()
}

func writeYAML(sb *strings.Builder, v any, indent int, inSeq bool) {
	pad := strings.Repeat(" ", indent)
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			sb.WriteString("{}\n")
			return
		}
		for i, k := range propertyNames(t) {
			if i > 0 || !inSeq {
				sb.WriteString(pad)
			}
			sb.WriteString(yamlScalar(k))
			sb.WriteString(":")
			writeYAMLValue(sb, t[k], indent)
		}
	case []any:
		if len(t) == 0 {
			sb.WriteString("[]\n")
			return
		}
		for i, e := range t {
			if i > 0 || !inSeq {
				sb.WriteString(pad)
			}
			sb.WriteString("- ")
			switch e.(type) {
			case map[string]any, []any:
				if isEmptyCollection(e) {
					writeYAML(sb, e, 0, false)
				} else {
					writeYAML(sb, e, indent+2, true)
				}
			default:
				sb.WriteString(yamlScalar(e))
				sb.WriteString("\n")
			}
		}
	default:
		sb.WriteString(yamlScalar(v))
		sb.WriteString("\n")
	}
}

func writeYAMLValue(sb *strings.Builder, v any, indent int) {
	switch v.(type) {
	case map[string]any, []any:
		if isEmptyCollection(v) {
			sb.WriteString(" ")
			writeYAML(sb, v, 0, false)
			return
		}
		sb.WriteString("\n")
		writeYAML(sb, v, indent+4, false)
	default:
		sb.WriteString(" ")
		sb.WriteString(yamlScalar(v))
		sb.WriteString("\n")
	}
}

func isEmptyCollection(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

var yamlPlain = regexp.MustCompile(`^[A-Za-z_/][A-Za-z0-9_./-]*$`)

// yamlScalar writes a scalar: plain when YAML reads it back as the same string, else quoted.
func yamlScalar(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case string:
		switch strings.ToLower(t) {
		case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~":
			return strconv.Quote(t)
		}
		if yamlPlain.MatchString(t) {
			return t
		}
		return strconv.Quote(t)
	}
	return "null"
}
