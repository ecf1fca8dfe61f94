package schemacatalogue

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/writepath/writepath/schema"
)

// TestSMDTypesAgainstServedOpenAPI converts the OpenAPI v3 documents a real 1.37 apiserver serves
// (cluster/data/openapi/v3, recorded by record-openapi.sh there) into SMD types as the
// apiserver's field manager does (schemaconv.ToSchemaFromOpenAPI over the definitions,
// preserveUnknownFields=false), and compares every named type reachable from each kind served by
// default, subresource bodies (autoscaling/v1 Scale, policy/v1 Eviction) included, with writepath's
// catalogue.
func TestSMDTypesAgainstServedOpenAPI(t *testing.T) {
	parser, err := schema.BuiltinParser()
	require.NoError(t, err)
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	files, err := filepath.Glob("../../cluster/data/openapi/v3/*.json.gz")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	ref := convertOpenAPI(t, files)
	var roots []string
	for _, k := range kinds {
		if k.ServedByDefault {
			roots = append(roots, k.SMDTypeName())
		}
	}
	compared, disagreements := 0, []string{}
	seen := map[string]bool{}
	for len(roots) > 0 {
		name := roots[0]
		roots = roots[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		refDef, ok := ref.FindNamedType(name)
		if !ok {
			disagreements = append(disagreements, fmt.Sprintf("%s not in the served OpenAPI", name))
			continue
		}
		mine, ok := parser.Schema.FindNamedType(name)
		if !ok {
			disagreements = append(disagreements, fmt.Sprintf("%s not in writepath's catalogue", name))
			continue
		}
		compared++
		if a, b := canonAtom(mine.Atom), canonAtom(refDef.Atom); a != b {
			disagreements = append(disagreements, fmt.Sprintf("%s differs:\n  writepath: %s\n  served:    %s", name, a, b))
		}
		roots = append(roots, namedRefs(refDef.Atom)...)
	}
	t.Logf("served OpenAPI: %d documents, %d named types compared, %d disagreements", len(files), compared, len(disagreements))
	for _, d := range disagreements {
		t.Error(d)
	}
}

// convertOpenAPI converts the definitions of all documents together (a definition appears in
// every document that uses it, identical but for x-kubernetes-group-version-kind).
func convertOpenAPI(t *testing.T, files []string) *smdschema.Schema {
	defs := map[string]*spec.Schema{}
	for _, file := range files {
		f, err := os.Open(file)
		require.NoError(t, err)
		zr, err := gzip.NewReader(f)
		require.NoError(t, err)
		var doc struct {
			Components struct {
				Schemas map[string]*spec.Schema `json:"schemas"`
			} `json:"components"`
		}
		require.NoError(t, json.NewDecoder(zr).Decode(&doc), file)
		require.NoError(t, f.Close())
		for name, s := range doc.Components.Schemas {
			if _, ok := defs[name]; !ok {
				defs[name] = s
			}
		}
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(defs, false)
	require.NoError(t, err)
	return s
}

func namedRefs(a smdschema.Atom) []string {
	var out []string
	var ref func(r smdschema.TypeRef)
	var atom func(a smdschema.Atom)
	ref = func(r smdschema.TypeRef) {
		if r.NamedType != nil {
			out = append(out, *r.NamedType)
		}
		atom(r.Inlined)
	}
	atom = func(a smdschema.Atom) {
		if a.List != nil {
			ref(a.List.ElementType)
		}
		if a.Map != nil {
			ref(a.Map.ElementType)
			for _, f := range a.Map.Fields {
				ref(f.Type)
			}
		}
	}
	atom(a)
	return out
}

// deducedBody is canonAtom of the __untyped_deduced_ type's definition: an inlined atom printing
// the same is that type spelled out (client-go's schema inlines it where schemaconv names it).
var deducedBody string

func init() {
	deducedBody = canonAtom(smdschema.Atom{
		Scalar: ptr(smdschema.Untyped),
		List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: ptr("__untyped_atomic_")}, ElementRelationship: smdschema.Atomic},
		Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: ptr("__untyped_deduced_")}, ElementRelationship: smdschema.Separable},
	})
}

func ptr[T any](v T) *T { return &v }

// canonAtom prints an atom canonically: fields sorted by name (SMD looks them up by name), defaults
// as JSON (so 0, int64(0) and 0.0 agree, as they do for SMD's value comparison), and the deduced
// type the same whether named or spelled out.
func canonAtom(a smdschema.Atom) string {
	var b strings.Builder
	var ref func(r smdschema.TypeRef)
	var atom func(a smdschema.Atom)
	ref = func(r smdschema.TypeRef) {
		b.WriteString("{")
		if r.NamedType != nil {
			if *r.NamedType == "__untyped_deduced_" {
				b.WriteString("deduced ")
			} else {
				b.WriteString("named:" + *r.NamedType + " ")
			}
		} else if deducedBody != "" && canonAtom(r.Inlined) == deducedBody {
			b.WriteString("deduced ")
			r.Inlined = smdschema.Atom{}
		}
		if r.ElementRelationship != nil {
			b.WriteString("er:" + string(*r.ElementRelationship) + " ")
		}
		if r.Nullable {
			b.WriteString("nullable ")
		}
		atom(r.Inlined)
		b.WriteString("}")
	}
	atom = func(a smdschema.Atom) {
		if a.Scalar != nil {
			b.WriteString("scalar:" + string(*a.Scalar) + " ")
		}
		if a.List != nil {
			fmt.Fprintf(&b, "list(er:%s keys:%v elem:", a.List.ElementRelationship, a.List.Keys)
			ref(a.List.ElementType)
			b.WriteString(") ")
		}
		if a.Map != nil {
			fmt.Fprintf(&b, "map(er:%s elem:", a.Map.ElementRelationship)
			ref(a.Map.ElementType)
			b.WriteString(" fields:[")
			fields := append([]smdschema.StructField(nil), a.Map.Fields...)
			sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
			for _, f := range fields {
				b.WriteString(f.Name + ":")
				ref(f.Type)
				if f.Default != nil {
					d, err := json.Marshal(jsonable(f.Default))
					if err != nil {
						d = []byte(err.Error())
					}
					b.WriteString("=" + string(d))
				}
				b.WriteString(" ")
			}
			b.WriteString("] unions:[")
			for _, u := range a.Map.Unions {
				disc := ""
				if u.Discriminator != nil {
					disc = *u.Discriminator
				}
				fields := make([]string, 0, len(u.Fields))
				for _, f := range u.Fields {
					fields = append(fields, f.FieldName+"="+f.DiscriminatorValue)
				}
				sort.Strings(fields)
				fmt.Fprintf(&b, "(%s %v %v)", disc, u.DeduceInvalidDiscriminator, fields)
			}
			b.WriteString("]) ")
		}
	}
	atom(a)
	return b.String()
}

func jsonable(v any) any {
	switch v := v.(type) {
	case map[any]any:
		out := map[string]any{}
		for k, e := range v {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonable(e)
		}
		return out
	}
	return v
}
