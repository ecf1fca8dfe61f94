package defaults

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Builtin returns obj as kube-apiserver 1.37 holds a built-in object of kind gvk after
// decoding it and running the scheme's defaulting functions, encoded back to the object model:
// what a client reads back after a create, update or patch, and what the field manager's
// server-side apply turns the merged object into. obj is not modified; the result is fresh.
//
// Four steps, in the apiserver's order:
//
//  1. Decoding into the Go type of k8s.io/api v0.37.2: fields the type does not have are dropped,
//     null and zero values of non-pointer fields are the same as absent ones, quantities are
//     parsed (resource.ParseQuantity), times (RFC 3339), durations and base64 bytes read.
//  2. Defaulting: the SetDefaults_* functions of k8s.io/kubernetes/pkg/apis/<group>/<version>
//     and the `+default=` markers of k8s.io/api, called in the order of the generated
//     SetObjectDefaults_* walkers (a type's own function first, then its fields in Go order),
//     with the feature gates at their 1.37 defaults (see the package documentation).
//  3. The conversion to the internal version and back, for the few kinds where it is not
//     lossless (see convert.go: Node podCIDR(s), Secret stringData, the
//     Deployment and DaemonSet annotations, StatefulSet claim templates, autoscaling/v1's CPU
//     target).
//  4. Encoding as encoding/json writes the Go value: non-pointer structs always written ({} when
//     empty), non-omitempty fields written with their zero value (nil slices, maps and pointers
//     as null), omitempty fields left out when empty, quantities in canonical form (unless
//     apimachinery kept the parsed string), times in UTC with second precision.
//
// A gvk not in the catalogue gives a *schema.NotFoundError; a kind of a version a default 1.37
// apiserver does not serve (alpha and most beta versions) an error; a value that does
// not decode into the Go type (a string where an integer is expected, an unparsable quantity)
// a *field.Error naming the first such path.
//
// o.Now is the apiserver's clock, read by one defaulting function only: resource.k8s.io/v1
// DeviceTaint.timeAdded defaults to it, truncated to the second (the zero time leaves it unset).
// o's other fields choose the steps (Options; the zero value runs them all on a JSON body).
//
// Step 1 is the JSON decoder's reading of a request body (a create or update, a JSON or merge
// patch's result, a webhook's patched object): an integer beyond its field's Go type is an
// error. obj no longer has the body's text, so an integral float64 reads as its integer, where
// the decoder refuses a body that says 1.0 ("json: cannot unmarshal number 1.0 into Go struct
// field DeploymentSpec.spec.replicas of type int32", recorded in
// testdata/apply/realcluster-numbers); the error's words are not the decoder's either. registry
// reads a JSON create or update body's text again for such numbers (literalnumbers.go); a JSON
// or merge patch's result is not read again (its 2.0 is taken). An
// object the apiserver converts from unstructured content instead (a server-side apply's merged
// object, a strategic merge patch's result) wraps such integers: Options.Unstructured.
func Builtin(gvk schema.GroupVersionKind, obj map[string]any, o Options) (map[string]any, error) {
	k, err := schema.Builtin(gvk)
	if err != nil {
		return nil, err
	}
	return ForKind(k, obj, o)
}

// ForKind is Builtin for the kind k: the four steps, steps 2 and 3 as o asks. Errors are
// Builtin's; with SkipDefaulting and SkipInternalRoundTrip only decoding errors remain.
func ForKind(k *schema.Kind, obj map[string]any, o Options) (map[string]any, error) {
	return defaultWith(k, obj, o.Now, o)
}

// defaultWith is ForKind: the four steps, steps 2 and 3 as o asks, at now.
func defaultWith(k *schema.Kind, obj map[string]any, now time.Time, o Options) (map[string]any, error) {
	unstructured := o.Unstructured
	reg, err := loadDefaulting()
	if err != nil {
		return nil, err
	}
	st := reg.structFor(k)
	if st == nil {
		return nil, fmt.Errorf("schema: no built-in defaulting for %s", k.GVK)
	}
	d := &bdecoder{reg: reg, unstructured: unstructured, shareFieldsV1: o.ShareFieldsV1, keepEmptyBytes: o.KeepEmptyBytes}
	dec := d.decodeStruct(st, obj)
	if len(d.errs) > 0 {
		return nil, d.errs[0]
	}
	if !o.SkipDefaulting {
		reg.defaultStruct(st, dec, now)
	}
	if !o.SkipInternalRoundTrip {
		if err := roundTripInternal(st.name, dec); err != nil {
			return nil, err
		}
	}
	return reg.encodeStruct(st, dec), nil
}

// Zero returns the zero value of the kind's Go type as the apiserver's encoding writes it, with
// apiVersion and kind set: non-pointer structs as {} and non-omitempty fields with their zero
// values ({"spec": {"selector": null, "template": {"metadata": {}, "spec": {"containers": null}},
// "strategy": {}}, "status": {}} for a Deployment). It is the live object the apiserver's field
// manager compares a create with (scope.Creater.New), so fields it already has are not new.
func Zero(k *schema.Kind) (map[string]any, error) {
	reg, err := loadDefaulting()
	if err != nil {
		return nil, err
	}
	st := reg.structFor(k)
	if st == nil {
		return nil, fmt.Errorf("schema: no built-in defaulting for %s", k.GVK)
	}
	d := &bdecoder{reg: reg}
	out := reg.encodeStruct(st, d.decodeStruct(st, nil))
	out["apiVersion"] = k.GVK.APIVersion()
	out["kind"] = k.GVK.Kind
	return out, nil
}

// Handles reports whether Builtin handles gvk.
func Handles(gvk schema.GroupVersionKind) bool {
	k, err := schema.Builtin(gvk)
	if err != nil {
		return false
	}
	reg, err := loadDefaulting()
	return err == nil && reg.structFor(k) != nil
}

// structFor returns the Go shape of k when Builtin handles it: the versions a default
// 1.37 apiserver serves (the defaulting functions of the alpha and beta versions are not
// reproduced).
func (reg *defaultingRegistry) structFor(k *schema.Kind) *goStruct {
	if !k.ServedByDefault {
		return nil
	}
	return reg.structs[k.SMDTypeName()]
}

// goShape is the Go type of a field: a pointer, slice, map or ResourceList of an element, a
// struct, or a scalar (see conformance/defaults/shapes_test.go for the letters).
type goShape struct {
	kind byte
	elem *goShape
	st   *goStruct
}

type goField struct {
	name      string
	omitEmpty bool
	omitZero  bool
	shape     *goShape
	marker    any // the `+default=` value, in decoded form; nil for none
}

type goStruct struct {
	name   string
	fields []*goField
	byName map[string]*goField
	fn     func(map[string]any) // the SetDefaults_ function of the type
	// defaults is true when defaulting can change something at or below this type.
	defaults bool
	// emptyBytes is true when an omitempty []byte field is at or below this type
	// (OmitEmptyBytes).
	emptyBytes bool
}

type defaultingRegistry struct {
	structs map[string]*goStruct
}

var loadDefaulting = sync.OnceValues(buildDefaulting)

func buildDefaulting() (*defaultingRegistry, error) {
	reg := &defaultingRegistry{structs: make(map[string]*goStruct, len(builtinShapes))}
	for name := range builtinShapes {
		reg.structs[name] = &goStruct{name: name, byName: map[string]*goField{}}
	}
	for name, spec := range builtinShapes {
		st := reg.structs[name]
		if spec == "" {
			continue
		}
		for _, f := range strings.Split(spec, ";") {
			parts := strings.SplitN(f, ":", 3)
			sh, err := reg.parseShape(parts[2])
			if err != nil {
				return nil, fmt.Errorf("schema: shape of %s.%s: %w", name, parts[0], err)
			}
			gf := &goField{name: parts[0], omitEmpty: strings.Contains(parts[1], "e"), omitZero: strings.Contains(parts[1], "z"), shape: sh}
			st.fields = append(st.fields, gf)
			st.byName[gf.name] = gf
		}
	}
	// `+default=` markers: the OpenAPI defaults of the catalogue that are not the zero values
	// openapi-gen writes for every non-pointer field.
	p, err := schema.BuiltinParser()
	if err != nil {
		return nil, err
	}
	for _, td := range p.Schema.Types {
		st := reg.structs[td.Name]
		if st == nil || td.Map == nil {
			continue
		}
		for _, sf := range td.Map.Fields {
			gf := st.byName[sf.Name]
			if gf == nil || sf.Default == nil {
				continue
			}
			if gf.shape.kind != 'p' && isZeroDefault(sf.Default) {
				continue
			}
			d := &bdecoder{reg: reg}
			v, ok := d.decodeValue(gf.shape, sf.Default, true)
			if ok && len(d.errs) == 0 {
				gf.marker = v
			}
		}
	}
	markEmptyBytes(reg)
	for name, fn := range builtinDefaulters() {
		if st := reg.structs[name]; st != nil {
			st.fn = fn
		}
	}
	// Mark the types below which defaulting does something.
	for changed := true; changed; {
		changed = false
		for _, st := range reg.structs {
			if st.defaults {
				continue
			}
			if st.fn != nil || shapeDefaults(st) {
				st.defaults, changed = true, true
			}
		}
	}
	return reg, nil
}

func shapeDefaults(st *goStruct) bool {
	for _, f := range st.fields {
		if f.marker != nil {
			return true
		}
		for s := f.shape; s != nil; s = s.elem {
			if (s.kind == 'L' && roundsResourceLists(st)) || (s.st != nil && s.st.defaults) {
				return true
			}
		}
	}
	return false
}

// roundsResourceLists reports whether the ResourceList fields of st are defaulted: the
// generated defaulters call SetDefaults_ResourceList for those of core/v1 types only (node.k8s.io
// RuntimeClass overhead is left as written).
func roundsResourceLists(st *goStruct) bool {
	return strings.HasPrefix(st.name, "io.k8s.api.core.v1.")
}

func isZeroDefault(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

func (reg *defaultingRegistry) parseShape(s string) (*goShape, error) {
	if strings.HasPrefix(s, "T:") {
		st := reg.structs[s[2:]]
		if st == nil {
			return nil, fmt.Errorf("unknown struct %s", s[2:])
		}
		return &goShape{kind: 'T', st: st}, nil
	}
	if len(s) > 2 && s[1] == '.' {
		e, err := reg.parseShape(s[2:])
		if err != nil {
			return nil, err
		}
		return &goShape{kind: s[0], elem: e}, nil
	}
	if len(s) != 1 || !strings.Contains("sijbfqtudIRBFAJ", s) {
		return nil, fmt.Errorf("bad shape %q", s)
	}
	return &goShape{kind: s[0]}, nil
}

// bdecoder is step 1: JSON (the object model) into the Go value, kept as the object model with
// the Go value's semantics: absent means zero for non-pointer scalars, non-pointer structs are
// always present, quantities are *quantity.
type bdecoder struct {
	reg   *defaultingRegistry
	errs  field.ErrorList
	stack []seg
	// unstructured reads numbers as runtime.DefaultUnstructuredConverter does (Options.Unstructured)
	// instead of as the JSON decoder does.
	unstructured bool
	// shareFieldsV1 keeps FieldsV1 values as the input's own (Options.ShareFieldsV1).
	shareFieldsV1 bool
	// keepEmptyBytes decodes an empty omitempty []byte field as emptyBytes
	// (Options.KeepEmptyBytes).
	keepEmptyBytes bool
}

// seg is one step of the path being decoded: a field name, a map key or a list index.
type seg struct {
	name  string
	index int
	kind  byte // 'f' field, 'k' key, 'i' index
}

// path builds the field.Path of the value being decoded; only errors need it.
func (d *bdecoder) path() field.Path {
	var p field.Path
	for i, s := range d.stack {
		switch {
		case i == 0 && s.kind == 'f':
			p = field.NewPath(s.name)
		case s.kind == 'f':
			p = p.Child(s.name)
		case s.kind == 'k':
			p = p.Key(s.name)
		default:
			p = p.Index(s.index)
		}
	}
	return p
}

func (d *bdecoder) fail(v any, msg string) {
	d.errs = append(d.errs, field.Invalid(d.path(), v, msg))
}

func (d *bdecoder) push(s seg) { d.stack = append(d.stack, s) }
func (d *bdecoder) pop()       { d.stack = d.stack[:len(d.stack)-1] }

func (d *bdecoder) decodeStruct(st *goStruct, v any) map[string]any {
	m, ok := v.(map[string]any)
	// At most the fields present, and the absent struct fields: sized once, not grown.
	out := make(map[string]any, len(m))
	if !ok {
		if v != nil {
			d.fail(v, "expected an object")
		}
	}
	for _, f := range st.fields {
		fv, present := m[f.name]
		if !present {
			if f.shape.kind == 'T' {
				out[f.name] = d.decodeStruct(f.shape.st, nil)
			}
			continue
		}
		d.push(seg{name: f.name, kind: 'f'})
		if dv, keep := d.decodeValue(f.shape, fv, false); keep {
			if d.keepEmptyBytes && f.omitEmpty && f.shape.kind == 'B' && dv == "" {
				dv = emptyBytes{}
			}
			out[f.name] = dv
		}
		d.pop()
	}
	return out
}

// decodeValue decodes v into shape. elem is true where the value cannot be absent (list items,
// map values, pointer targets): zero values are kept. It returns false when the Go value is the
// zero value of a non-pointer field (absent in the decoded form).
func (d *bdecoder) decodeValue(sh *goShape, v any, elem bool) (any, bool) {
	if v == nil {
		switch sh.kind {
		case 'T':
			return d.decodeStruct(sh.st, nil), true
		case 'p', 'l', 'm', 'L', 'B', 'R', 'F', 'A', 'J', 't', 'u':
			return nil, elem && sh.kind != 'p'
		case 'X', 'Z':
			return emptyOr{}, true
		}
		if elem {
			return zeroScalar(sh.kind), true
		}
		return nil, false
	}
	switch sh.kind {
	case 'p':
		return d.decodeValue(sh.elem, v, true)
	case 'T':
		return d.decodeStruct(sh.st, v), true
	case 'l':
		l, ok := v.([]any)
		if !ok {
			d.fail(v, "expected a list")
			return nil, false
		}
		out := make([]any, len(l))
		for i, x := range l {
			d.push(seg{index: i, kind: 'i'})
			out[i], _ = d.decodeValue(sh.elem, x, true)
			d.pop()
		}
		return out, true
	case 'm', 'L':
		m, ok := v.(map[string]any)
		if !ok {
			d.fail(v, "expected an object")
			return nil, false
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			d.push(seg{name: k, kind: 'k'})
			out[k], _ = d.decodeValue(sh.elem, x, true)
			d.pop()
		}
		return out, true
	case 's':
		s, ok := v.(string)
		if !ok {
			d.fail(v, "expected a string")
			return nil, false
		}
		return s, elem || s != ""
	case 'i', 'j':
		if d.unstructured {
			return d.convertInt(sh.kind, v, elem)
		}
		n, ok := asInt(v)
		if !ok || (sh.kind == 'j' && (n > math.MaxInt32 || n < math.MinInt32)) {
			d.fail(v, "expected an integer")
			return nil, false
		}
		return n, elem || n != 0
	case 'b':
		b, ok := v.(bool)
		if !ok {
			d.fail(v, "expected a boolean")
			return nil, false
		}
		return b, elem || b
	case 'f':
		switch x := v.(type) {
		case int64:
			return x, elem || x != 0
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), elem || x != 0
			}
			return x, true
		}
		d.fail(v, "expected a number")
		return nil, false
	case 'q':
		var s string
		switch x := v.(type) {
		case string:
			s = strings.TrimSpace(x)
		case int64:
			s = fmt.Sprint(x)
		case float64:
			s = formatJSONFloat(x)
		default:
			d.fail(v, "expected a quantity")
			return nil, false
		}
		q, err := parseQuantity(s)
		if err != nil {
			d.fail(v, err.Error())
			return nil, false
		}
		return q, true
	case 't', 'u':
		s, ok := v.(string)
		if !ok {
			d.fail(v, "expected a time")
			return nil, false
		}
		layout := time.RFC3339
		if sh.kind == 'u' {
			layout = "2006-01-02T15:04:05.000000Z07:00"
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			d.fail(v, err.Error())
			return nil, false
		}
		return t.UTC().Format(layout), true
	case 'd':
		s, ok := v.(string)
		if !ok {
			d.fail(v, "expected a duration")
			return nil, false
		}
		dur, err := time.ParseDuration(s)
		if err != nil {
			d.fail(v, err.Error())
			return nil, false
		}
		return dur.String(), elem || dur != 0
	case 'I':
		if d.unstructured {
			return d.unmarshalIntOrString(v, elem)
		}
		switch x := v.(type) {
		case string:
			return x, true
		case int64, float64:
			n, ok := asInt(x)
			if !ok || n > math.MaxInt32 || n < math.MinInt32 {
				d.fail(v, "expected an integer or a string")
				return nil, false
			}
			return n, elem || n != 0
		}
		d.fail(v, "expected an integer or a string")
		return nil, false
	case 'B':
		if l, ok := v.([]any); ok && d.unstructured {
			return d.convertBytes(l)
		}
		if l, ok := v.([]any); ok {
			// encoding/json also reads []byte from a list of byte values.
			b := make([]byte, len(l))
			for i, e := range l {
				if e == nil {
					continue
				}
				n, ok := asInt(e)
				if !ok || n < 0 || n > 255 {
					d.push(seg{index: i, kind: 'i'})
					d.fail(e, "expected a byte")
					d.pop()
					return nil, false
				}
				b[i] = byte(n)
			}
			return base64.StdEncoding.EncodeToString(b), true
		}
		s, ok := v.(string)
		if !ok {
			d.fail(v, "expected a base64 string")
			return nil, false
		}
		b, err := base64.StdEncoding.DecodeString(stripNewlines(s))
		if err != nil {
			d.fail(v, err.Error())
			return nil, false
		}
		return base64.StdEncoding.EncodeToString(b), true
	case 'X':
		// JSONSchemaPropsOrArray: a schema, a list of schemas; anything else (and an empty
		// list) is the zero value, written as null.
		switch x := v.(type) {
		case map[string]any:
			return d.decodeStruct(sh.elem.st, x), true
		case []any:
			if len(x) == 0 {
				return emptyOr{}, true
			}
			out := make([]any, len(x))
			for i, e := range x {
				d.push(seg{index: i, kind: 'i'})
				out[i], _ = d.decodeValue(sh.elem, e, true)
				d.pop()
			}
			return out, true
		}
		return emptyOr{}, true
	case 'Y':
		// JSONSchemaPropsOrBool: a schema or a boolean.
		switch x := v.(type) {
		case map[string]any:
			return d.decodeStruct(sh.elem.st, x), true
		case bool:
			return x, true
		}
		d.fail(v, "boolean or JSON schema expected")
		return nil, false
	case 'Z':
		// JSONSchemaPropsOrStringArray: a schema or a list of strings; anything else (and an
		// empty list) is the zero value, written as null.
		switch x := v.(type) {
		case map[string]any:
			return d.decodeStruct(sh.elem.st, x), true
		case []any:
			if len(x) == 0 {
				return emptyOr{}, true
			}
			out := make([]any, len(x))
			for i, e := range x {
				d.push(seg{index: i, kind: 'i'})
				out[i], _ = d.decodeValue(&goShape{kind: 's'}, e, true)
				d.pop()
			}
			return out, true
		}
		return emptyOr{}, true
	case 'F':
		if d.shareFieldsV1 {
			return v, true
		}
		return value.Clone(v), true
	default: // R, A, J: kept as written
		return value.Clone(v), true
	}
}

// emptyBytes is the decoded form of an omitempty []byte field holding an empty, non-nil slice
// under Options.KeepEmptyBytes: encoded as "".
type emptyBytes struct{}

// emptyOr is the zero value of apiextensions' JSONSchemaPropsOrArray and
// JSONSchemaPropsOrStringArray, which their MarshalJSON writes as null (a pointer to it is not
// omitted).
type emptyOr struct{}

func stripNewlines(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", "", "\n", "").Replace(s)
}

// formatJSONFloat writes f as encoding/json does (the raw bytes Quantity.UnmarshalJSON parses).
func formatJSONFloat(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Sprint(f)
	}
	return string(b)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 {
			return int64(x), true
		}
	}
	return 0, false
}

func zeroScalar(kind byte) any {
	switch kind {
	case 's':
		return ""
	case 'i', 'j', 'f', 'I':
		return int64(0)
	case 'b':
		return false
	case 'q':
		return &quantity{}
	case 'd':
		return "0s"
	}
	return nil
}

// defaultStruct is step 2 for one struct value: its SetDefaults_ function, then per field in
// Go order its `+default=` marker and the defaulting of what the field holds.
func (reg *defaultingRegistry) defaultStruct(st *goStruct, m map[string]any, now time.Time) {
	if !st.defaults || m == nil {
		return
	}
	if st.fn != nil {
		st.fn(m)
	}
	if st.name == "io.k8s.api.resource.v1.DeviceTaint" && !has(m, "timeAdded") {
		// SetDefaults_DeviceTaint: the apiserver's clock, truncated to the second (a zero Time
		// is written as null).
		m["timeAdded"] = nil
		if !now.IsZero() {
			m["timeAdded"] = now.Truncate(time.Second).UTC().Format(time.RFC3339)
		}
	}
	for _, f := range st.fields {
		v, ok := m[f.name]
		if f.marker != nil && (!ok || v == nil) {
			v, ok = value.Clone(f.marker), true
			m[f.name] = v
		}
		if ok && (f.shape.kind != 'L' || roundsResourceLists(st)) {
			reg.defaultValue(f.shape, v, now)
		}
	}
}

func (reg *defaultingRegistry) defaultValue(sh *goShape, v any, now time.Time) {
	switch sh.kind {
	case 'p':
		if v != nil {
			reg.defaultValue(sh.elem, v, now)
		}
	case 'T':
		if m, ok := v.(map[string]any); ok {
			reg.defaultStruct(sh.st, m, now)
		}
	case 'l':
		if sh.elem.kind == 'T' || sh.elem.kind == 'p' {
			for _, x := range v.([]any) {
				reg.defaultValue(sh.elem, x, now)
			}
		}
	case 'm':
		if sh.elem.kind == 'T' || sh.elem.kind == 'p' {
			for _, x := range v.(map[string]any) {
				reg.defaultValue(sh.elem, x, now)
			}
		}
	case 'L':
		// SetDefaults_ResourceList: every quantity rounded up to a multiple of 1m.
		m := v.(map[string]any)
		for k, x := range m {
			if q, ok := x.(*quantity); ok {
				m[k] = q.roundUpMilli()
			}
		}
	}
}

// encodeStruct is step 3: the decoded form written as encoding/json writes the Go value.
func (reg *defaultingRegistry) encodeStruct(st *goStruct, m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for _, f := range st.fields {
		v, ok := m[f.name]
		if _, empty := v.(emptyBytes); empty {
			out[f.name] = ""
			continue
		}
		if ok && v == nil && f.shape.kind != 'p' && f.shape.kind != 'A' && f.shape.kind != 'R' && f.shape.kind != 'F' && f.shape.kind != 'J' {
			ok = false
		}
		switch f.shape.kind {
		case 'p', 'l', 'm', 'L', 'B', 'A', 'F', 'J':
			if !ok || v == nil {
				if !f.omitEmpty {
					out[f.name] = nil
				}
				continue
			}
			if f.omitEmpty && f.shape.kind != 'p' && isEmptyCollection(v) {
				continue
			}
		case 's', 'i', 'j', 'b', 'f':
			if !ok {
				if f.omitEmpty {
					continue
				}
				v = zeroScalar(f.shape.kind)
			} else if f.omitEmpty && isZeroScalar(v) {
				continue
			}
		case 't', 'u':
			if !ok {
				if f.omitZero {
					continue
				}
				out[f.name] = nil
				continue
			}
		case 'q', 'd', 'I':
			if !ok {
				v = zeroScalar(f.shape.kind)
			}
		case 'R':
			if !ok {
				out[f.name] = nil
				continue
			}
		case 'T':
			if !ok {
				v = map[string]any{}
			}
		}
		out[f.name] = reg.encodeValue(f.shape, v)
	}
	return out
}

func isEmptyCollection(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case string:
		return x == ""
	}
	return false
}

func isZeroScalar(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case int64:
		return x == 0
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

func (reg *defaultingRegistry) encodeValue(sh *goShape, v any) any {
	if v == nil {
		if sh.kind == 'T' {
			return reg.encodeStruct(sh.st, map[string]any{})
		}
		return nil
	}
	switch sh.kind {
	case 'p':
		return reg.encodeValue(sh.elem, v)
	case 'T':
		return reg.encodeStruct(sh.st, v.(map[string]any))
	case 'l':
		l := v.([]any)
		out := make([]any, len(l))
		for i, x := range l {
			out[i] = reg.encodeValue(sh.elem, x)
		}
		return out
	case 'm', 'L':
		m := v.(map[string]any)
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = reg.encodeValue(sh.elem, x)
		}
		return out
	case 'q':
		return v.(*quantity).String()
	case 'X', 'Y', 'Z':
		switch x := v.(type) {
		case map[string]any:
			return reg.encodeStruct(sh.elem.st, x)
		case []any:
			el := sh.elem
			if sh.kind == 'Z' {
				el = &goShape{kind: 's'}
			}
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = reg.encodeValue(el, e)
			}
			return out
		case bool:
			return x
		}
		return nil
	}
	// R, F, A: the decoded copy is fresh and owned by the result (F the input's own under
	// Options.ShareFieldsV1).
	return v
}
