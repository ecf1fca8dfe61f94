package defaults

import (
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/writepath/writepath/field"
)

// Options.Unstructured: Builtin for an object the apiserver holds as
// unstructured content and converts to the Go type with runtime.DefaultUnstructuredConverter:
// the object server-side apply merges (the field manager's conversion to the versioned type,
// structuredMergeManager.Apply) and a strategic merge patch's result. Only numbers are read
// differently from a JSON body, as the converter's reflection reads them (recorded from
// kube-apiserver 1.37 in testdata/apply/realcluster-numbers):
//
//   - an int64 in an int32 field is truncated to its low 32 bits (4294967297 is stored as 1,
//     2147483648 as -2147483648, which validation then sees);
//   - an integral float64 in an integer field is converted through int64, a float beyond
//     int64's range giving math.MinInt64 as on amd64, where the recorded server runs (1e30 in
//     an int32 field is 0); a float64 with a fraction fails with "cannot convert float64 to
//     int32" (or int64); an int64 keeps every digit;
//   - an IntOrString is read by its UnmarshalJSON from the value's JSON text: no wrapping, an
//     int32 range check worded by encoding/json ("json: cannot unmarshal number 4294967376
//     into Go value of type int32"), a float64 written as encoding/json writes it
//     (9223372036854776000, 1e+21);
//   - anything else in an integer field fails with "unrecognized type: int32" (or int64);
//   - a []byte field given as a list of numbers takes each one's low 8 bits (256 is 0, -1 is
//     255), where the JSON decoder wants 0 to 255.
//
// Errors are *field.Error values whose Detail is the converter's text, as the apiserver puts it
// behind "unable to convert unstructured object to <gvk>: ". obj is not modified.

// goIntName is the Go type of an integer shape, as reflect names it in the converter's errors.
func goIntName(kind byte) string {
	if kind == 'j' {
		return "int32"
	}
	return "int64"
}

// floatToInt64 is Go's float64 to int64 conversion on amd64: exact for integral values in
// range, math.MinInt64 (the CPU's "integer indefinite" value) outside it. The Go specification
// leaves out-of-range conversions to the implementation, so it is spelled out here.
func floatToInt64(f float64) int64 {
	if f >= -(1<<63) && f < 1<<63 {
		return int64(f)
	}
	return math.MinInt64
}

// convertInt reads v into an int64 (kind 'i') or int32 ('j') field as
// runtime.DefaultUnstructuredConverter does: reflect's Convert between integer kinds (which
// truncates) and from integral floats.
func (d *bdecoder) convertInt(kind byte, v any, elem bool) (any, bool) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) {
			d.fail(v, "cannot convert float64 to "+goIntName(kind))
			return nil, false
		}
		n = floatToInt64(x)
	default:
		d.fail(v, "unrecognized type: "+goIntName(kind))
		return nil, false
	}
	if kind == 'j' {
		n = int64(int32(n))
	}
	return n, elem || n != 0
}

// unmarshalIntOrString reads v into an IntOrString as the converter does for a type with its
// own UnmarshalJSON: encoding/json writes v, IntOrString.UnmarshalJSON reads a string or an
// int32.
func (d *bdecoder) unmarshalIntOrString(v any, elem bool) (any, bool) {
	var text string
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		text = strconv.FormatInt(x, 10)
	case float64:
		text = formatJSONFloat(x)
	case bool:
		d.fail(v, "json: cannot unmarshal bool into Go value of type int32")
		return nil, false
	case map[string]any:
		d.fail(v, "json: cannot unmarshal object into Go value of type int32")
		return nil, false
	case []any:
		d.fail(v, "json: cannot unmarshal array into Go value of type int32")
		return nil, false
	default:
		d.fail(v, "expected an integer or a string")
		return nil, false
	}
	// encoding/json reads a number into an int32 with ParseInt and a range check: a fraction
	// or an exponent is as much an error as an overflow.
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		d.fail(v, "json: cannot unmarshal number "+text+" into Go value of type int32")
		return nil, false
	}
	return n, elem || n != 0
}

// convertBytes reads a list into a []byte field as the converter does, element by element into
// uint8 (reflect's Convert: the low 8 bits; null is 0), and gives the base64 text the field
// encodes to.
func (d *bdecoder) convertBytes(l []any) (any, bool) {
	b := make([]byte, len(l))
	for i, e := range l {
		var n int64
		switch x := e.(type) {
		case nil:
			continue
		case int64:
			n = x
		case float64:
			if x != math.Trunc(x) {
				d.push(seg{index: i, kind: 'i'})
				d.fail(e, "cannot convert float64 to uint8")
				d.pop()
				return nil, false
			}
			n = floatToInt64(x)
		default:
			d.push(seg{index: i, kind: 'i'})
			d.fail(e, "unrecognized type: uint8")
			d.pop()
			return nil, false
		}
		b[i] = byte(n)
	}
	return base64.StdEncoding.EncodeToString(b), true
}

// ConverterCause is the text runtime.DefaultUnstructuredConverter gives for err, an error of
// Builtin or ForKind with Options.Unstructured (a value that does not decode): a type's own
// UnmarshalJSON error as it is (quantities, times), the base64 decoder's behind "error decoding
// from json: " ([]byte fields). The field manager quotes it after "unable to convert
// unstructured object to <gvk>: ".
func ConverterCause(err error) string {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err.Error()
	}
	if strings.HasPrefix(fe.Detail, "illegal base64 data") {
		return "error decoding from json: " + fe.Detail
	}
	return fe.Detail
}
