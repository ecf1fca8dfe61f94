package protobuf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/quantity"
)

// ErrNoMagic is returned for data that does not start with Magic.
var ErrNoMagic = errors.New("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")

// Decode reads a Kubernetes protobuf document (Magic and runtime.Unknown) into the object
// model, as the apiserver's typed decode followed by its JSON encoding gives it: apiVersion and
// kind from the envelope, every field whose json tag has no omitempty present with its zero
// value when absent (null for pointers, slices, maps and times, "0" for quantities), integers as
// int64, integral floats as int64 (as after a JSON round trip). data is not modified; the result
// shares nothing with it.
func Decode(data []byte) (map[string]any, error) {
	if !bytes.HasPrefix(data, Magic) {
		return nil, ErrNoMagic
	}
	env, err := parse(data[len(Magic):], 0)
	if err != nil {
		return nil, err
	}
	var apiVersion, kind string
	var raw []byte
	tm, err := subFields(env, 1)
	if err != nil {
		return nil, err
	}
	apiVersion, _ = stringOf(tm.vals[1])
	kind, _ = stringOf(tm.vals[2])
	raw, _ = env.vals[2].([]byte)
	return decodeObject(apiVersion, kind, raw)
}

// DecodeRaw reads a message without the envelope, of the given apiVersion and kind.
func DecodeRaw(apiVersion, kind string, raw []byte) (map[string]any, error) {
	return decodeObject(apiVersion, kind, raw)
}

func decodeObject(apiVersion, kind string, raw []byte) (map[string]any, error) {
	t, err := loadTable()
	if err != nil {
		return nil, err
	}
	m := t.lookup(apiVersion, kind)
	if m == nil {
		if kind == "" {
			return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", "protobuf")
		}
		return nil, fmt.Errorf("no kind %q is registered for version %q", kind, apiVersion)
	}
	fs, err := parseTyped(m, raw, 0)
	if err != nil {
		return nil, err
	}
	v, err := render(m, fs)
	if err != nil {
		return nil, err
	}
	obj, _ := v.(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	obj["apiVersion"] = apiVersion
	obj["kind"] = kind
	return obj, nil
}

// ReadWatchEvent reads one length-prefixed frame of a protobuf watch stream from data: the
// event type, its object and the bytes after the frame.
func ReadWatchEvent(data []byte) (string, map[string]any, []byte, error) {
	if len(data) < 4 {
		return "", nil, nil, fmt.Errorf("protobuf watch frame: %w", errShort)
	}
	n := binary.BigEndian.Uint32(data)
	if uint64(n) > uint64(len(data)-4) {
		return "", nil, nil, fmt.Errorf("protobuf watch frame: %w", errShort)
	}
	frame, rest := data[4:4+n], data[4+n:]
	ev, err := parse(frame, 0)
	if err != nil {
		return "", nil, nil, err
	}
	typ, _ := stringOf(ev.vals[1])
	ext, err := subFields(ev, 2)
	if err != nil {
		return "", nil, nil, err
	}
	inner, _ := ext.vals[1].([]byte)
	obj, err := Decode(inner)
	return typ, obj, rest, err
}

var errShort = errors.New("unexpected EOF")

// fields is one decoded message before rendering: by field number, the last scalar, the
// appended repeated values, the merged sub-message, or the map entries, as gogo's generated
// Unmarshal keeps them.
type fields struct {
	vals map[int32]any
}

type repeated []any

type mapEntries struct {
	keys []string
	vals map[string]any
}

func stringOf(v any) (string, bool) {
	b, ok := v.([]byte)
	return string(b), ok
}

// subFields parses field num of fs (bytes) as a message of unknown type (empty when absent).
func subFields(fs *fields, num int32) (*fields, error) {
	b, _ := fs.vals[num].([]byte)
	return parse(b, 0)
}

// parse reads a message of unknown type: length-delimited fields are kept as bytes (a later
// occurrence replaces an earlier one), varints as uint64.
func parse(data []byte, depth int) (*fields, error) {
	fs := &fields{vals: map[int32]any{}}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil, wireError(n)
		}
		data = data[n:]
		switch typ {
		case protowire.BytesType:
			b, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return nil, wireError(n)
			}
			fs.vals[int32(num)] = append([]byte{}, b...)
			data = data[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return nil, wireError(n)
			}
			if typ == protowire.VarintType {
				v, _ := protowire.ConsumeVarint(data)
				fs.vals[int32(num)] = v
			}
			data = data[n:]
		}
	}
	return fs, nil
}

func wireError(n int) error {
	return fmt.Errorf("proto: %w", protowire.ParseError(n))
}

// parseTyped reads data as message m, merging into a fresh fields.
func parseTyped(m *message, data []byte, depth int) (*fields, error) {
	fs := &fields{vals: map[int32]any{}}
	return fs, fs.merge(m, data, depth)
}

func (fs *fields) merge(m *message, data []byte, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("protobuf: nesting deeper than %d", maxDepth)
	}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return wireError(n)
		}
		data = data[n:]
		f := fieldOf(m, int32(num))
		if f == nil {
			// Unknown fields are skipped, as the generated code does.
			n := protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return wireError(n)
			}
			data = data[n:]
			continue
		}
		rest, err := fs.mergeField(f, typ, data, depth)
		if err != nil {
			return err
		}
		data = rest
	}
	return nil
}

// fieldOf is m's field num; the hand-written specials have fixed layouts.
func fieldOf(m *message, num int32) *field {
	if f, ok := m.byNumber[num]; ok {
		return f
	}
	switch m.Special {
	case "time", "microtime":
		switch num {
		case 1:
			return &timeSeconds
		case 2:
			return &timeNanos
		}
	case "quantity":
		if num == 1 {
			return &quantityString
		}
	}
	return nil
}

var (
	timeSeconds    = field{Number: 1, Type: "int64"}
	timeNanos      = field{Number: 2, Type: "int32"}
	quantityString = field{Number: 1, Type: "string"}
)

func (fs *fields) mergeField(f *field, typ protowire.Type, data []byte, depth int) ([]byte, error) {
	wrongWire := func() error {
		return fmt.Errorf("proto: wrong wireType = %d for field %s", typ, f.JSON)
	}
	if f.Type == "map" {
		if typ != protowire.BytesType {
			return nil, wrongWire()
		}
		b, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return nil, wireError(n)
		}
		if err := fs.mapEntry(f, b, depth); err != nil {
			return nil, err
		}
		return data[n:], nil
	}
	switch f.Type {
	case "message":
		if typ != protowire.BytesType {
			return nil, wrongWire()
		}
		b, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return nil, wireError(n)
		}
		if f.Repeated {
			sub, err := parseTyped(f.msg, b, depth+1)
			if err != nil {
				return nil, err
			}
			r, _ := fs.vals[f.Number].(repeated)
			fs.vals[f.Number] = append(r, sub)
			return data[n:], nil
		}
		sub, _ := fs.vals[f.Number].(*fields)
		if sub == nil || f.msg.Special == "time" || f.msg.Special == "microtime" || f.msg.Special == "quantity" {
			// Time and Quantity unmarshal into a fresh value; generated messages merge.
			sub = &fields{vals: map[int32]any{}}
			fs.vals[f.Number] = sub
		}
		return data[n:], sub.merge(f.msg, b, depth+1)
	case "string", "bytes":
		if typ != protowire.BytesType {
			return nil, wrongWire()
		}
		b, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return nil, wireError(n)
		}
		var v any = append([]byte{}, b...)
		if f.Type == "string" {
			v = string(b)
		}
		if f.Repeated {
			r, _ := fs.vals[f.Number].(repeated)
			fs.vals[f.Number] = append(r, v)
		} else {
			fs.vals[f.Number] = v
		}
		return data[n:], nil
	}
	// Scalars: a varint (or fixed64 double), or for repeated fields a packed run of them.
	want := protowire.VarintType
	if f.Type == "float64" {
		want = protowire.Fixed64Type
	}
	one := func(b []byte) (any, int) {
		if want == protowire.Fixed64Type {
			v, n := protowire.ConsumeFixed64(b)
			return math.Float64frombits(v), n
		}
		v, n := protowire.ConsumeVarint(b)
		return scalarValue(f.Type, v), n
	}
	if typ == protowire.BytesType && f.Repeated {
		b, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return nil, wireError(n)
		}
		r, _ := fs.vals[f.Number].(repeated)
		for len(b) > 0 {
			v, m := one(b)
			if m < 0 {
				return nil, wireError(m)
			}
			r = append(r, v)
			b = b[m:]
		}
		fs.vals[f.Number] = r
		return data[n:], nil
	}
	if typ != want {
		return nil, wrongWire()
	}
	v, n := one(data)
	if n < 0 {
		return nil, wireError(n)
	}
	if f.Repeated {
		r, _ := fs.vals[f.Number].(repeated)
		fs.vals[f.Number] = append(r, v)
	} else {
		fs.vals[f.Number] = v
	}
	return data[n:], nil
}

// scalarValue is a varint as the generated code reads it into the Go field's type.
func scalarValue(typ string, v uint64) any {
	switch typ {
	case "bool":
		return v != 0
	case "int32":
		return int64(int32(v))
	case "uint32":
		return int64(uint32(v))
	case "uint64":
		if v > math.MaxInt64 {
			return float64(v)
		}
		return int64(v)
	}
	return int64(v)
}

func (fs *fields) mapEntry(f *field, data []byte, depth int) error {
	var key string
	var val any
	var valSeen bool
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return wireError(n)
		}
		data = data[n:]
		if (num == 1 || num == 2) && typ == protowire.BytesType {
			b, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return wireError(n)
			}
			data = data[n:]
			if num == 1 {
				key = string(b)
				continue
			}
			valSeen = true
			switch f.MapValue {
			case "string":
				val = string(b)
			case "bytes":
				val = append([]byte{}, b...)
			case "message":
				sub, err := parseTyped(f.mapMsg, b, depth+1)
				if err != nil {
					return err
				}
				val = sub
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, data)
		if n < 0 {
			return wireError(n)
		}
		data = data[n:]
	}
	if !valSeen {
		switch f.MapValue {
		case "string":
			val = ""
		case "bytes":
			val = []byte{}
		case "message":
			val = &fields{vals: map[int32]any{}}
		}
	}
	me, _ := fs.vals[f.Number].(*mapEntries)
	if me == nil {
		me = &mapEntries{vals: map[string]any{}}
		fs.vals[f.Number] = me
	}
	if _, ok := me.vals[key]; !ok {
		me.keys = append(me.keys, key)
	}
	me.vals[key] = val
	return nil
}

// render turns a decoded message into its JSON form in the object model.
func render(m *message, fs *fields) (any, error) {
	if fs == nil {
		fs = &fields{}
	}
	if m.Special != "" {
		return renderSpecial(m, fs)
	}
	obj := map[string]any{}
	if err := renderInto(obj, m, fs); err != nil {
		return nil, err
	}
	return obj, nil
}

func renderInto(obj map[string]any, m *message, fs *fields) error {
	for i := range m.Fields {
		f := &m.Fields[i]
		v, present := fs.vals[f.Number]
		if f.Inline {
			sub, _ := v.(*fields)
			if sub == nil {
				sub = &fields{}
			}
			if err := renderInto(obj, f.msg, sub); err != nil {
				return err
			}
			continue
		}
		if f.JSON == "" {
			continue
		}
		out, emit, err := renderField(f, v, present)
		if err != nil {
			return fmt.Errorf("%s: %w", f.JSON, err)
		}
		if emit && f.OmitZero && isZeroJSON(out) {
			emit = false
		}
		if emit {
			obj[f.JSON] = out
		}
	}
	return nil
}

// renderField gives a field's JSON value and whether encoding/json writes it.
func renderField(f *field, v any, present bool) (any, bool, error) {
	switch {
	case f.Type == "map":
		me, _ := v.(*mapEntries)
		if me == nil || len(me.keys) == 0 {
			return nil, !f.OmitEmpty, nil
		}
		out := make(map[string]any, len(me.keys))
		for _, k := range me.keys {
			val := me.vals[k]
			switch x := val.(type) {
			case []byte:
				out[k] = base64.StdEncoding.EncodeToString(x)
			case *fields:
				r, err := render(f.mapMsg, x)
				if err != nil {
					return nil, false, fmt.Errorf("%s: %w", k, err)
				}
				if r == nil && f.mapMsg.Special == "items" {
					// gogo unmarshals a map value into &ExtraValue{}: empty, not nil.
					r = []any{}
				}
				out[k] = r
			default:
				out[k] = x
			}
		}
		return out, true, nil
	case f.Repeated:
		r, _ := v.(repeated)
		if len(r) == 0 {
			return nil, !f.OmitEmpty, nil
		}
		out := make([]any, len(r))
		for i, item := range r {
			x, err := renderValue(f, item)
			if err != nil {
				return nil, false, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = x
		}
		return out, true, nil
	case !present && (f.Pointer || f.Type == "bytes"):
		return nil, !f.OmitEmpty, nil
	case !present:
		x, err := renderValue(f, nil)
		if err != nil {
			return nil, false, err
		}
		return x, !(f.OmitEmpty && isEmpty(f, x)), nil
	}
	x, err := renderValue(f, v)
	if err != nil {
		return nil, false, err
	}
	// A bytes field present with no bytes is the Go type's []byte{}, which encoding/json
	// leaves out but the object holds: it is kept as "" (Encode writes it back), as registry
	// keeps it (defaults.Options.KeepEmptyBytes).
	if f.OmitEmpty && !f.Pointer && f.Type != "bytes" && isEmpty(f, x) {
		return nil, false, nil
	}
	return x, true, nil
}

// isEmpty is encoding/json's omitempty test for a non-pointer value (structs are never empty;
// a named-slice message is a slice).
func isEmpty(f *field, x any) bool {
	switch f.Type {
	case "message":
		if f.msg.Special == "items" {
			return x == nil
		}
		return false
	case "bytes":
		s, _ := x.(string)
		return s == ""
	}
	switch y := x.(type) {
	case string:
		return y == ""
	case int64:
		return y == 0
	case float64:
		return y == 0
	case bool:
		return !y
	}
	return x == nil
}

// isZeroJSON reports whether a rendered value is its Go type's zero (omitzero; a zero
// metav1.Time renders as null).
func isZeroJSON(x any) bool {
	switch y := x.(type) {
	case nil:
		return true
	case string:
		return y == ""
	case int64:
		return y == 0
	case float64:
		return y == 0
	case bool:
		return !y
	}
	return false
}

// renderValue renders one value of f's type (nil: the zero value).
func renderValue(f *field, v any) (any, error) {
	switch f.Type {
	case "message":
		sub, _ := v.(*fields)
		return render(f.msg, sub)
	case "bytes":
		b, _ := v.([]byte)
		return base64.StdEncoding.EncodeToString(b), nil
	case "string":
		s, _ := v.(string)
		return s, nil
	case "bool":
		b, _ := v.(bool)
		return b, nil
	case "float64":
		x, _ := v.(float64)
		return jsonFloat(x)
	}
	n, _ := v.(int64)
	if x, ok := v.(float64); ok {
		return x, nil
	}
	return n, nil
}

// jsonFloat is x as it reads back from encoding/json's output: an integral value written
// without exponent (below 1e21) that fits int64 is an int64.
func jsonFloat(x float64) (any, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("json: unsupported value: %v", x)
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e21 && x >= math.MinInt64 && x < math.MaxInt64 {
		return int64(x), nil
	}
	return x, nil
}

func renderSpecial(m *message, fs *fields) (any, error) {
	switch m.Special {
	case "time", "microtime":
		if len(fs.vals) == 0 {
			return nil, nil
		}
		secs, _ := fs.vals[1].(int64)
		if m.Special == "time" {
			t := time.Unix(secs, 0)
			if t.IsZero() {
				return nil, nil
			}
			return t.UTC().Format(time.RFC3339), nil
		}
		nanos, _ := fs.vals[2].(int64)
		t := time.Unix(secs, int64(time.Duration(nanos).Truncate(time.Microsecond)))
		if t.IsZero() {
			return nil, nil
		}
		return t.UTC().Format(microLayout), nil
	case "quantity":
		s, ok := fs.vals[1].(string)
		if !ok {
			return "0", nil
		}
		q, err := quantity.Parse(s)
		if err != nil {
			return nil, err
		}
		return q.String(), nil
	case "duration":
		n, _ := fs.vals[1].(int64)
		return time.Duration(n).String(), nil
	case "intorstring":
		typ, _ := fs.vals[1].(int64)
		switch typ {
		case 0:
			n, _ := fs.vals[2].(int64)
			return n, nil
		case 1:
			s, _ := fs.vals[3].(string)
			return s, nil
		}
		return nil, errors.New("impossible IntOrString.Type")
	case "rawextension", "fieldsv1", "json":
		raw, ok := fs.vals[1].([]byte)
		if !ok || (m.Special == "json" && len(raw) == 0) {
			return nil, nil
		}
		if m.Special == "fieldsv1" && len(raw) == 0 {
			return nil, nil
		}
		// encoding/json accepts a MarshalJSON result that is one valid JSON value.
		trimmed := bytes.TrimLeft(raw, " \t\r\n")
		v, err := codec.Options{Format: codec.FormatJSON}.DecodeValue(trimmed)
		if err != nil {
			return nil, fmt.Errorf("json: error calling MarshalJSON for type %s: invalid character in raw value", m.Name)
		}
		return v, nil
	case "propsorbool":
		if sub, ok := fs.vals[2].(*fields); ok {
			return render(m.byNumber[2].msg, sub)
		}
		b, _ := fs.vals[1].(bool)
		return b, nil
	case "propsorarray":
		if r, ok := fs.vals[2].(repeated); ok && len(r) > 0 {
			return renderRepeated(m.byNumber[2], r)
		}
		if sub, ok := fs.vals[1].(*fields); ok {
			return render(m.byNumber[1].msg, sub)
		}
		return nil, nil
	case "propsorstringarray":
		if r, ok := fs.vals[2].(repeated); ok && len(r) > 0 {
			return renderRepeated(m.byNumber[2], r)
		}
		if sub, ok := fs.vals[1].(*fields); ok {
			return render(m.byNumber[1].msg, sub)
		}
		return nil, nil
	case "items":
		r, _ := fs.vals[1].(repeated)
		if len(r) == 0 {
			return nil, nil
		}
		return renderRepeated(m.byNumber[1], r)
	}
	return nil, fmt.Errorf("protobuf: unknown special %q", m.Special)
}

func renderRepeated(f *field, r repeated) (any, error) {
	out := make([]any, len(r))
	for i, item := range r {
		x, err := renderValue(f, item)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}
