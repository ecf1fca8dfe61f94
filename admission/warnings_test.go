package admission_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/admission"
)

func rep(s string, n int) string { return strings.Repeat(s, n) }

func TestResponseWarnings(t *testing.T) {
	w256 := func(c string) string { return rep(c, 256) }
	sixteen := make([]string, 16) // 16 × 256 = 4096 runes: exactly the limit
	for i := range sixteen {
		sixteen[i] = w256(string(rune('a' + i)))
	}
	cases := []struct {
		name string
		in   []string
		want []string
	}{
		{"nothing", nil, nil},
		{"empty texts are dropped", []string{"", "a", ""}, []string{"a"}},
		{"duplicates are dropped, order kept", []string{"b", "a", "b", "c", "a"}, []string{"b", "a", "c"}},
		{"a control character drops the text", []string{"line\nbreak", "tab\there", "ok"}, []string{"ok"}},
		{"invalid UTF-8 drops the text", []string{"bad \xff byte", "ok"}, []string{"ok"}},
		{"quotes and backslashes are kept", []string{`say "hi" \ bye`}, []string{`say "hi" \ bye`}},
		{"one text of exactly 4096 runes is written whole", []string{rep("x", 4096)}, []string{rep("x", 4096)}},
		{"one text of 4097 runes is cut to 256", []string{rep("x", 4097)}, []string{rep("x", 256)}},
		{"4096 multi-byte runes are within the limit", []string{rep("é", 4096)}, []string{rep("é", 4096)}},
		{"4097 multi-byte runes are cut on a rune boundary", []string{rep("é", 4097)}, []string{rep("é", 256)}},
		{"4-byte runes count as one", []string{rep("😀", 4000), rep("😀", 96)}, []string{rep("😀", 4000), rep("😀", 96)}},
		{"sixteen texts of 256 runes fill the limit exactly", sixteen, sixteen},
		{"a 17th text turns truncation on, written past the limit",
			append(append([]string{}, sixteen...), "q"), append(append([]string{}, sixteen...), "q")},
		{"past the limit while truncating, later texts are dropped",
			append(append([]string{}, sixteen...), "q", "r"), append(append([]string{}, sixteen...), "q")},
		{"earlier texts are cut when truncation begins",
			[]string{rep("a", 300), rep("b", 3796), "c"}, []string{rep("a", 256), rep("b", 256), "c"}},
		{"while truncating and under the limit, long texts are cut and written",
			[]string{rep("a", 4000), rep("b", 100), rep("c", 300), "d"},
			[]string{rep("a", 256), rep("b", 100), rep("c", 256), "d"}},
		{"duplicates are found on whole texts, before truncation",
			[]string{rep("a", 300) + "1", rep("a", 300) + "2", rep("z", 4000)},
			[]string{rep("a", 256), rep("a", 256), rep("z", 256)}},
		{"a duplicate of a text cut earlier is still dropped",
			[]string{rep("a", 300), rep("b", 4000), rep("a", 300)}, []string{rep("a", 256), rep("b", 256)}},
		{"while truncating, a long invalid text is cut and written (bad bytes as U+FFFD)",
			[]string{rep("x", 4000), rep("y", 200), rep("\xff", 300)}, []string{rep("x", 256), rep("y", 200), rep("\uFFFD", 256)}},
		{"before truncation, a long invalid text is dropped and triggers nothing",
			[]string{rep("x", 4000), rep("\xff", 300)}, []string{rep("x", 4000)}},
		{"a dropped invalid text counts as recorded",
			[]string{"bad\x01", "bad\x01", "ok"}, []string{"ok"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]string(nil), tc.in...)
			got := admission.ResponseWarnings(tc.in)
			assert.Equal(t, tc.want, got, "ResponseWarnings(%d texts)", len(tc.in))
			assert.Equal(t, in, tc.in, "input not modified")
		})
	}
}

func FuzzResponseWarnings(f *testing.F) {
	f.Add("a", "a", 1, 300)
	f.Add("é", "\xff", 4097, 10)
	f.Add("x\n", "😀", 256, 257)
	f.Fuzz(func(t *testing.T, a, b string, na, nb int) {
		if na < 0 || nb < 0 || na > 5000 || nb > 5000 {
			return
		}
		in := []string{rep(a, na%(5000/(len(a)+1)+1)), b, rep(b, nb%(5000/(len(b)+1)+1)), a}
		keep := append([]string(nil), in...)
		out := admission.ResponseWarnings(in)
		assert.Equal(t, keep, in)
		seen := map[string]bool{}
		total := 0
		for _, w := range out {
			assert.NotEmpty(t, w)
			total += len([]rune(w))
			seen[w] = true
		}
		if len(out) > 0 && total > admission.ResponseWarningTotalRunes {
			for _, w := range out {
				assert.LessOrEqual(t, len([]rune(w)), admission.ResponseWarningItemRunes, "truncated")
			}
		}
	})
}
