package codec

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// EncodeJSON encodes v as compact JSON, byte for byte what encoding/json's Marshal writes for
// the same value and therefore what the apiserver writes for an unstructured object (minus the
// trailing newline its json.Encoder adds): map keys sorted bytewise (but for the keys of a
// managedFields entry's fieldsV1, which are in the order the apiserver's field manager writes
// them: compareFieldsV1Keys), <, >, & and U+2028/U+2029
// escaped, invalid UTF-8 replaced by U+FFFD, int64 exact, float64 in encoding/json's format
// (1e21 and above, or below 1e-6, in exponent form). Values outside the object model, NaN,
// infinities and cycles yield a KindUnsupported error.
func EncodeJSON(v any) ([]byte, error) {
	// The scratch stacks start with room for a workload object's widest map and deepest path
	// instead of growing from empty (a reallocation at every doubling).
	e := encoder{buf: make([]byte, 0, 512), keys: make([]string, 0, 32), path: make([]pathStep, 0, 16)}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// EncodeJSONIndent encodes v as `kubectl get -o json` prints an object: encoding/json's
// MarshalIndent with a four-space indent, followed by a newline.
func EncodeJSONIndent(v any) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 1024), indent: "    "}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return append(e.buf, '\n'), nil
}

// WriteJSONIndent writes EncodeJSONIndent's bytes to w as they are produced, so that memory
// stays proportional to v's depth: indented output grows with the square of the depth (each
// line carries its level's indent), which a buffer holding it all would too. v is checked
// first: on a KindUnsupported error nothing is written.
func WriteJSONIndent(w io.Writer, v any) error {
	check := encoder{buf: make([]byte, 0, 1024), w: io.Discard}
	if err := check.value(v, 0); err != nil {
		return err
	}
	e := encoder{buf: make([]byte, 0, flushAt+1024), indent: "    ", w: w}
	if err := e.value(v, 0); err != nil {
		return err
	}
	e.buf = append(e.buf, '\n')
	e.flush()
	return e.werr
}

// flushAt is how much output an encoder with a writer buffers.
const flushAt = 32 << 10

// flush hands the buffered output to the writer (the first write error stops the writes).
func (e *encoder) flush() {
	if e.w == nil {
		return
	}
	if e.werr == nil {
		_, e.werr = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// EncodeYAML encodes v as `kubectl get -o yaml` prints an object: the JSON encoding converted
// by sigs.k8s.io/yaml's JSONToYAML (keys sorted, two-space indent, compact sequences).
func EncodeYAML(v any) ([]byte, error) {
	j, err := EncodeJSON(v)
	if err != nil {
		return nil, err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return nil, &Error{Kind: KindUnsupported, Detail: err.Error(), Err: err}
	}
	return y, nil
}

// cycleCheckDepth mirrors encoding/json: pointer cycles are only tracked below this depth.
const cycleCheckDepth = 1000

// maxEncodeDepth bounds the recursion on values built in code (encoding/json has no bound and
// exhausts the stack instead): ten times what any decoder, ours or the apiserver's, accepts.
const maxEncodeDepth = 10 * DefaultMaxDepth

type encoder struct {
	buf    []byte
	indent string
	// w, when set, receives the output whenever flushAt bytes are buffered; werr is its first
	// error.
	w    io.Writer
	werr error
	// seen holds the maps and lists on the current path once nesting passes cycleCheckDepth.
	seen map[any]struct{}
	// path is the position being encoded (a key, or an index when key is nil), rendered for an
	// error and to recognise a managedFields entry's fieldsV1.
	path []pathStep
	// fieldsV1 is set below a managedFields entry's fieldsV1, whose keys are written in the
	// apiserver's order (compareFieldsV1Keys), not bytewise.
	fieldsV1 bool
	// keys is scratch space for sorting map keys, used as a stack by nested maps.
	keys []string
}

type pathStep struct {
	key   *string
	index int
}

type sliceID struct {
	ptr *any
	n   int
}

func (e *encoder) fail(kind Kind, detail string) error {
	var b strings.Builder
	for i, s := range e.path {
		if s.key == nil {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(*s.key)
	}
	return &Error{Kind: kind, Path: b.String(), Detail: detail}
}

func (e *encoder) newline(depth int) {
	if e.w != nil && len(e.buf) >= flushAt {
		e.flush()
	}
	if e.indent == "" {
		return
	}
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, e.indent...)
	}
}

func (e *encoder) value(v any, depth int) error {
	switch t := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, t)
	case int64:
		e.buf = strconv.AppendInt(e.buf, t, 10)
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return e.fail(KindUnsupported, "json: unsupported value: "+strconv.FormatFloat(t, 'g', -1, 64))
		}
		e.buf = appendFloat(e.buf, t)
	case string:
		e.buf = appendString(e.buf, t)
	case []any:
		if t == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if depth >= maxEncodeDepth {
			return e.fail(KindUnsupported, fmt.Sprintf("json: unsupported value: nested deeper than %d levels", maxEncodeDepth))
		}
		if depth >= cycleCheckDepth && len(t) > 0 {
			id := sliceID{&t[0], len(t)}
			if err := e.enter(id, "[]interface {}"); err != nil {
				return err
			}
			defer delete(e.seen, id)
		}
		e.buf = append(e.buf, '[')
		for i, item := range t {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			e.path = append(e.path, pathStep{index: i})
			if err := e.value(item, depth+1); err != nil {
				return err
			}
			e.path = e.path[:len(e.path)-1]
		}
		if len(t) > 0 {
			e.newline(depth)
		}
		e.buf = append(e.buf, ']')
	case map[string]any:
		if t == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if depth >= maxEncodeDepth {
			return e.fail(KindUnsupported, fmt.Sprintf("json: unsupported value: nested deeper than %d levels", maxEncodeDepth))
		}
		if depth >= cycleCheckDepth {
			if err := e.enter(mapID(t), "map[string]interface {}"); err != nil {
				return err
			}
			defer delete(e.seen, mapID(t))
		}
		base := len(e.keys)
		for k := range t {
			e.keys = append(e.keys, k)
		}
		// Nested maps push their keys above ours and may move e.keys; this slice keeps
		// pointing at our (unchanged) keys either way.
		keys := e.keys[base:len(e.keys):len(e.keys)]
		fields := e.fieldsV1
		if fields && !onlyFieldNames(keys) {
			slices.SortFunc(keys, compareFieldsV1Keys)
		} else {
			slices.Sort(keys)
		}
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			e.buf = appendString(e.buf, k)
			e.buf = append(e.buf, ':')
			if e.indent != "" {
				e.buf = append(e.buf, ' ')
			}
			entering := !fields && k == "fieldsV1" && e.inManagedFieldsEntry()
			if entering {
				e.fieldsV1 = true
			}
			e.path = append(e.path, pathStep{key: &keys[i]})
			if err := e.value(t[k], depth+1); err != nil {
				e.keys = e.keys[:base]
				return err
			}
			e.path = e.path[:len(e.path)-1]
			if entering {
				e.fieldsV1 = false
			}
		}
		if len(keys) > 0 {
			e.newline(depth)
		}
		e.buf = append(e.buf, '}')
		e.keys = e.keys[:base]
	default:
		return e.fail(KindUnsupported, fmt.Sprintf("json: unsupported type: %T", v))
	}
	return nil
}

// inManagedFieldsEntry reports whether the map being written is an entry of a managedFields
// list (the path ends in managedFields[i]).
func (e *encoder) inManagedFieldsEntry() bool {
	n := len(e.path)
	return n >= 2 && e.path[n-1].key == nil && e.path[n-2].key != nil && *e.path[n-2].key == "managedFields"
}

// onlyFieldNames reports whether every key of a fieldsV1 map is "." or a field name ("f:"):
// compareFieldsV1Keys orders those bytewise ("." sorts before "f"), so a plain sort gives its
// order.
func onlyFieldNames(keys []string) bool {
	for _, k := range keys {
		if k != "." && !strings.HasPrefix(k, "f:") {
			return false
		}
	}
	return true
}

// compareFieldsV1Keys orders the keys of a fieldsV1 map as the apiserver writes them
// (structured-merge-diff's fieldpath.Set ToJSON, in PathElement order): "." first, then field
// names ("f:"), keys ("k:", field by field in name order, values compared as values: a port 80
// before 443), values ("v:") and indexes ("i:"). A key that is none of these sorts bytewise
// after them.
func compareFieldsV1Keys(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == ".":
		return -1
	case b == ".":
		return 1
	}
	ra, rb := fieldsKeyRank(a), fieldsKeyRank(b)
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case 1:
		return strings.Compare(a, b)
	case 2, 3:
		va, errA := parseFieldsKeyValue(a[2:])
		vb, errB := parseFieldsKeyValue(b[2:])
		if errA == nil && errB == nil {
			if c := compareSMDValues(va, vb); c != 0 {
				return c
			}
		}
	case 4:
		na, errA := strconv.Atoi(a[2:])
		nb, errB := strconv.Atoi(b[2:])
		if errA == nil && errB == nil && na != nb {
			if na < nb {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a, b)
}

// fieldsKeyRank is a fieldsV1 key's kind in PathElement order: 1 field, 2 key, 3 value, 4
// index, 5 anything else.
func fieldsKeyRank(k string) int {
	if len(k) >= 2 && k[1] == ':' {
		switch k[0] {
		case 'f':
			return 1
		case 'k':
			return 2
		case 'v':
			return 3
		case 'i':
			return 4
		}
	}
	return 5
}

func parseFieldsKeyValue(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// compareSMDValues is structured-merge-diff's value.Compare over decoded JSON: numbers first
// (compared as numbers), then strings, booleans (false first), lists (element by element, then
// length), maps (entry by entry in key order, then size), null last.
func compareSMDValues(a, b any) int {
	ra, rb := smdValueRank(a), smdValueRank(b)
	if ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case json.Number:
		y := b.(json.Number)
		if xi, err := x.Int64(); err == nil {
			if yi, err := y.Int64(); err == nil {
				return cmpOrdered(xi, yi)
			}
		}
		xf, _ := x.Float64()
		yf, _ := y.Float64()
		return cmpOrdered(xf, yf)
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compareSMDValues(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmpOrdered(len(x), len(y))
	case map[string]any:
		y := b.(map[string]any)
		kx, ky := sortedMapKeys(x), sortedMapKeys(y)
		for i := 0; i < len(kx) && i < len(ky); i++ {
			if c := strings.Compare(kx[i], ky[i]); c != 0 {
				return c
			}
			if c := compareSMDValues(x[kx[i]], y[ky[i]]); c != 0 {
				return c
			}
		}
		return cmpOrdered(len(kx), len(ky))
	}
	return 0
}

func smdValueRank(v any) int {
	switch v.(type) {
	case json.Number:
		return 0
	case string:
		return 1
	case bool:
		return 2
	case []any:
		return 3
	case map[string]any:
		return 4
	}
	return 5
}

func cmpOrdered[T int | int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mapID identifies a map by its header pointer, as encoding/json's cycle check does.
func mapID(m map[string]any) any {
	return reflect.ValueOf(m).Pointer()
}

func (e *encoder) enter(id any, typ string) error {
	if e.seen == nil {
		e.seen = map[any]struct{}{}
	}
	if _, ok := e.seen[id]; ok {
		return e.fail(KindUnsupported, "json: unsupported value: encountered a cycle via "+typ)
	}
	e.seen[id] = struct{}{}
	return nil
}

// appendFloat formats f like encoding/json (ES6 number-to-string).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString quotes s like encoding/json with HTML escaping on.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
