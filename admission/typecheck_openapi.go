package admission

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"io"
	"sync"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
)

// The OpenAPI of the built-in kinds the type checker resolves schemas from:
// the parts of kube-apiserver 1.37's OpenAPI v3 documents that give CEL
// types (type, format, properties, items, additionalProperties, refs, the
// int-or-string and embedded-resource extensions), one definition per name,
// and the kinds each definition is (x-kubernetes-group-version-kind).
// Generated from cluster/data/openapi/v3 (recorded from a real
// apiserver) by TestTypeCheckOpenAPIData with UPDATE_GOLDEN=1.
//
//go:embed typecheck_openapi.json.gz
var typeCheckOpenAPI []byte

// openAPINode is one schema of the catalogue. A node with Ref stands for the
// definition it names (populateRefs replaces the whole schema, siblings
// included, by the referred one).
type openAPINode struct {
	Ref         string                  `json:"ref,omitempty"`
	Type        string                  `json:"type,omitempty"`
	Format      string                  `json:"format,omitempty"`
	Props       map[string]*openAPINode `json:"props,omitempty"`
	Items       *openAPINode            `json:"items,omitempty"`
	Additional  *openAPINode            `json:"additional,omitempty"`
	IntOrString bool                    `json:"intOrString,omitempty"`
	Embedded    bool                    `json:"embedded,omitempty"`
	// goName is the definition a resolved node came from
	// ("io.k8s.api.core.v1.ServiceStatus"): the Go type params.go names.
	goName string
}

type openAPICatalogue struct {
	// Kinds maps "group/version/Kind" to a definition name.
	Kinds map[string]string       `json:"kinds"`
	Defs  map[string]*openAPINode `json:"defs"`
}

var (
	openAPIOnce sync.Once
	openAPICat  *openAPICatalogue
	openAPIErr  error
)

func loadOpenAPI() (*openAPICatalogue, error) {
	openAPIOnce.Do(func() {
		zr, err := gzip.NewReader(bytes.NewReader(typeCheckOpenAPI))
		if err != nil {
			openAPIErr = err
			return
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			openAPIErr = err
			return
		}
		var c openAPICatalogue
		if err := json.Unmarshal(b, &c); err != nil {
			openAPIErr = err
			return
		}
		openAPICat = &c
	})
	return openAPICat, openAPIErr
}

func gvkKey(g schema.GroupVersionKind) string { return g.Group + "/" + g.Version + "/" + g.Kind }

// resolved is a schema with its refs replaced by the definitions they name,
// as resolver.PopulateRefs does: a ref already being expanded (a cycle)
// becomes an empty object.
func (c *openAPICatalogue) resolve(n *openAPINode, visiting map[string]bool) *openAPINode {
	if n.Ref != "" {
		if visiting[n.Ref] {
			return &openAPINode{Type: "object"}
		}
		def, ok := c.Defs[n.Ref]
		if !ok {
			return nil
		}
		visiting[n.Ref] = true
		defer delete(visiting, n.Ref)
		r := c.resolve(def, visiting)
		if r != nil && r.goName == "" {
			r.goName = n.Ref
		}
		return r
	}
	out := *n
	if n.Props != nil {
		out.Props = make(map[string]*openAPINode, len(n.Props))
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

// schemaFor resolves the schema of a built-in kind (DefinitionsSchemaResolver
// over the apiserver's definitions); false when the kind has none.
func (c *openAPICatalogue) schemaFor(gvk schema.GroupVersionKind) (*openAPINode, bool) {
	name, ok := c.Kinds[gvkKey(gvk)]
	if !ok {
		return nil, false
	}
	s := c.resolve(&openAPINode{Ref: name}, map[string]bool{})
	return s, s != nil
}

// structural is the node as a structural schema, what cel.SchemaDeclType
// reads: the OpenAPI adaptor of common.SchemaDeclType, which accepts
// int-or-string marked with the format (built-in kinds) or the extension
// (CRDs).
func (n *openAPINode) structural() *schema.Structural {
	if n == nil {
		return nil
	}
	s := &schema.Structural{Type: n.Type, XIntOrString: n.IntOrString || n.Format == "int-or-string", XEmbeddedResource: n.Embedded}
	if n.Format != "" {
		s.ValueValidation = &schema.ValueValidation{Format: n.Format}
	}
	if n.Props != nil {
		s.Properties = make(map[string]*schema.Structural, len(n.Props))
		for k, p := range n.Props {
			s.Properties[k] = p.structural()
		}
	}
	s.Items = n.Items.structural()
	if n.Additional != nil {
		s.AdditionalProperties = &schema.StructuralOrBool{Structural: n.Additional.structural()}
	}
	return s
}

// schemaDecl is common.SchemaDeclType over an OpenAPI schema: nil where the
// schema has no CEL type (no type, not int-or-string), which drops the
// property that holds it.
func schemaDecl(n *openAPINode, isResourceRoot bool) *cel.DeclType {
	return cel.SchemaDeclType(n.structural(), isResourceRoot)
}
