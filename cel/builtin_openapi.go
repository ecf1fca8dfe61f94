package cel

import (
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// The OpenAPI of the built-in kinds, as admission policies' CEL sees them (the typed params of
// package admission, the type checking of kube-controller-manager): the parts of kube-apiserver
// 1.37's OpenAPI v3 documents that give CEL types (type, format, properties, items,
// additionalProperties, refs, the int-or-string and embedded-resource extensions), one
// definition per name, and the kinds each definition is (x-kubernetes-group-version-kind).
// Generated from cluster/data/openapi/v3 (recorded from a real apiserver) by
// TestBuiltinOpenAPIData with UPDATE_GOLDEN=1.
//
//go:embed builtin_openapi.json.gz
var builtinOpenAPI []byte

// OpenAPISchema is one schema of the catalogue. A node with Ref stands for the
// definition it names (populateRefs replaces the whole schema, siblings
// included, by the referred one).
type OpenAPISchema struct {
	Ref         string                    `json:"ref,omitempty"`
	Type        string                    `json:"type,omitempty"`
	Format      string                    `json:"format,omitempty"`
	Props       map[string]*OpenAPISchema `json:"props,omitempty"`
	Items       *OpenAPISchema            `json:"items,omitempty"`
	Additional  *OpenAPISchema            `json:"additional,omitempty"`
	IntOrString bool                      `json:"intOrString,omitempty"`
	Embedded    bool                      `json:"embedded,omitempty"`
	// GoName is the definition a resolved node came from
	// ("io.k8s.api.core.v1.ServiceStatus"): the Go type admission's typed params name.
	GoName string `json:"-"`
}

// OpenAPICatalogue is the built-in kinds' definitions (BuiltinOpenAPI). It is read-only.
type OpenAPICatalogue struct {
	// Kinds maps "group/version/Kind" to a definition name.
	Kinds map[string]string         `json:"kinds"`
	Defs  map[string]*OpenAPISchema `json:"defs"`
}

var (
	openAPIOnce sync.Once
	openAPICat  *OpenAPICatalogue
	openAPIErr  error
)

// BuiltinOpenAPI returns the catalogue, decoded once.
func BuiltinOpenAPI() (*OpenAPICatalogue, error) {
	openAPIOnce.Do(func() {
		b, err := codec.Gunzip(builtinOpenAPI)
		if err != nil {
			openAPIErr = err
			return
		}
		var c OpenAPICatalogue
		if err := json.Unmarshal(b, &c); err != nil {
			openAPIErr = err
			return
		}
		openAPICat = &c
	})
	return openAPICat, openAPIErr
}

func gvkKey(g schema.GroupVersionKind) string { return g.Group + "/" + g.Version + "/" + g.Kind }

// Resolve returns n with its refs replaced by the definitions they name, as
// resolver.PopulateRefs does: a ref already being expanded (a cycle) becomes an
// empty object; nil when a ref names no definition.
func (c *OpenAPICatalogue) Resolve(n *OpenAPISchema) *OpenAPISchema {
	return c.resolve(n, map[string]bool{})
}

func (c *OpenAPICatalogue) resolve(n *OpenAPISchema, visiting map[string]bool) *OpenAPISchema {
	if n.Ref != "" {
		if visiting[n.Ref] {
			return &OpenAPISchema{Type: "object"}
		}
		def, ok := c.Defs[n.Ref]
		if !ok {
			return nil
		}
		visiting[n.Ref] = true
		defer delete(visiting, n.Ref)
		r := c.resolve(def, visiting)
		if r != nil && r.GoName == "" {
			r.GoName = n.Ref
		}
		return r
	}
	out := *n
	if n.Props != nil {
		out.Props = make(map[string]*OpenAPISchema, len(n.Props))
		for k, p := range n.Props {
			r := c.resolve(p, visiting)
			if r == nil {
				return nil
			}
			out.Props[k] = r
		}
	}
	if n.Items != nil {
		if out.Items = c.resolve(n.Items, visiting); out.Items == nil {
			return nil
		}
	}
	if n.Additional != nil {
		if out.Additional = c.resolve(n.Additional, visiting); out.Additional == nil {
			return nil
		}
	}
	return &out
}

// SchemaFor resolves the schema of a built-in kind (DefinitionsSchemaResolver
// over the apiserver's definitions); false when the kind has none.
func (c *OpenAPICatalogue) SchemaFor(gvk schema.GroupVersionKind) (*OpenAPISchema, bool) {
	name, ok := c.Kinds[gvkKey(gvk)]
	if !ok {
		return nil, false
	}
	s := c.resolve(&OpenAPISchema{Ref: name}, map[string]bool{})
	return s, s != nil
}

// Structural is the node as a structural schema, what SchemaDeclType
// reads: the OpenAPI adaptor of common.SchemaDeclType, which accepts
// int-or-string marked with the format (built-in kinds) or the extension
// (CRDs).
func (n *OpenAPISchema) Structural() *schema.Structural {
	if n == nil {
		return nil
	}
	s := &schema.Structural{Type: n.Type, XIntOrString: n.IntOrString || n.Format == "int-or-string", XEmbeddedResource: n.Embedded}
	if n.Format != "" {
		s.ValueValidation = &schema.ValueValidation{ValueKeywords: schema.ValueKeywords{Format: n.Format}}
	}
	if n.Props != nil {
		s.Properties = make(map[string]*schema.Structural, len(n.Props))
		for k, p := range n.Props {
			s.Properties[k] = p.Structural()
		}
	}
	s.Items = n.Items.Structural()
	if n.Additional != nil {
		s.AdditionalProperties = &schema.StructuralOrBool{Structural: n.Additional.Structural()}
	}
	return s
}

// DeclType is common.SchemaDeclType over an OpenAPI schema: nil where the
// schema has no CEL type (no type, not int-or-string), which drops the
// property that holds it.
func (n *OpenAPISchema) DeclType(isResourceRoot bool) *DeclType {
	return SchemaDeclType(n.Structural(), isResourceRoot)
}
