package schema

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/codec"
)

// Props is an OpenAPI v3 schema as written in a CustomResourceDefinition (apiextensions.k8s.io/v1
// JSONSchemaProps), kept field for field so that every rule of the apiserver that looks at the
// written schema (not the structural one) can be applied: the value validator, the CRD schema
// checks, and structural-schema construction. Props values are read-only once parsed.
type Props struct {
	ID          string
	Schema      string
	Ref         *string
	Description string
	Type        string
	Title       string
	// Default and Example hold the decoded JSON value; HasDefault tells `default: null` from no
	// default (the apiserver treats both as "no default" in structural schemas).
	Default    any
	HasDefault bool
	Example    any
	HasExample bool
	// ValueKeywords are format, the bounds, pattern, enum and required: the same declaration
	// as a structural schema's ValueValidation holds.
	ValueKeywords
	// Items is the `items` schema; ItemsArray is set instead when `items` is a JSON array.
	Items      *Props
	ItemsArray []Props
	AllOf      []Props
	OneOf      []Props
	AnyOf      []Props
	Not        *Props
	Properties map[string]*Props
	// AdditionalProperties is set when `additionalProperties` is present: Allows is false only for
	// `additionalProperties: false`.
	AdditionalProperties *PropsOrBool
	PatternProperties    map[string]*Props
	Dependencies         map[string]any
	AdditionalItems      *PropsOrBool
	Definitions          map[string]*Props
	ExternalDocs         *ExternalDocs
	Nullable             bool

	XPreserveUnknownFields *bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListMapKeys           []string
	XListType              *string
	XMapType               *string
	// XValidations holds the x-kubernetes-validations rules exactly as written (CEL is evaluated
	// elsewhere).
	XValidations []any

	// propertyOrder lists the property names sorted, for deterministic walks.
	propertyOrder []string
}

// ValueKeywords are the value validations of one schema node that name no other schema
// (apiextensions' ValueValidation without allOf, oneOf, anyOf and not), declared once: Props holds
// them as written, a structural schema's ValueValidation as NewStructural copies them.
type ValueKeywords struct {
	Format           string
	Maximum          *float64
	ExclusiveMaximum bool
	Minimum          *float64
	ExclusiveMinimum bool
	MaxLength        *int64
	MinLength        *int64
	Pattern          string
	MaxItems         *int64
	MinItems         *int64
	UniqueItems      bool
	MultipleOf       *float64
	Enum             []any
	MaxProperties    *int64
	MinProperties    *int64
	Required         []string
}

// PropsOrBool is `additionalProperties` / `additionalItems`: a schema or a boolean.
type PropsOrBool struct {
	Allows bool
	Schema *Props
}

// ExternalDocs is the externalDocs stanza of a schema.
type ExternalDocs struct {
	Description string
	URL         string
}

// PropertyNames returns the names of p.Properties in sorted order.
func (p *Props) PropertyNames() []string { return p.propertyOrder }

// maxSchemaDepth bounds the nesting of a schema so that values built in code cannot exhaust the
// stack. kube-apiserver has no bound of its own: what bounds a CRD there is its decoder, which
// stops at 10000 nested JSON values (codec.DefaultMaxDepth), and the 3 MiB body. A schema level
// is at least one JSON level, so no CRD that decodes is refused or cut off here.
const maxSchemaDepth = 10000

// decodeError is a CRD that does not decode into the API types: the apiserver rejects it with
// 400 BadRequest before any validation runs.
type decodeError struct {
	path string
	msg  string
}

func (e *decodeError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

// StatusCode is 400: the object does not decode.
func (e *decodeError) StatusCode() int { return 400 }

func wrongType(path, want string, v any) error {
	return &decodeError{path: path, msg: fmt.Sprintf("cannot unmarshal %s into %s", codec.JSONKind(v), want)}
}

// ParseProps decodes a JSON schema value (as decoded by the codec: map[string]any with int64 and
// float64 numbers) into Props. path names the value in error messages.
func ParseProps(v any, path string) (*Props, error) {
	return parseProps(v, &textPath{text: path}, 0)
}

// textPath is the position of parseProps in a CRD, kept as a text per level pointing at its
// parent: rendered only for an error, so a schema d levels deep costs O(d), not the O(d²) of a
// string concatenated at each level.
type textPath struct {
	parent *textPath
	text   string
}

func (p *textPath) then(s string) *textPath { return &textPath{parent: p, text: s} }

func (p *textPath) String() string {
	var parts []string
	n := 0
	for q := p; q != nil; q = q.parent {
		parts = append(parts, q.text)
		n += len(q.text)
	}
	var b strings.Builder
	b.Grow(n)
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	return b.String()
}

func parseProps(v any, at *textPath, depth int) (*Props, error) {
	if depth > maxSchemaDepth {
		return nil, &decodeError{path: at.String(), msg: fmt.Sprintf("schema nesting exceeds %d levels", maxSchemaDepth)}
	}
	if v == nil {
		return &Props{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, wrongType(at.String(), "JSONSchemaProps", v)
	}
	p := &Props{}
	var err error
	strPtr := func(k string) *string {
		if err != nil {
			return nil
		}
		if x, ok := m[k]; ok && x != nil {
			s, ok := x.(string)
			if !ok {
				err = wrongType(at.String()+"."+k, "string", x)
				return nil
			}
			return &s
		}
		return nil
	}
	str := func(k string, dst *string) {
		if s := strPtr(k); s != nil {
			*dst = *s
		}
	}
	boolean := func(k string, dst *bool) {
		if err != nil {
			return
		}
		if x, ok := m[k]; ok && x != nil {
			b, ok := x.(bool)
			if !ok {
				err = wrongType(at.String()+"."+k, "bool", x)
				return
			}
			*dst = b
		}
	}
	float := func(k string) *float64 {
		if err != nil {
			return nil
		}
		if x, ok := m[k]; ok && x != nil {
			switch n := x.(type) {
			case int64:
				f := float64(n)
				return &f
			case float64:
				return &n
			default:
				err = wrongType(at.String()+"."+k, "float64", x)
			}
		}
		return nil
	}
	integer := func(k string) *int64 {
		if err != nil {
			return nil
		}
		if x, ok := m[k]; ok && x != nil {
			switch n := x.(type) {
			case int64:
				return &n
			case float64:
				if n == float64(int64(n)) {
					i := int64(n)
					return &i
				}
				err = &decodeError{path: at.String() + "." + k, msg: fmt.Sprintf("cannot unmarshal number %v into int64", n)}
			default:
				err = wrongType(at.String()+"."+k, "int64", x)
			}
		}
		return nil
	}
	strs := func(k string) []string {
		if err != nil {
			return nil
		}
		x, ok := m[k]
		if !ok || x == nil {
			return nil
		}
		l, ok := x.([]any)
		if !ok {
			err = wrongType(at.String()+"."+k, "[]string", x)
			return nil
		}
		out := make([]string, 0, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				if e == nil {
					s = ""
				} else {
					err = wrongType(fmt.Sprintf("%s.%s[%d]", at.String(), k, i), "string", e)
					return nil
				}
			}
			out = append(out, s)
		}
		return out
	}
	schemaList := func(k string) []Props {
		if err != nil {
			return nil
		}
		x, ok := m[k]
		if !ok || x == nil {
			return nil
		}
		l, ok := x.([]any)
		if !ok {
			err = wrongType(at.String()+"."+k, "[]JSONSchemaProps", x)
			return nil
		}
		out := make([]Props, 0, len(l))
		for i, e := range l {
			sub, e2 := parseProps(e, at.then("."+k+"["+strconv.Itoa(i)+"]"), depth+1)
			if e2 != nil {
				err = e2
				return nil
			}
			out = append(out, *sub)
		}
		return out
	}
	schemaMap := func(k string) (map[string]*Props, []string) {
		if err != nil {
			return nil, nil
		}
		x, ok := m[k]
		if !ok || x == nil {
			return nil, nil
		}
		mm, ok := x.(map[string]any)
		if !ok {
			err = wrongType(at.String()+"."+k, "map[string]JSONSchemaProps", x)
			return nil, nil
		}
		out := make(map[string]*Props, len(mm))
		names := make([]string, 0, len(mm))
		for name := range mm {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			sub, e2 := parseProps(mm[name], at.then("."+k+"."+name), depth+1)
			if e2 != nil {
				err = e2
				return nil, nil
			}
			out[name] = sub
		}
		return out, names
	}
	schemaOrBool := func(k string) *PropsOrBool {
		if err != nil {
			return nil
		}
		x, ok := m[k]
		if !ok || x == nil {
			return nil
		}
		switch t := x.(type) {
		case bool:
			return &PropsOrBool{Allows: t}
		case map[string]any:
			sub, e2 := parseProps(t, at.then("."+k), depth+1)
			if e2 != nil {
				err = e2
				return nil
			}
			return &PropsOrBool{Allows: true, Schema: sub}
		default:
			err = &decodeError{path: at.String() + "." + k, msg: "JSONSchemaPropsOrBool: expected bool or object"}
			return nil
		}
	}

	str("id", &p.ID)
	str("$schema", &p.Schema)
	p.Ref = strPtr("$ref")
	str("description", &p.Description)
	str("type", &p.Type)
	str("format", &p.Format)
	str("title", &p.Title)
	if x, ok := m["default"]; ok {
		p.Default, p.HasDefault = x, true
	}
	if x, ok := m["example"]; ok {
		p.Example, p.HasExample = x, true
	}
	p.Maximum = float("maximum")
	boolean("exclusiveMaximum", &p.ExclusiveMaximum)
	p.Minimum = float("minimum")
	boolean("exclusiveMinimum", &p.ExclusiveMinimum)
	p.MaxLength = integer("maxLength")
	p.MinLength = integer("minLength")
	str("pattern", &p.Pattern)
	p.MaxItems = integer("maxItems")
	p.MinItems = integer("minItems")
	boolean("uniqueItems", &p.UniqueItems)
	p.MultipleOf = float("multipleOf")
	if x, ok := m["enum"]; ok && x != nil && err == nil {
		l, ok := x.([]any)
		if !ok {
			err = wrongType(at.String()+".enum", "[]JSON", x)
		} else {
			p.Enum = l
		}
	}
	p.MaxProperties = integer("maxProperties")
	p.MinProperties = integer("minProperties")
	p.Required = strs("required")
	if x, ok := m["items"]; ok && x != nil && err == nil {
		switch t := x.(type) {
		case map[string]any:
			p.Items, err = parseProps(t, at.then(".items"), depth+1)
		case []any:
			p.ItemsArray = schemaList("items")
			if p.ItemsArray == nil && err == nil {
				p.ItemsArray = []Props{}
			}
		default:
			err = &decodeError{path: at.String() + ".items", msg: "JSONSchemaPropsOrArray: expected object or array"}
		}
	}
	p.AllOf = schemaList("allOf")
	p.OneOf = schemaList("oneOf")
	p.AnyOf = schemaList("anyOf")
	if x, ok := m["not"]; ok && x != nil && err == nil {
		p.Not, err = parseProps(x, at.then(".not"), depth+1)
	}
	p.Properties, p.propertyOrder = schemaMap("properties")
	p.AdditionalProperties = schemaOrBool("additionalProperties")
	p.PatternProperties, _ = schemaMap("patternProperties")
	if x, ok := m["dependencies"]; ok && x != nil && err == nil {
		d, ok := x.(map[string]any)
		if !ok {
			err = wrongType(at.String()+".dependencies", "JSONSchemaDependencies", x)
		} else {
			p.Dependencies = d
		}
	}
	p.AdditionalItems = schemaOrBool("additionalItems")
	p.Definitions, _ = schemaMap("definitions")
	if x, ok := m["externalDocs"]; ok && x != nil && err == nil {
		d, ok := x.(map[string]any)
		if !ok {
			err = wrongType(at.String()+".externalDocs", "ExternalDocumentation", x)
		} else {
			p.ExternalDocs = &ExternalDocs{}
			if s, ok := d["description"].(string); ok {
				p.ExternalDocs.Description = s
			}
			if s, ok := d["url"].(string); ok {
				p.ExternalDocs.URL = s
			}
		}
	}
	boolean("nullable", &p.Nullable)
	if x, ok := m["x-kubernetes-preserve-unknown-fields"]; ok && x != nil && err == nil {
		b, ok := x.(bool)
		if !ok {
			err = wrongType(at.String()+".x-kubernetes-preserve-unknown-fields", "bool", x)
		} else {
			p.XPreserveUnknownFields = &b
		}
	}
	boolean("x-kubernetes-embedded-resource", &p.XEmbeddedResource)
	boolean("x-kubernetes-int-or-string", &p.XIntOrString)
	p.XListMapKeys = strs("x-kubernetes-list-map-keys")
	p.XListType = strPtr("x-kubernetes-list-type")
	p.XMapType = strPtr("x-kubernetes-map-type")
	if x, ok := m["x-kubernetes-validations"]; ok && x != nil && err == nil {
		l, ok := x.([]any)
		if !ok {
			err = wrongType(at.String()+".x-kubernetes-validations", "ValidationRules", x)
		} else {
			p.XValidations = l
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}
