package protobuf

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/quantity"
)

// Magic is the prefix of every Kubernetes protobuf document ("k8s" and a zero byte), followed
// by a runtime.Unknown message.
var Magic = []byte("k8s\x00")

// maxDepth bounds the nesting the codec follows (a JSONSchemaProps can nest without end).
const maxDepth = 10000

// Encode writes obj, a built-in object of the object model with apiVersion and kind, as
// k8s.io's protobuf serializer writes its typed form: Magic, then runtime.Unknown{typeMeta,
// raw, contentEncoding: "", contentType: ""} with raw the object's message. Fields are written
// in field number order; scalars that are not pointers always, pointers when set, map entries
// by sorted key, as the generated marshalers do. Quantities are written in canonical form;
// RawExtension, FieldsV1 and apiextensions JSON values as compact JSON with sorted keys. obj is
// not modified. An object of an unknown kind, or a value the typed decoder would refuse (a
// string where an integer goes, an integer beyond int32), is an error.
func Encode(obj map[string]any) ([]byte, error) {
	raw, apiVersion, kind, err := encodeRaw(obj)
	if err != nil {
		return nil, err
	}
	return envelope(apiVersion, kind, raw), nil
}

// EncodeRaw writes obj's message without the envelope (the raw serializer's output).
func EncodeRaw(obj map[string]any) ([]byte, error) {
	raw, _, _, err := encodeRaw(obj)
	return raw, err
}

func encodeRaw(obj map[string]any) ([]byte, string, string, error) {
	t, err := loadTable()
	if err != nil {
		return nil, "", "", err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	m := t.lookup(apiVersion, kind)
	if m == nil {
		return nil, "", "", fmt.Errorf("protobuf: no protobuf encoding for %q, kind %q", apiVersion, kind)
	}
	raw, err := encodeMessage(m, obj)
	return raw, apiVersion, kind, err
}

func envelope(apiVersion, kind string, raw []byte) []byte {
	var tm []byte
	tm = protowire.AppendTag(tm, 1, protowire.BytesType)
	tm = protowire.AppendString(tm, apiVersion)
	tm = protowire.AppendTag(tm, 2, protowire.BytesType)
	tm = protowire.AppendString(tm, kind)
	out := make([]byte, 0, len(Magic)+len(tm)+len(raw)+16)
	out = append(out, Magic...)
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, tm)
	if raw != nil {
		out = protowire.AppendTag(out, 2, protowire.BytesType)
		out = protowire.AppendBytes(out, raw)
	}
	out = protowire.AppendTag(out, 3, protowire.BytesType)
	out = protowire.AppendVarint(out, 0)
	out = protowire.AppendTag(out, 4, protowire.BytesType)
	out = protowire.AppendVarint(out, 0)
	return out
}

// EncodeWatchEvent writes one frame of an application/vnd.kubernetes.protobuf;stream=watch
// response: a 4-byte big-endian length, then metav1.WatchEvent{type, object: RawExtension{raw:
// the object's envelope}}. An ERROR event's object is a metav1.Status.
func EncodeWatchEvent(eventType string, obj map[string]any) ([]byte, error) {
	inner, err := Encode(obj)
	if err != nil {
		return nil, err
	}
	var ext []byte
	ext = protowire.AppendTag(ext, 1, protowire.BytesType)
	ext = protowire.AppendBytes(ext, inner)
	var ev []byte
	ev = protowire.AppendTag(ev, 1, protowire.BytesType)
	ev = protowire.AppendString(ev, eventType)
	ev = protowire.AppendTag(ev, 2, protowire.BytesType)
	ev = protowire.AppendBytes(ev, ext)
	out := make([]byte, 4, 4+len(ev))
	binary.BigEndian.PutUint32(out, uint32(len(ev)))
	return append(out, ev...), nil
}

// encoder writes in two passes over the same traversal: the first (sizing) adds up lengths and
// records every nested message's size in pre-order, the second appends, reading those sizes, so
// that encoding is linear in the output however deep the nesting.
type encoder struct {
	sizing bool
	n      int
	sizes  []int
	next   int
	buf    []byte
	depth  int
	// memo keeps, in traversal order, what the sizing pass computed that the writing pass
	// needs again (sorted map keys, canonical quantities, RawExtension JSON).
	memo     []any
	nextMemo int
}

// remember returns compute() in the sizing pass and the value it remembered in the writing pass.
func (e *encoder) remember(compute func() (any, error)) (any, error) {
	if e.sizing {
		v, err := compute()
		if err != nil {
			return nil, err
		}
		e.memo = append(e.memo, v)
		return v, nil
	}
	v := e.memo[e.nextMemo]
	e.nextMemo++
	return v, nil
}

func encodeMessage(m *message, obj map[string]any) ([]byte, error) {
	e := &encoder{sizing: true}
	if err := e.message(m, obj); err != nil {
		return nil, err
	}
	e.sizing = false
	e.buf = make([]byte, 0, e.n)
	if err := e.message(m, obj); err != nil {
		return nil, err
	}
	return e.buf, nil
}

func (e *encoder) tag(num int32, typ protowire.Type) {
	if e.sizing {
		e.n += protowire.SizeTag(protowire.Number(num))
		return
	}
	e.buf = protowire.AppendTag(e.buf, protowire.Number(num), typ)
}

func (e *encoder) varint(v uint64) {
	if e.sizing {
		e.n += protowire.SizeVarint(v)
		return
	}
	e.buf = protowire.AppendVarint(e.buf, v)
}

func (e *encoder) bytes(b []byte) {
	if e.sizing {
		e.n += protowire.SizeBytes(len(b))
		return
	}
	e.buf = protowire.AppendBytes(e.buf, b)
}

func (e *encoder) str(s string) {
	if e.sizing {
		e.n += protowire.SizeBytes(len(s))
		return
	}
	e.buf = protowire.AppendString(e.buf, s)
}

func (e *encoder) fixed64(v uint64) {
	if e.sizing {
		e.n += 8
		return
	}
	e.buf = protowire.AppendFixed64(e.buf, v)
}

// nested writes a length-delimited sub-message whose content body writes.
func (e *encoder) nested(num int32, body func() error) error {
	e.tag(num, protowire.BytesType)
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxDepth {
		return fmt.Errorf("protobuf: nesting deeper than %d", maxDepth)
	}
	if e.sizing {
		slot := len(e.sizes)
		e.sizes = append(e.sizes, 0)
		start := e.n
		if err := body(); err != nil {
			return err
		}
		size := e.n - start
		e.sizes[slot] = size
		e.n += protowire.SizeVarint(uint64(size))
		return nil
	}
	size := e.sizes[e.next]
	e.next++
	e.buf = protowire.AppendVarint(e.buf, uint64(size))
	return body()
}

// message writes the fields of m from obj (nil: the zero value).
func (e *encoder) message(m *message, v any) error {
	if m.Special != "" {
		return e.special(m, v)
	}
	obj, ok := v.(map[string]any)
	if v != nil && !ok {
		return typeError(m.Name, v)
	}
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Inline {
			if err := e.nested(f.Number, func() error { return e.message(f.msg, obj) }); err != nil {
				return err
			}
			continue
		}
		if err := e.field(f, obj[f.JSON]); err != nil {
			return fmt.Errorf("%s: %w", f.JSON, err)
		}
	}
	return nil
}

func (e *encoder) field(f *field, v any) error {
	switch {
	case f.Type == "map":
		return e.mapField(f, v)
	case f.Repeated:
		if v == nil {
			return nil
		}
		items, ok := v.([]any)
		if !ok {
			return typeError("array", v)
		}
		for i, item := range items {
			if err := e.single(f, item); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case f.Pointer && v == nil:
		return nil
	case f.Type == "bytes" && v == nil:
		return nil // a nil []byte is not written
	}
	return e.single(f, v)
}

// single writes one value of f's type (nil: its zero value).
func (e *encoder) single(f *field, v any) error {
	switch f.Type {
	case "message":
		return e.nested(f.Number, func() error { return e.message(f.msg, v) })
	case "bytes":
		b, err := decodeBase64(v)
		if err != nil {
			return err
		}
		e.tag(f.Number, protowire.BytesType)
		e.bytes(b)
		return nil
	case "string":
		s, ok := v.(string)
		if v != nil && !ok {
			return typeError("string", v)
		}
		e.tag(f.Number, protowire.BytesType)
		e.str(s)
		return nil
	case "float64":
		x, err := toFloat(v)
		if err != nil {
			return err
		}
		e.tag(f.Number, protowire.Fixed64Type)
		e.fixed64(math.Float64bits(x))
		return nil
	}
	x, err := scalarBits(f.Type, v)
	if err != nil {
		return err
	}
	e.tag(f.Number, protowire.VarintType)
	e.varint(x)
	return nil
}

// scalarBits is a varint field's value as the generated code writes it (int32 sign-extended).
func scalarBits(typ string, v any) (uint64, error) {
	if typ == "bool" {
		b, ok := v.(bool)
		if v != nil && !ok {
			return 0, typeError("bool", v)
		}
		if b {
			return 1, nil
		}
		return 0, nil
	}
	var n int64
	switch x := v.(type) {
	case nil:
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, typeError(typ, v)
		}
		n = int64(x)
	default:
		return 0, typeError(typ, v)
	}
	switch typ {
	case "int32":
		if n < math.MinInt32 || n > math.MaxInt32 {
			return 0, fmt.Errorf("value %d overflows int32", n)
		}
		return uint64(int64(int32(n))), nil
	case "uint32":
		if n < 0 || n > math.MaxUint32 {
			return 0, fmt.Errorf("value %d overflows uint32", n)
		}
	case "uint64":
		if n < 0 {
			return 0, fmt.Errorf("value %d overflows uint64", n)
		}
	}
	return uint64(n), nil
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	}
	return 0, typeError("number", v)
}

func decodeBase64(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, typeError("string", v)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("illegal base64 data: %w", err)
	}
	return b, nil
}

func (e *encoder) mapField(f *field, v any) error {
	if v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return typeError("object", v)
	}
	kv, _ := e.remember(func() (any, error) {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys, nil
	})
	for _, k := range kv.([]string) {
		val := obj[k]
		err := e.nested(f.Number, func() error {
			e.tag(1, protowire.BytesType)
			e.str(k)
			switch f.MapValue {
			case "string":
				s, ok := val.(string)
				if val != nil && !ok {
					return typeError("string", val)
				}
				e.tag(2, protowire.BytesType)
				e.str(s)
			case "bytes":
				b, err := decodeBase64(val)
				if err != nil {
					return err
				}
				if b != nil {
					e.tag(2, protowire.BytesType)
					e.bytes(b)
				}
			case "message":
				return e.nested(2, func() error { return e.message(f.mapMsg, val) })
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// special writes the messages whose JSON form is not their fields.
func (e *encoder) special(m *message, v any) error {
	switch m.Special {
	case "time", "microtime":
		if v == nil {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return typeError("string", v)
		}
		layout := time.RFC3339
		if m.Special == "microtime" {
			layout = microLayout
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			return err
		}
		if t.IsZero() {
			return nil
		}
		e.tag(1, protowire.VarintType)
		e.varint(uint64(t.Unix()))
		var nanos int64
		if m.Special == "microtime" {
			nanos = int64(time.Duration(t.Nanosecond()).Truncate(time.Microsecond))
		}
		e.tag(2, protowire.VarintType)
		e.varint(uint64(nanos))
		return nil
	case "quantity":
		s, err := e.remember(func() (any, error) { return canonicalQuantity(v) })
		if err != nil {
			return err
		}
		e.tag(1, protowire.BytesType)
		e.str(s.(string))
		return nil
	case "duration":
		var d time.Duration
		if v != nil {
			s, ok := v.(string)
			if !ok {
				return typeError("string", v)
			}
			var err error
			if d, err = time.ParseDuration(s); err != nil {
				return err
			}
		}
		e.tag(1, protowire.VarintType)
		e.varint(uint64(d))
		return nil
	case "intorstring":
		var typ, iv int64
		var sv string
		switch x := v.(type) {
		case nil:
		case string:
			typ, sv = 1, x
		default:
			bits, err := scalarBits("int32", v)
			if err != nil {
				return err
			}
			iv = int64(int32(bits))
		}
		e.tag(1, protowire.VarintType)
		e.varint(uint64(typ))
		e.tag(2, protowire.VarintType)
		e.varint(uint64(iv))
		e.tag(3, protowire.BytesType)
		e.str(sv)
		return nil
	case "rawextension", "fieldsv1", "json":
		if v == nil {
			return nil
		}
		raw, err := e.remember(func() (any, error) { return codec.EncodeJSON(v) })
		if err != nil {
			return err
		}
		e.tag(1, protowire.BytesType)
		e.bytes(raw.([]byte))
		return nil
	case "propsorbool":
		allows, schema := true, (*field)(nil)
		switch x := v.(type) {
		case nil:
			allows = false
		case bool:
			allows = x
		case map[string]any:
			schema = m.byNumber[2]
		default:
			return typeError("boolean or object", v)
		}
		e.tag(1, protowire.VarintType)
		if allows {
			e.varint(1)
		} else {
			e.varint(0)
		}
		if schema != nil {
			return e.single(schema, v)
		}
		return nil
	case "propsorarray", "propsorstringarray":
		switch x := v.(type) {
		case nil:
			return nil
		case map[string]any:
			return e.single(m.byNumber[1], x)
		case []any:
			f := m.byNumber[2]
			for i, item := range x {
				if err := e.single(f, item); err != nil {
					return fmt.Errorf("[%d]: %w", i, err)
				}
			}
			return nil
		}
		return typeError("array or object", v)
	case "items":
		return e.field(m.byNumber[1], v)
	}
	return fmt.Errorf("protobuf: unknown special %q", m.Special)
}

// canonicalQuantity is a quantity's string as resource.Quantity writes it after decoding v.
func canonicalQuantity(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "0", nil
	case string:
		q, err := quantity.Parse(x)
		if err != nil {
			return "", err
		}
		return q.String(), nil
	case int64, float64:
		b, err := codec.EncodeJSON(x)
		if err != nil {
			return "", err
		}
		q, err := quantity.Parse(string(b))
		if err != nil {
			return "", err
		}
		return q.String(), nil
	}
	return "", typeError("quantity", v)
}

// microLayout is metav1.MicroTime's JSON layout.
const microLayout = "2006-01-02T15:04:05.000000Z07:00"

func typeError(want string, v any) error {
	return fmt.Errorf("cannot encode %s as %s", codec.JSONKind(v), want)
}
