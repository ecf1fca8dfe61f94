// Package jsontext writes a JSON value as a client or a Go struct encoder might: object keys in
// a random order, random whitespace, numbers in random spellings and strings with random escapes
// — text whose bytes differ from encoding/json's while its value is the same. The differential
// tests of patched text (what kube-apiserver 1.37's patcher quotes) run on such text.
package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
)

// Write returns v (a value of encoding/json's model: nil, bool, float64, json.Number, string,
// []any, map[string]any) as JSON text spelled at random by rng.
func Write(rng *rand.Rand, v any) []byte {
	var b bytes.Buffer
	write(rng, &b, v)
	return b.Bytes()
}

func space(rng *rand.Rand, b *bytes.Buffer) {
	if rng.Intn(4) == 0 {
		b.WriteString([]string{" ", "\n", "\t", "  "}[rng.Intn(4)])
	}
}

func write(rng *rand.Rand, b *bytes.Buffer, v any) {
	space(rng, b)
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			space(rng, b)
			str(rng, b, k)
			space(rng, b)
			b.WriteByte(':')
			write(rng, b, x[k])
		}
		space(rng, b)
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			write(rng, b, e)
		}
		space(rng, b)
		b.WriteByte(']')
	case string:
		str(rng, b, x)
	case float64:
		if x == float64(int64(x)) && rng.Intn(3) == 0 {
			fmt.Fprintf(b, "%d.0", int64(x))
		} else if rng.Intn(4) == 0 {
			fmt.Fprintf(b, "%e", x)
		} else {
			out, _ := json.Marshal(x)
			b.Write(out)
		}
	default:
		out, _ := json.Marshal(x)
		b.Write(out)
	}
	space(rng, b)
}

// str writes s quoted, sometimes with its ASCII letters as \u escapes and without escaping
// what encoding/json escapes for HTML.
func str(rng *rand.Rand, b *bytes.Buffer, s string) {
	if rng.Intn(3) != 0 {
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(rng.Intn(2) == 0)
		_ = enc.Encode(s)
		b.Truncate(b.Len() - 1) // Encode's newline
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r < 0x80 && rng.Intn(3) == 0:
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
