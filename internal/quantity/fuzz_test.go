package quantity_test

import (
	"strings"
	"testing"

	"github.com/writepath/writepath/internal/quantity"
)

// FuzzParse: Parse never panics; a quantity's canonical string parses back to an equal value
// (except a decimal-SI value beyond 999E, which apimachinery writes without a suffix); Cmp is
// a total order consistent with Equal; RoundUp never lowers a positive value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1", "100m", "1.5Gi", "-1e-10", "8Ei", "1000E", "12345678901234567890.123", "1e2000000000", ".e-10", "+", "1Ki1"} {
		f.Add(s, "1k", "-3")
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		qa, errA := quantity.Parse(a)
		qb, errB := quantity.Parse(b)
		qc, errC := quantity.Parse(c)
		if errA != nil {
			return
		}
		if !strings.HasPrefix(a, "+") && !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "eE") && len(a) > 12 {
			return // exponent near the int32 limit wrap as apimachinery's do; not round-trippable
		}
		canon := qa.Canonical()
		back, err := quantity.Parse(canon)
		if err != nil {
			t.Fatalf("%q: canonical %q does not parse: %v", a, canon, err)
		}
		huge := qa.Format() == quantity.DecimalSI && (qa.Cmp(quantity.MustParse("1000E")) >= 0 || qa.Cmp(quantity.MustParse("-1000E")) <= 0)
		if !huge && !back.Equal(qa) {
			t.Fatalf("%q: canonical %q parses to a different value", a, canon)
		}
		if qa.Cmp(qa) != 0 || !qa.Equal(qa) {
			t.Fatalf("%q not equal to itself", a)
		}
		if r, _ := qa.RoundUp(-3); qa.Sign() > 0 && r.Cmp(qa) < 0 {
			t.Fatalf("%q: RoundUp lowered it to %s", a, r)
		}
		if errB != nil {
			return
		}
		ab, ba := qa.Cmp(qb), qb.Cmp(qa)
		if ab != -ba || (ab == 0) != qa.Equal(qb) {
			t.Fatalf("%q <=> %q: %d, reverse %d", a, b, ab, ba)
		}
		if errC != nil {
			return
		}
		if ab <= 0 && qb.Cmp(qc) <= 0 && qa.Cmp(qc) > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
		}
	})
}
