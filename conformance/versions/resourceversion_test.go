package versions

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	wpversions "github.com/writepath/writepath/versions"
)

// sampleSize is n normally and at least 100k with WRITEPATH_LONG=1.
func sampleSize(n int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return max(n, 100_000)
	}
	return n
}

// rvGen draws resourceVersion-like strings from a seeded source.
type rvGen struct{ r *rand.Rand }

func (g rvGen) digits(n int, leadingZero bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		d := byte('0' + g.r.IntN(10))
		if i == 0 && !leadingZero && d == '0' {
			d = '1' + byte(g.r.IntN(9))
		}
		b.WriteByte(d)
	}
	return b.String()
}

var oddRunes = []string{"-", "+", " ", "\t", "\n", "a", "x", "e", ".", "/", "١", "１", "٠", "߀", "\u200b", "\xff", "\x00", "é", "0x", "_"}

func (g rvGen) one() string {
	switch g.r.IntN(12) {
	case 0:
		return ""
	case 1:
		return "0"
	case 2: // leading zeros
		return strings.Repeat("0", 1+g.r.IntN(3)) + g.digits(1+g.r.IntN(20), true)
	case 3: // huge
		return g.digits(100+g.r.IntN(5000), false)
	case 4: // a digit string with one odd character somewhere
		s := g.digits(1+g.r.IntN(20), false)
		i := g.r.IntN(len(s) + 1)
		return s[:i] + oddRunes[g.r.IntN(len(oddRunes))] + s[i:]
	case 5: // random bytes
		b := make([]byte, g.r.IntN(12))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return string(b)
	case 6: // uint64 boundary
		return []string{"18446744073709551615", "18446744073709551616", "9223372036854775807", "9223372036854775808"}[g.r.IntN(4)]
	default: // ordinary versions, lengths 1..25
		return g.digits(1+g.r.IntN(25), false)
	}
}

// pair draws two versions, often related (equal, same length, one digit apart).
func (g rvGen) pair() (string, string) {
	a := g.one()
	switch g.r.IntN(5) {
	case 0:
		return a, a
	case 1:
		if len(a) > 0 {
			b := []byte(a)
			i := g.r.IntN(len(b))
			b[i] = byte('0' + g.r.IntN(10))
			return a, string(b)
		}
	case 2:
		return a, g.digits(max(1, len(a)), false)
	}
	return a, g.one()
}

var edgePairs = [][2]string{
	{"1", "1"}, {"1", "2"}, {"9", "10"}, {"10", "9"}, {"99", "100"}, {"0", "0"}, {"0", "1"}, {"1", "0"},
	{"", ""}, {"", "1"}, {"1", ""}, {"01", "1"}, {"1", "01"}, {"00", "00"}, {"-1", "1"}, {"+1", "1"},
	{" 1", "1"}, {"1 ", "1"}, {"1e3", "1000"}, {"１", "1"}, {"١٢", "12"}, {"1\x00", "1"},
	{"18446744073709551615", "18446744073709551616"}, {strings.Repeat("9", 10000), "1" + strings.Repeat("0", 10000)},
}

func compareBoth(t *testing.T, a, b string) bool {
	t.Helper()
	want, wantErr := resourceversion.CompareResourceVersion(a, b)
	got, gotErr := wpversions.CompareResourceVersion(a, b)
	ok := assert.Equal(t, want, got, "result for %q, %q", a, b)
	ok = assert.Equal(t, wantErr == nil, gotErr == nil, "error presence for %q, %q: %v / %v", a, b, wantErr, gotErr) && ok
	if wantErr != nil && gotErr != nil {
		ok = assert.Equal(t, wantErr.Error(), gotErr.Error(), "error text for %q, %q", a, b) && ok
	}
	return ok
}

// TestCompareResourceVersion runs both implementations on the edge pairs and a
// seeded sample (5,000 pairs; 200,000 with WRITEPATH_LONG=1).
func TestCompareResourceVersion(t *testing.T) {
	for _, p := range edgePairs {
		compareBoth(t, p[0], p[1])
	}
	g := rvGen{r: rand.New(rand.NewPCG(5504, 137))}
	n := sampleSize(5_000)
	if n > 5_000 {
		n = 200_000
	}
	disagreements, errs := 0, 0
	for i := 0; i < n; i++ {
		a, b := g.pair()
		if _, err := resourceversion.CompareResourceVersion(a, b); err != nil {
			errs++
		}
		if !compareBoth(t, a, b) {
			disagreements++
			if disagreements > 20 {
				t.Fatal("too many disagreements")
			}
		}
	}
	t.Logf("compared %d pairs (+%d edge pairs): %d rejected by the reference, %d disagreements", n, len(edgePairs), errs, disagreements)
}

// FuzzCompareResourceVersion is the same comparison under the fuzzer.
func FuzzCompareResourceVersion(f *testing.F) {
	for _, p := range edgePairs[:len(edgePairs)-1] {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		compareBoth(t, a, b)
	})
}

func ExampleCompareResourceVersion() {
	want, _ := resourceversion.CompareResourceVersion("99", "100")
	got, _ := wpversions.CompareResourceVersion("99", "100")
	fmt.Println(want == got)
	// Output: true
}
