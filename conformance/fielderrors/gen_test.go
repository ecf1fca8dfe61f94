package fielderrors

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"unicode/utf8"

	reffield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/writepath/writepath/field"
)

// sampleSize is the number of cases each differential test runs: a fixed sample
// normally, >=100k with WRITEPATH_LONG=1.
func sampleSize(normal int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100_000
	}
	return normal
}

// gen draws test inputs from a seeded generator, so every run sees the same cases.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 0x5eed))} }

func (g *gen) intn(n int) int { return g.r.IntN(n) }

func (g *gen) pick(choices ...string) string { return choices[g.intn(len(choices))] }

// str draws strings that stress quoting, JSON escaping and rendering: ASCII,
// HTML-significant characters, quotes, control characters, unicode, invalid
// UTF-8, dots and brackets.
func (g *gen) str() string {
	switch g.intn(10) {
	case 0:
		return ""
	case 1:
		return g.pick("spec", "metadata", "containers", "image", "replicas", "labels", "app", "a.b", "x[0]", "<nil>")
	case 2:
		return g.pick("<script>", "a&b", "\"quoted\"", "back\\slash", "tab\there", "new\nline", "\u2028\u2029", "\x00\x01\x7f")
	case 3:
		return g.pick("日本語", "ключ", "émoji 🎉", "\U0001F600", "ß", "\ufffd", "Ω≈ç√")
	case 4:
		// invalid UTF-8
		return string([]byte{0xff, 0xfe, byte('a' + g.intn(26))})
	}
	n := g.intn(12)
	var b strings.Builder
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./[]{}:\"' <>&%\\é日"
	runes := []rune(alphabet)
	for range n {
		b.WriteRune(runes[g.intn(len(runes))])
	}
	return b.String()
}

// paths builds the same random path with writepath and with apimachinery.
func (g *gen) path() (field.Path, *reffield.Path) {
	if g.intn(12) == 0 {
		return field.Path{}, nil
	}
	var ours field.Path
	var ref *reffield.Path
	n := 1 + g.intn(6)
	for i := range n {
		switch op := g.intn(4); {
		case op == 0:
			idx := g.intn(40) - 4
			if g.intn(20) == 0 {
				idx = math.MaxInt - g.intn(3)
			}
			ours, ref = ours.Index(idx), ref.Index(idx)
		case op == 1:
			k := g.str()
			ours, ref = ours.Key(k), ref.Key(k)
		default:
			name := g.str()
			more := make([]string, g.intn(3))
			for j := range more {
				more[j] = g.str()
			}
			if i == 0 {
				ours, ref = field.NewPath(name, more...), reffield.NewPath(name, more...)
			} else {
				ours, ref = ours.Child(name, more...), ref.Child(name, more...)
			}
		}
	}
	return ours, ref
}

// stringer is a value with a String method whose JSON encoding fails, to reach
// ErrorBody's fmt.Stringer fallback.
type stringer struct{ C chan int }

func (s stringer) String() string { return "stringer!" }

// plain is a value without String whose JSON encoding fails, to reach the %#v
// fallback.
type plain struct {
	F func()
	N int
}

// tagged is a struct with JSON tags, rendered as JSON.
type tagged struct {
	Name  string `json:"name"`
	Port  int    `json:"port,omitempty"`
	Inner *tagged
}

// reason is a string type with a String method, which NotSupported prints.
type reason string

func (r reason) String() string { return "R(" + string(r) + ")" }

// value draws a bad value of any kind an apiserver may report.
func (g *gen) value(depth int) any {
	switch g.intn(22) {
	case 0:
		return nil
	case 1:
		return g.r.Int64() - math.MaxInt64/2
	case 2:
		return g.pick64()
	case 3:
		return int32(g.r.Int32() - math.MaxInt32/2)
	case 4:
		return g.float()
	case 5:
		return float32(g.float())
	case 6:
		return g.intn(2) == 0
	case 7, 8:
		return g.str()
	case 9:
		return g.intn(1000) - 500
	case 10:
		return uint64(math.MaxUint64) - uint64(g.intn(5))
	case 11, 12:
		if depth > 3 {
			return g.str()
		}
		m := map[string]any{}
		for range g.intn(4) {
			m[g.str()] = g.value(depth + 1)
		}
		return m
	case 13, 14:
		if depth > 3 {
			return int64(g.intn(10))
		}
		s := make([]any, g.intn(4))
		for i := range s {
			s[i] = g.value(depth + 1)
		}
		return s
	case 15:
		return []string{g.str(), g.str()}
	case 16:
		return map[string]int64{g.str(): int64(g.intn(9)), g.str(): -1}
	case 17:
		return stringer{}
	case 18:
		return plain{N: g.intn(9)}
	case 19:
		return tagged{Name: g.str(), Port: g.intn(3), Inner: &tagged{Name: g.str()}}
	case 20:
		return errors.New(g.str())
	default:
		return []byte(g.str())
	}
}

func (g *gen) pick64() int64 {
	return []int64{0, -1, 1, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1}[g.intn(7)]
}

func (g *gen) float() float64 {
	switch g.intn(8) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1 - 2*g.intn(2))
	case 2:
		return math.Copysign(0, -1)
	case 3:
		return 1e21 * float64(g.intn(100))
	case 4:
		return math.SmallestNonzeroFloat64
	case 5:
		return float64(g.intn(1000)) / 8
	default:
		return g.r.NormFloat64() * math.Pow(10, float64(g.intn(40)-20))
	}
}

var allTypes = []field.ErrorType{
	field.ErrorTypeNotFound, field.ErrorTypeRequired, field.ErrorTypeDuplicate, field.ErrorTypeInvalid,
	field.ErrorTypeNotSupported, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeTooMany,
	field.ErrorTypeTooFew, field.ErrorTypeInternal, field.ErrorTypeTypeInvalid, field.ErrorTypeTooShort,
}

// errPair builds the same random field error with writepath and with apimachinery:
// through a constructor, or as a struct literal with any type and value.
func (g *gen) errPair() (*field.Error, *reffield.Error, string) {
	p, rp := g.path()
	detail := ""
	if g.intn(3) > 0 {
		detail = g.str()
	}
	limit := g.intn(6) - 2
	if g.intn(10) == 0 {
		limit = math.MaxInt32
	}
	switch c := g.intn(16); c {
	case 0:
		v := g.value(0)
		return field.Invalid(p, v, detail), reffield.Invalid(rp, v, detail), "Invalid"
	case 1:
		v := g.value(0)
		return field.TypeInvalid(p, v, detail), reffield.TypeInvalid(rp, v, detail), "TypeInvalid"
	case 2:
		v := g.value(0)
		return field.NotFound(p, v), reffield.NotFound(rp, v), "NotFound"
	case 3:
		return field.Required(p, detail), reffield.Required(rp, detail), "Required"
	case 4:
		v := g.value(0)
		return field.Duplicate(p, v), reffield.Duplicate(rp, v), "Duplicate"
	case 5:
		v := g.value(0)
		valid := make([]string, g.intn(4))
		for i := range valid {
			valid[i] = g.str()
		}
		return field.NotSupported(p, v, valid), reffield.NotSupported(rp, v, valid), "NotSupported"
	case 6:
		v := g.value(0)
		valid := []reason{reason(g.str()), reason(g.str())}
		return field.NotSupported(p, v, valid), reffield.NotSupported(rp, v, valid), "NotSupported[Stringer]"
	case 7:
		return field.Forbidden(p, detail), reffield.Forbidden(rp, detail), "Forbidden"
	case 8:
		v := g.value(0)
		return field.TooLong(p, v, limit), reffield.TooLong(rp, v, limit), "TooLong"
	case 9:
		v := g.str()
		return field.TooLongCharacters(p, v, limit), reffield.TooLongCharacters(rp, v, limit), "TooLongCharacters"
	case 10:
		v := g.str()
		return field.TooShort(p, v, limit), reffield.TooShort(rp, v, limit), "TooShort"
	case 11:
		n := g.intn(20) - 5
		return field.TooMany(p, n, limit), reffield.TooMany(rp, n, limit), "TooMany"
	case 12:
		n := g.intn(20) - 5
		return field.TooFew(p, n, limit), reffield.TooFew(rp, n, limit), "TooFew"
	case 13:
		err := fmt.Errorf("wrapped: %w", errors.New(g.str()))
		return field.InternalError(p, err), reffield.InternalError(rp, err), "InternalError"
	default:
		// a struct literal: any type (also unknown ones), any value, the omit marker.
		typ := allTypes[g.intn(len(allTypes))]
		if g.intn(8) == 0 {
			typ = field.ErrorType(g.str())
		}
		v := g.value(0)
		var rv any = v
		if g.intn(6) == 0 {
			v, rv = field.OmitValueType{}, reffield.OmitValueType{}
		}
		fieldName := g.str()
		return &field.Error{Type: typ, Field: fieldName, BadValue: v, Detail: detail},
			&reffield.Error{Type: reffield.ErrorType(typ), Field: fieldName, BadValue: rv, Detail: detail},
			"literal"
	}
}

// listPair builds a random error list, with repeated errors, on both sides.
func (g *gen) listPair() (field.ErrorList, reffield.ErrorList) {
	n := g.intn(6)
	var ours field.ErrorList
	var ref reffield.ErrorList
	for range n {
		if len(ours) > 0 && g.intn(4) == 0 {
			i := g.intn(len(ours))
			ours, ref = append(ours, ours[i]), append(ref, ref[i])
			continue
		}
		o, r, _ := g.errPair()
		ours, ref = append(ours, o), append(ref, r)
	}
	return ours, ref
}

// printable shortens s for a failure message.
func printable(s string) string {
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if !utf8.ValidString(s) {
		return fmt.Sprintf("%q", s)
	}
	return s
}
