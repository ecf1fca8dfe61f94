package codec

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// sampleSize is n normally and at least 100k with WRITEPATH_LONG=1.
func sampleSize(n int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return max(100000, n)
	}
	return n
}

// gen produces seeded random JSON and YAML documents rich in the corners where decoders
// differ: number spellings, escapes, unicode, duplicates, YAML 1.1 scalars, anchors.
type gen struct {
	r *rand.Rand
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, 0x636f646563))}
}

func (g *gen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// ---- JSON text ----

func (g *gen) ws(b *bytes.Buffer) {
	if g.chance(0.7) {
		return
	}
	b.WriteString(g.pick(" ", "\n", "\t", "  ", "\r\n", " \n  "))
}

var jsonKeys = []string{
	"a", "b", "name", "value", "x", "", "é", "a.b", "x y", "<k>", "&", "1", "true", "null",
	"spec", "metadata", "labels", "日本", "😀", "k\u2028", "UPPER", "a-b_c", "$ref",
}

func (g *gen) jsonKey() string {
	if g.chance(0.8) {
		return strconv.Quote(jsonKeys[g.r.IntN(len(jsonKeys))])
	}
	return g.jsonString()
}

func (g *gen) jsonNumber() string {
	switch g.r.IntN(14) {
	case 0:
		return strconv.Itoa(g.r.IntN(2000) - 1000)
	case 1:
		return strconv.FormatInt(g.r.Int64()-math.MaxInt64/2, 10)
	case 2:
		return g.pick("9223372036854775807", "-9223372036854775808", "9223372036854775808",
			"-9223372036854775809", "18446744073709551615", "123456789012345678901234567890")
	case 3:
		return g.pick("-0", "0", "0.0", "-0.0", "1.0", "10.00", "1e3", "1E+3", "1e-3", "2E-5",
			"1e308", "1.7976931348623157e308", "5e-324", "1e-400", "4.9e-324")
	case 4:
		if g.chance(0.05) {
			return g.pick("1e400", "-1e400", "1e309")
		}
		return "3.14"
	case 5, 6, 7:
		f := math.Float64frombits(g.r.Uint64())
		for math.IsNaN(f) || math.IsInf(f, 0) {
			f = math.Float64frombits(g.r.Uint64())
		}
		return strconv.FormatFloat(f, g.pick("g", "e", "f")[0], -1, 64)
	case 8, 9:
		f := (g.r.Float64() - 0.5) * math.Pow(10, float64(g.r.IntN(40)-20))
		return strconv.FormatFloat(f, g.pick("g", "e", "f", "E")[0], -1, 64)
	default:
		return strconv.Itoa(g.r.IntN(100))
	}
}

var jsonStringPieces = []string{
	"a", "hello", " ", "world", "é", "日本語", "😀", "<", ">", "&", `\"`, `\\`, `\/`, `\b`, `\f`,
	`\n`, `\r`, `\t`, `\u00e9`, `\u2028`, `\u2029`, `\ud83d\ude00`, `\ud800`, `\udc00x`, `\u0000`,
	`\u001f`, `\u007f`, "\x7f", `\u0041`, "\xff", "\xc3", "'", "#", ":", "-", "yes", "1.0", "~",
}

func (g *gen) jsonString() string {
	var b strings.Builder
	b.WriteByte('"')
	for range g.r.IntN(6) {
		b.WriteString(jsonStringPieces[g.r.IntN(len(jsonStringPieces))])
	}
	b.WriteByte('"')
	return b.String()
}

func (g *gen) jsonValue(b *bytes.Buffer, depth int) {
	n := 9
	if depth >= 4 {
		n = 6
	}
	switch g.r.IntN(n) {
	case 0:
		b.WriteString("null")
	case 1:
		b.WriteString(g.pick("true", "false"))
	case 2, 3:
		b.WriteString(g.jsonNumber())
	case 4, 5:
		b.WriteString(g.jsonString())
	case 6:
		g.jsonArray(b, depth+1)
	default:
		g.jsonObject(b, depth+1, nil)
	}
}

func (g *gen) jsonArray(b *bytes.Buffer, depth int) {
	b.WriteByte('[')
	for i := range g.r.IntN(5) {
		if i > 0 {
			b.WriteByte(',')
		}
		g.ws(b)
		g.jsonValue(b, depth)
		g.ws(b)
	}
	b.WriteByte(']')
}

// jsonObject writes an object; head holds fixed leading members (apiVersion, kind).
func (g *gen) jsonObject(b *bytes.Buffer, depth int, head []string) {
	b.WriteByte('{')
	g.ws(b)
	var keys []string
	for i, h := range head {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(h)
	}
	for i := range g.r.IntN(6) {
		if i > 0 || len(head) > 0 {
			b.WriteByte(',')
		}
		g.ws(b)
		k := g.jsonKey()
		if len(keys) > 0 && g.chance(0.04) {
			k = keys[g.r.IntN(len(keys))] // a duplicate
		}
		keys = append(keys, k)
		b.WriteString(k)
		g.ws(b)
		b.WriteByte(':')
		g.ws(b)
		g.jsonValue(b, depth)
		g.ws(b)
	}
	b.WriteByte('}')
}

// jsonDoc is a top-level object the apiserver's serializer accepts (it needs a kind).
func (g *gen) jsonDoc() []byte {
	var b bytes.Buffer
	g.ws(&b)
	g.jsonObject(&b, 0, []string{`"apiVersion":"` + g.pick("v1", "apps/v1", "example.com/v1beta1") + `"`, `"kind":"` + g.pick("ConfigMap", "Widget") + `"`})
	g.ws(&b)
	if g.chance(0.01) {
		b.WriteString(g.pick("x", "}", ",", "{}")) // trailing garbage
	}
	return b.Bytes()
}

// ---- YAML text ----

// yamlScalars are plain scalars whose YAML 1.1 meaning differs from their text.
var yamlScalars = []string{
	"yes", "no", "on", "off", "y", "n", "Y", "true", "True", "TRUE", "false", "null", "~", "Null",
	"1", "-1", "+1", "0", "-0", "1.0", "1.", ".5", "1e3", "1E3", "1.5e+3", "0x1F", "0o17", "017", "0b101",
	"1_000", "12345678901234567890", "9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
	"1:20", "abc", "hello world", "a: b", "#notcomment", "x#y", "\"quoted \\u00e9 \\x41 \\t\"",
	"'single ''q'''", "\"\"", "''", "!!str 1", "!!float 1", "!!int \"3\"", "!!binary aGk=",
	"!!binary /w==", "\"<&>\"", "é", "😀", "\"\\u2028\"", "3.14", "-2.5e-10", "1e400", "100000000000000000000",
}

var yamlKeys = []string{"<<", "a", "b", "name", "value", "x", "é", "x y", "a.b", "spec", "items", "\"quoted\"", "'single'", "\"\"", "7", "42", "1.5", "yes", "no", "\"on\""}

func (g *gen) yamlScalar() string {
	if g.chance(0.003) {
		return g.pick(".inf", "-.inf", ".nan", ".NaN", "+.Inf")
	}
	if g.chance(0.3) {
		return strconv.Itoa(g.r.IntN(1000))
	}
	return yamlScalars[g.r.IntN(len(yamlScalars))]
}

func indent(b *bytes.Buffer, n int) {
	for range n {
		b.WriteByte(' ')
	}
}

func (g *gen) yamlFlow(b *bytes.Buffer, depth int) {
	switch {
	case depth < 3 && g.chance(0.3):
		b.WriteByte('[')
		for i := range g.r.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			g.yamlFlow(b, depth+1)
		}
		b.WriteByte(']')
	case depth < 3 && g.chance(0.3):
		b.WriteByte('{')
		used := map[string]bool{}
		for i := range g.r.IntN(4) {
			k := yamlKeys[g.r.IntN(len(yamlKeys))]
			if used[k] && !g.chance(0.1) {
				continue
			}
			used[k] = true
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			b.WriteString(": ")
			if k == "<<" {
				b.WriteString("{a: 2}")
				continue
			}
			g.yamlFlow(b, depth+1)
		}
		b.WriteByte('}')
	default:
		s := g.yamlScalar()
		if strings.ContainsAny(s, ":#") && !strings.HasPrefix(s, "\"") && !strings.HasPrefix(s, "'") {
			s = strconv.Quote(s)
		}
		b.WriteString(s)
	}
}

// yamlMap writes a block mapping at indentation ind.
func (g *gen) yamlMap(b *bytes.Buffer, ind, depth int, anchors *[]string) {
	used := map[string]bool{}
	n := 1 + g.r.IntN(5)
	for range n {
		k := yamlKeys[g.r.IntN(len(yamlKeys))]
		if used[k] && !g.chance(0.05) {
			continue
		}
		used[k] = true
		indent(b, ind)
		b.WriteString(k)
		b.WriteByte(':')
		if k == "<<" {
			// A merge key needs a map (or an alias of one) to be valid.
			b.WriteString(" {a: 1, x: " + g.yamlScalar() + "}\n")
			continue
		}
		g.yamlBlockValue(b, ind, depth, anchors)
	}
}

// yamlBlockValue writes the value after "key:" (or "-"), ending with a newline.
func (g *gen) yamlBlockValue(b *bytes.Buffer, ind, depth int, anchors *[]string) {
	if g.chance(0.08) {
		// The anchor becomes usable once its value is complete (an alias inside its own value
		// is an error both sides agree on, but it would make most documents fail).
		name := fmt.Sprintf("a%d_%d", len(*anchors), g.r.IntN(1000))
		defer func() { *anchors = append(*anchors, name) }()
		b.WriteString(" &" + name)
	} else if len(*anchors) > 0 && g.chance(0.05) {
		b.WriteString(" *" + (*anchors)[g.r.IntN(len(*anchors))] + "\n")
		return
	}
	switch r := g.r.IntN(10); {
	case depth < 4 && r < 2:
		b.WriteByte('\n')
		g.yamlMap(b, ind+2, depth+1, anchors)
	case depth < 4 && r < 4:
		b.WriteByte('\n')
		seqInd := ind + g.r.IntN(2)*2 // compact or indented sequences
		for range 1 + g.r.IntN(3) {
			indent(b, seqInd)
			b.WriteString("-")
			g.yamlBlockValue(b, seqInd+2, depth+1, anchors)
		}
	case r < 5:
		b.WriteString(g.pick(" |\n", " >\n", " |-\n"))
		for i := range 1 + g.r.IntN(3) {
			indent(b, ind+2)
			if i == 0 {
				// The first line fixes the block's indentation.
				b.WriteString(g.pick("line one", "x: y", "# not a comment"))
			} else {
				b.WriteString(g.pick("line one", "  more indented", "x: y", "# not a comment", ""))
			}
			b.WriteByte('\n')
		}
	default:
		b.WriteByte(' ')
		g.yamlFlow(b, depth)
		if g.chance(0.1) {
			b.WriteString(" # comment")
		}
		b.WriteByte('\n')
	}
}

// yamlDoc is a block-style YAML document with apiVersion and kind.
func (g *gen) yamlDoc() []byte {
	var b bytes.Buffer
	if g.chance(0.1) {
		b.WriteString("# leading comment\n")
	}
	b.WriteString("apiVersion: " + g.pick("v1", "apps/v1") + "\nkind: " + g.pick("ConfigMap", "Widget") + "\n")
	var anchors []string
	g.yamlMap(&b, 0, 0, &anchors)
	if g.chance(0.02) {
		b.WriteString(g.pick("bad: [1\n", "  misindented: x\n", "\t tab: x\n", "key: 'open\n"))
	}
	return b.Bytes()
}

// stream joins documents like a file given to kubectl -f.
func (g *gen) stream() []byte {
	var b bytes.Buffer
	if g.chance(0.3) {
		// A JSON stream: concatenated objects.
		for range 1 + g.r.IntN(4) {
			b.Write(g.jsonDocNoGarbage())
			b.WriteString(g.pick("\n", " ", "", "\n\n"))
		}
		return b.Bytes()
	}
	for i := range 1 + g.r.IntN(4) {
		if i > 0 || g.chance(0.3) {
			b.WriteString(g.pick("---\n", "--- # sep\n", "---\n\n", "---   \n"))
		}
		switch g.r.IntN(10) {
		case 0:
			b.WriteString("# only a comment\n")
		case 1:
			b.Write(g.jsonDocNoGarbage())
			b.WriteByte('\n')
		case 2:
			b.WriteString(g.listDoc())
		default:
			b.Write(g.yamlDoc())
		}
	}
	return b.Bytes()
}

func (g *gen) jsonDocNoGarbage() []byte {
	var b bytes.Buffer
	g.jsonObject(&b, 0, []string{`"apiVersion":"v1"`, `"kind":"` + g.pick("ConfigMap", "Widget") + `"`})
	return b.Bytes()
}

// listDoc is a List document whose items may lack apiVersion/kind.
func (g *gen) listDoc() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: " + g.pick("List", "ConfigMapList", "WidgetList") + "\nitems:\n")
	for i := range g.r.IntN(3) {
		switch g.r.IntN(3) {
		case 0:
			b.WriteString("- metadata: {name: item" + strconv.Itoa(i) + "}\n")
		case 1:
			b.WriteString("- kind: Secret\n  metadata: {name: s" + strconv.Itoa(i) + "}\n")
		default:
			b.WriteString("- apiVersion: v2\n  data: {k: " + g.yamlScalar() + "}\n")
		}
	}
	return b.String()
}

// ---- values for encoding ----

var valueStringRunes = []rune{'a', 'z', ' ', '<', '>', '&', '"', '\\', '/', '\n', '\t', '\b', '\f', '\r', 0, 0x1f, 0x7f,
	'é', '日', 0x2028, 0x2029, 0x1F600, 0xFFFD, 0x85, 0xA0, 0xFEFF, '#', ':', '-', '\'', '{', '['}

func (g *gen) valueString() string {
	var b strings.Builder
	for range g.r.IntN(8) {
		if g.chance(0.03) {
			b.WriteByte(byte(0x80 + g.r.IntN(0x80))) // invalid UTF-8
			continue
		}
		b.WriteRune(valueStringRunes[g.r.IntN(len(valueStringRunes))])
	}
	if g.chance(0.2) {
		return g.pick("yes", "no", "on", "null", "~", "1", "1.0", "0x10", "true", "", "2001-12-14", "- a", "a: b")
	}
	return b.String()
}

func (g *gen) value(depth int) any {
	n := 8
	if depth >= 4 {
		n = 6
	}
	switch g.r.IntN(n) {
	case 0:
		return nil
	case 1:
		return g.chance(0.5)
	case 2:
		switch g.r.IntN(4) {
		case 0:
			return g.r.Int64() - math.MaxInt64/2
		case 1:
			return int64(g.r.IntN(200) - 100)
		case 2:
			return []int64{math.MaxInt64, math.MinInt64, 0, 1 << 53, 1<<53 + 1}[g.r.IntN(5)]
		default:
			return int64(g.r.Uint64())
		}
	case 3:
		switch g.r.IntN(4) {
		case 0:
			f := math.Float64frombits(g.r.Uint64())
			for math.IsNaN(f) || math.IsInf(f, 0) {
				f = math.Float64frombits(g.r.Uint64())
			}
			return f
		case 1:
			return []float64{0, math.Copysign(0, -1), 1, 1e21, 1e20, 1e-6, 1e-7, 0.1, math.MaxFloat64, math.SmallestNonzeroFloat64, 1 << 63, 123456789.125}[g.r.IntN(12)]
		default:
			return (g.r.Float64() - 0.5) * math.Pow(10, float64(g.r.IntN(50)-25))
		}
	case 4, 5:
		return g.valueString()
	case 6:
		l := make([]any, g.r.IntN(4))
		for i := range l {
			l[i] = g.value(depth + 1)
		}
		if len(l) == 0 && g.chance(0.3) {
			return []any(nil)
		}
		return l
	default:
		return g.object(depth + 1)
	}
}

func (g *gen) object(depth int) map[string]any {
	if g.chance(0.05) {
		return map[string]any(nil)
	}
	m := map[string]any{}
	for range g.r.IntN(5) {
		k := jsonKeys[g.r.IntN(len(jsonKeys))]
		if g.chance(0.2) {
			k = g.valueString()
		}
		m[k] = g.value(depth)
	}
	return m
}
