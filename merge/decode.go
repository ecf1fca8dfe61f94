package merge

import (
	"strconv"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
)

// DecodeFast decodes a patch body as ApplyStrategic decodes it in its common case
// (decodeObjectFast): a well-formed JSON object without duplicate keys decodes to the map
// the reference decoder yields; anything else answers ok false, and the caller decodes it
// another way. The result is the caller's.
func DecodeFast(data []byte) (map[string]any, bool) { return decodeObjectFast(data) }

// decodeObjectFast decodes a JSON object exactly as
// kjson.UnmarshalCaseSensitivePreserveInts decodes it into a map[string]any
// (the apiserver's patch decoder): objects as map[string]any, arrays as
// []any grown by append from make([]any, 0) (capacities included: the
// strategic merge reproduces the reference's in-place slice operations),
// integers without "." that fit as int64, other numbers as float64, strings
// unquoted by the same decoder. It handles the common, well-formed case in
// one pass without reflection; it gives up (ok false) on anything else — a
// top level that is not an object, any syntax error, a number out of float64
// range, a duplicate key, nesting deeper than maxFastDepth — and the caller
// then runs the reference decoder, which yields the value or the error. A
// document without duplicate keys has no strict-decoding errors (for a map
// there are no unknown fields), so a successful fast decode also stands for
// kjson.UnmarshalStrict's.
func decodeObjectFast(data []byte) (map[string]any, bool) {
	d := fastDecoder{data: data}
	if len(data) <= sharedTextMax {
		// Keys and plain string values are substrings of one copy of the
		// input: one allocation instead of one per string. The strings a
		// result keeps keep that copy alive, so only for small bodies.
		d.text = string(data)
	}
	d.skipSpace()
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return nil, false
	}
	m, ok := d.object()
	if !ok {
		return nil, false
	}
	d.skipSpace()
	if d.i != len(d.data) {
		return nil, false
	}
	return m, true
}

// sharedTextMax is the largest body whose strings share one copy of it.
const sharedTextMax = 64 << 10

// maxFastDepth bounds the fast decoder's recursion; deeper documents go to
// the reference decoder (which refuses nesting beyond 10,000).
const maxFastDepth = 1000

type fastDecoder struct {
	data  []byte
	text  string // data as a string, or "" (strings copied one by one)
	i     int
	depth int
}

func (d *fastDecoder) skipSpace() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) value() (any, bool) {
	d.skipSpace()
	if d.i >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.i]; c {
	case '{':
		m, ok := d.object()
		return m, ok
	case '[':
		s, ok := d.array()
		return s, ok
	case '"':
		s, ok := d.str()
		return s, ok
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
	}
	return nil, false
}

func (d *fastDecoder) literal(lit string) bool {
	if len(d.data)-d.i < len(lit) || string(d.data[d.i:d.i+len(lit)]) != lit {
		return false
	}
	d.i += len(lit)
	// What follows is checked by the caller: a delimiter, space or the end.
	return true
}

func (d *fastDecoder) object() (map[string]any, bool) {
	d.depth++
	if d.depth > maxFastDepth {
		return nil, false
	}
	d.i++ // {
	m := map[string]any{}
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		d.depth--
		return m, true
	}
	for {
		d.skipSpace()
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.skipSpace()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		m[k] = v
		d.skipSpace()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *fastDecoder) array() ([]any, bool) {
	d.depth++
	if d.depth > maxFastDepth {
		return nil, false
	}
	d.i++ // [
	// As encoding/json's arrayInterface builds it.
	s := make([]any, 0)
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		d.depth--
		return s, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		s = append(s, v)
		d.skipSpace()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return s, true
		default:
			return nil, false
		}
	}
}

// str decodes the string starting at d.i (a quote). Plain ASCII and valid
// UTF-8 are taken as they are; a string with escapes or invalid UTF-8 is
// unquoted by the reference decoder itself.
func (d *fastDecoder) str() (string, bool) {
	start := d.i
	d.i++
	plain := true
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			if plain {
				if d.text == "" {
					return string(d.data[start+1 : d.i-1]), true
				}
				return d.text[start+1 : d.i-1], true
			}
			var s string
			if err := kjson.UnmarshalCaseSensitivePreserveInts(d.data[start:d.i], &s); err != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRune(d.data[d.i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			d.i += size
		}
	}
	return "", false
}

// number decodes a JSON number (RFC 8259 grammar) as the reference's
// PreserveInts does: without "." and within int64, an int64; else float64.
func (d *fastDecoder) number() (any, bool) {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	if d.i >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.i]; {
	case c == '0':
		d.i++
	case c >= '1' && c <= '9':
		for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
			d.i++
		}
	default:
		return nil, false
	}
	intEnd := d.i
	hasDot := false
	if d.i < len(d.data) && d.data[d.i] == '.' {
		hasDot = true
		d.i++
		if !d.digits() {
			return nil, false
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return nil, false
		}
	}
	tok := d.data[start:d.i]
	if intEnd == d.i && len(tok) <= 18 {
		// At most 18 characters: always within int64.
		neg := tok[0] == '-'
		digits := tok
		if neg {
			digits = tok[1:]
		}
		var n int64
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n, true
	}
	s := string(tok)
	if !hasDot {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

func (d *fastDecoder) digits() bool {
	start := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}
