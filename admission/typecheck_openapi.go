package admission

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
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
// Generated from internal/gen/testdata/openapi (recorded from a real
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

// withTypeAndObjectMeta is common.WithTypeAndObjectMeta: a resource root
// always has kind, apiVersion and metadata.name and generateName.
func withTypeAndObjectMeta(s *openAPINode) *openAPINode {
	md := s.Props["metadata"]
	if s.Props != nil && s.Props["kind"] != nil && s.Props["kind"].Type == "string" &&
		s.Props["apiVersion"] != nil && s.Props["apiVersion"].Type == "string" &&
		md != nil && md.Type == "object" && md.Props != nil &&
		md.Props["name"] != nil && md.Props["name"].Type == "string" &&
		md.Props["generateName"] != nil && md.Props["generateName"].Type == "string" {
		return s
	}
	out := *s
	out.Props = make(map[string]*openAPINode, len(s.Props)+3)
	for k, v := range s.Props {
		out.Props[k] = v
	}
	str := &openAPINode{Type: "string"}
	out.Props["kind"], out.Props["apiVersion"] = str, str
	out.Props["metadata"] = &openAPINode{Type: "object", Props: map[string]*openAPINode{"name": str, "generateName": str}}
	return &out
}

// schemaDecl is common.SchemaDeclType over an OpenAPI schema: nil where the
// schema has no CEL type (no type, not int-or-string), which drops the
// property that holds it.
func schemaDecl(s *openAPINode, isResourceRoot bool) *declType {
	if s == nil {
		return nil
	}
	// Built-in kinds mark int-or-string with the format, CRDs with the
	// extension: the OpenAPI adaptor accepts both.
	if s.IntOrString || s.Format == "int-or-string" {
		return declDyn
	}
	if isResourceRoot {
		s = withTypeAndObjectMeta(s)
	}
	switch s.Type {
	case "array":
		if s.Items == nil {
			return nil
		}
		it := schemaDecl(s.Items, s.Items.Embedded)
		if it == nil {
			return nil
		}
		return declList(it)
	case "object":
		if s.Additional != nil {
			pt := schemaDecl(s.Additional, s.Additional.Embedded)
			if pt == nil {
				return nil
			}
			return declMap(declString, pt)
		}
		fields := make(map[string]*declType, len(s.Props))
		for name, p := range s.Props {
			ft := schemaDecl(p, p.Embedded)
			if ft == nil {
				continue
			}
			if esc, ok := cel.Escape(name); ok {
				fields[esc] = ft
			}
		}
		return declObject("object", fields)
	case "string":
		switch s.Format {
		case "byte":
			return declBytes
		case "duration":
			return declDuration
		case "date", "date-time":
			return declTimestamp
		}
		return declString
	case "boolean":
		return declBool
	case "number":
		return declDouble
	case "integer":
		return declInt
	}
	return nil
}

// named is DeclType.MaybeAssignTypeName: object types still called "object"
// are named after where they sit under name (name.field, name.@elem for map
// values, name.@idx for list items).
func (t *declType) named(name string) *declType {
	switch {
	case t.isObject():
		updated := false
		if t.name != "object" {
			name = t.name
		} else {
			updated = true
		}
		fields := make(map[string]*declType, len(t.fields))
		for fn, f := range t.fields {
			u := f.named(fmt.Sprintf("%s.%s", name, fn))
			if u != f {
				updated = true
			}
			fields[fn] = u
		}
		if !updated {
			return t
		}
		return declObject(name, fields)
	case t.isMap():
		u := t.elem.named(name + ".@elem")
		if u == t.elem {
			return t
		}
		return declMap(t.key, u)
	case t.isList():
		u := t.elem.named(name + ".@idx")
		if u == t.elem {
			return t
		}
		return declList(u)
	}
	return t
}
