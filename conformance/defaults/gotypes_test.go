package defaults

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

// TestGoDecodeErrors compares gotypes.DecodeError with the apiserver's JSON serializer
// (k8s.io/apimachinery's json serializer over sigs.k8s.io/json's decoder: case-sensitive,
// integers preserved, not strict) decoding a body into the Go type of the kind: for every
// catalogued kind, random paths down its Go type (struct fields, promoted fields of embedded
// structs, list items, map values, pointers, apiextensions' schema unions) ending in a value
// that is often of the wrong JSON type. The decoder's error text, or its lack of one, must be
// writepath's. 20,000 cases normally, 100,000 (or WRITEPATH_LONG) with WRITEPATH_LONG=1.
func TestGoDecodeErrors(t *testing.T) {
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	type target struct {
		gvk schema.GroupVersionKind
		typ reflect.Type
		ser *kjson.Serializer
		sch kschema.GroupVersionKind
	}
	var targets []target
	for _, k := range kinds {
		s := schemeFor(k.GVK.Group)
		gvk := kschema.GroupVersionKind{Group: k.GVK.Group, Version: k.GVK.Version, Kind: k.GVK.Kind}
		obj, err := s.New(gvk)
		if err != nil {
			continue
		}
		targets = append(targets, target{gvk: k.GVK, typ: reflect.TypeOf(obj).Elem(), sch: gvk,
			ser: kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{})})
	}
	require.Greater(t, len(targets), 90, "catalogued kinds with a Go type")
	var crd target
	for _, tg := range targets {
		if tg.gvk.Group == "apiextensions.k8s.io" && tg.gvk.Kind == "CustomResourceDefinition" {
			crd = tg
		}
	}
	require.NotNil(t, crd.ser)

	n := 20000
	if os.Getenv("WRITEPATH_LONG") != "" {
		n = sampleSize()
	}
	seed := int64(6)
	if v, err := strconv.ParseInt(os.Getenv("WRITEPATH_SEED"), 10, 64); err == nil {
		seed = v
	}
	r := rand.New(rand.NewSource(seed))
	errorsSeen, embedded, inMaps, unions, composites, wholeDocs := 0, 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		tg := targets[r.Intn(len(targets))]
		if r.Intn(10) == 0 {
			tg = crd // a tenth on the CustomResourceDefinition, whose schema unions decode with encoding/json
		}
		w := &pathWalk{r: r}
		body, path, value := w.document(tg.typ)
		doc := map[string]any{"apiVersion": tg.gvk.APIVersion(), "kind": tg.gvk.Kind}
		for k, v := range body {
			doc[k] = v
		}
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		obj, err := schemeFor(tg.gvk.Group).New(tg.sch)
		require.NoError(t, err)
		_, _, refErr := tg.ser.Decode(data, nil, obj)
		var got string
		var ok bool
		if r.Intn(8) == 0 {
			// the whole document, as a PUT body is decoded
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber() // numbers as written
			var whole any
			require.NoError(t, dec.Decode(&whole))
			got, ok = gotypes.DecodeError(tg.gvk, "", whole)
			wholeDocs++
		} else {
			got, ok = gotypes.DecodeError(tg.gvk, path.String(), value)
		}
		if refErr == nil {
			if !assert.False(t, ok, "case %d %s %s: the decoder takes %s; writepath: %s", i, tg.gvk, path, data, got) {
				return
			}
			continue
		}
		errorsSeen++
		if w.embedded {
			embedded++
		}
		if w.inMap {
			inMaps++
		}
		if w.union {
			unions++
		}
		if w.composite {
			composites++
		}
		if !assert.True(t, ok, "case %d %s %s: %s: the decoder: %v", i, tg.gvk, path, data, refErr) ||
			!assert.Equal(t, refErr.Error(), got, "case %d %s %s: %s", i, tg.gvk, path, data) {
			return
		}
	}
	t.Logf("%d cases over %d kinds, %d of them whole documents (%d decoder errors: %d through embedded structs, %d inside maps, %d inside schema unions, %d in composite values), 0 disagreements",
		n, len(targets), wholeDocs, errorsSeen, embedded, inMaps, unions, composites)
}

// pathWalk builds a document holding one value at a random path of a Go type: the containers
// on the way, nulls before a list item (null decodes into anything), and at the end a value
// drawn to be of the wrong JSON type as often as not.
type pathWalk struct {
	r         *rand.Rand
	depth     int
	embedded  bool
	inMap     bool
	union     bool
	composite bool
}

// crdWay names the fields on the way to a CRD's schemas and their unions.
var crdWay = map[string]bool{"spec": true, "versions": true, "schema": true, "openAPIV3Schema": true,
	"items": true, "additionalProperties": true, "additionalItems": true, "dependencies": true, "properties": true}

var (
	tPropsOrArrayW  = reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrArray{})
	tPropsOrBoolW   = reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrBool{})
	tPropsOrStringW = reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrStringArray{})
	tPropsW         = reflect.TypeOf(apiextensionsv1.JSONSchemaProps{})
	jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

func (w *pathWalk) document(t reflect.Type) (map[string]any, field.Path, any) {
	for {
		v, p, leaf := w.walk(t, field.Path{}, true)
		if m, ok := v.(map[string]any); ok && !p.IsEmpty() {
			if p.Len() == 1 && (p.String() == "apiVersion" || p.String() == "kind") {
				if _, isString := leaf.(string); isString || leaf == nil {
					continue // the meta factory reads them first; a string names another kind
				}
			}
			return m, p, leaf
		}
		w.embedded, w.inMap, w.union, w.composite, w.depth = false, false, false, false, 0
	}
}

// jsonFieldsOf lists the JSON fields of a struct, embedded structs flattened (the k8s.io/api
// types have no name conflicts), with whether the field was promoted.
func jsonFieldsOf(t reflect.Type) (names []string, types []reflect.Type, promoted []bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				n, ty, _ := jsonFieldsOf(ft)
				for j := range n {
					names, types, promoted = append(names, n[j]), append(types, ty[j]), append(promoted, true)
				}
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		names, types, promoted = append(names, name), append(types, sf.Type), append(promoted, false)
	}
	return names, types, promoted
}

// walk returns the JSON value for t holding the leaf, its path and the leaf.
func (w *pathWalk) walk(t reflect.Type, p field.Path, root bool) (any, field.Path, any) {
	w.depth++
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	stop := !root && (w.r.Intn(5) == 0 || w.depth > 16)
	switch {
	case t == tPropsOrArrayW:
		if stop || w.r.Intn(3) == 0 {
			break
		}
		w.union = true
		if w.r.Intn(2) == 0 {
			return w.walk(tPropsW, p, false)
		}
		return w.walk(reflect.TypeOf([]apiextensionsv1.JSONSchemaProps{}), p, false)
	case t == tPropsOrBoolW:
		if stop || w.r.Intn(3) == 0 {
			break
		}
		w.union = true
		return w.walk(tPropsW, p, false)
	case t == tPropsOrStringW:
		if stop || w.r.Intn(3) == 0 {
			break
		}
		w.union = true
		if w.r.Intn(2) == 0 {
			return w.walk(tPropsW, p, false)
		}
		return w.walk(reflect.TypeOf([]string{}), p, false)
	case reflect.PointerTo(t).Implements(jsonUnmarshaler) || stop:
	case t.Kind() == reflect.Struct:
		names, types, promoted := jsonFieldsOf(t)
		if len(names) == 0 {
			break
		}
		i := w.r.Intn(len(names))
		if root && w.r.Intn(6) != 0 && len(names) > 2 {
			// mostly below the type's own apiVersion and kind.
			for names[i] == "apiVersion" || names[i] == "kind" {
				i = w.r.Intn(len(names))
			}
		}
		if w.r.Intn(4) != 0 {
			// toward the promoted fields of embedded structs and the schemas of a CRD.
			var favoured []int
			for j, name := range names {
				if (promoted[j] && name != "apiVersion" && name != "kind") || crdWay[name] {
					favoured = append(favoured, j)
				}
			}
			if len(favoured) > 0 {
				i = favoured[w.r.Intn(len(favoured))]
			}
		}
		if promoted[i] && !root {
			w.embedded = true
		}
		var cp field.Path
		if p.IsEmpty() {
			cp = field.NewPath(names[i])
		} else {
			cp = p.Child(names[i])
		}
		v, lp, leaf := w.walk(types[i], cp, false)
		return map[string]any{names[i]: v}, lp, leaf
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		idx := w.r.Intn(3)
		l := make([]any, idx+1)
		v, lp, leaf := w.walk(t.Elem(), p.Index(idx), false)
		l[idx] = v
		return l, lp, leaf
	case t.Kind() == reflect.Slice && w.r.Intn(3) == 0:
		// a []byte as a list of bytes.
		v := w.leaf()
		return []any{json.Number("1"), v}, p.Index(1), v
	case t.Kind() == reflect.Map:
		w.inMap = true
		key := []string{"k", "a.b", "x]y", "app[1]", "cpu", "kubernetes.io/name"}[w.r.Intn(6)]
		v, lp, leaf := w.walk(t.Elem(), p.Key(key), false)
		return map[string]any{key: v}, lp, leaf
	}
	if w.r.Intn(3) == 0 {
		// a value with several parts, any of them of the wrong type: the decoder keeps the
		// first type error in document order (sorted keys here) and stops at a custom
		// unmarshaler's.
		w.composite = true
		v := w.value(t, 3)
		return v, p, v
	}
	v := w.leaf()
	return v, p, v
}

// value is a random value for t: objects and lists of random parts, leaves anywhere.
func (w *pathWalk) value(t reflect.Type, depth int) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if depth == 0 || w.r.Intn(4) == 0 || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return w.leaf()
	}
	switch t.Kind() {
	case reflect.Struct:
		names, types, _ := jsonFieldsOf(t)
		m := map[string]any{}
		for i := 0; i < 1+w.r.Intn(3) && len(names) > 0; i++ {
			j := w.r.Intn(len(names))
			if names[j] == "apiVersion" || names[j] == "kind" {
				continue
			}
			m[names[j]] = w.value(types[j], depth-1)
		}
		return m
	case reflect.Slice:
		l := make([]any, w.r.Intn(3))
		for i := range l {
			l[i] = w.value(t.Elem(), depth-1)
		}
		return l
	case reflect.Map:
		m := map[string]any{}
		for i := 0; i < 1+w.r.Intn(2); i++ {
			m[[]string{"k", "cpu", "a.b"}[w.r.Intn(3)]] = w.value(t.Elem(), depth-1)
		}
		return m
	}
	return w.leaf()
}

var leafValues = []any{
	"x", "", "true", "1Gi", "100m", "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123456Z", "yesterday", "aGVsbG8=", "!!",
	json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("1.5"), json.Number("1.0"), json.Number("256"),
	json.Number("4294967297"), json.Number("2147483648"), json.Number("-2147483649"), json.Number("9223372036854775808"),
	json.Number("1e3"), json.Number("1e400"), json.Number("-0"),
	true, false, nil,
	[]any{}, []any{"a"}, []any{json.Number("1")}, []any{map[string]any{}},
	map[string]any{}, map[string]any{"a": "b"},
}

func (w *pathWalk) leaf() any {
	v := leafValues[w.r.Intn(len(leafValues))]
	switch x := v.(type) {
	case []any:
		return append(make([]any, 0, len(x)), x...)
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = e
		}
		return m
	}
	return v
}
