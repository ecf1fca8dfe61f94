package quantity_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/quantity"
)

// TestParse: the canonical string (resource.Quantity's MarshalJSON), the cached string, the
// format and the representation ParseQuantity gives; conformance/defaults, conformance/cel and
// conformance/versions check the same against apimachinery on generated quantities.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, str, canonical, cached string
		format                     quantity.Format
		int64Form                  bool
	}{
		{"0", "0", "0", "0", quantity.DecimalSI, true},
		{"100m", "100m", "100m", "100m", quantity.DecimalSI, true},
		{"1000m", "1", "1", "", quantity.DecimalSI, true},
		{"0.1", "100m", "100m", "", quantity.DecimalSI, true},
		{"1.5", "1500m", "1500m", "", quantity.DecimalSI, true},
		{"+1", "+1", "1", "+1", quantity.DecimalSI, true},
		{"1000", "1k", "1k", "", quantity.DecimalSI, true},
		{"1024", "1024", "1024", "1024", quantity.DecimalSI, true},
		{"1e3", "1e3", "1e3", "1e3", quantity.DecimalExponent, true},
		{"1E3", "1E3", "1e3", "1E3", quantity.DecimalExponent, true},
		{"1e-10", "1e-9", "1e-9", "", quantity.DecimalExponent, false},
		{"1Ki", "1Ki", "1Ki", "1Ki", quantity.BinarySI, true},
		{"2048Ki", "2Mi", "2Mi", "", quantity.BinarySI, true},
		{"128Mi", "128Mi", "128Mi", "", quantity.BinarySI, true},
		{"1.5Gi", "1536Mi", "1536Mi", "", quantity.BinarySI, false},
		{"-1.5Ki", "-1536", "-1536", "", quantity.BinarySI, false},
		{"0.5Ki", "512", "512", "", quantity.BinarySI, false},
		{"0.1n", "1n", "1n", "", quantity.DecimalSI, false},
		{"-0.1n", "-1n", "-1n", "", quantity.DecimalSI, false},
		{"8Ei", "9223372036854775807", "9223372036854775807", "", quantity.BinarySI, false},
		{"12345678901234567890", "12345678901234567890", "12345678901234567890", "", quantity.DecimalSI, false},
		{"1000E", "1", "1", "", quantity.DecimalSI, true}, // 10^21 has no SI suffix: apimachinery writes none
		{"Mi", "0", "0", "", quantity.BinarySI, true},
		{".", "0", "0", "", quantity.DecimalSI, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			q, err := quantity.Parse(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.str, q.String())
			assert.Equal(t, c.canonical, q.Canonical())
			assert.Equal(t, c.cached, q.Cached())
			assert.Equal(t, c.format, q.Format())
			assert.Equal(t, c.int64Form, q.IsInt64Form())
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in  string
		err error
	}{
		{"", quantity.ErrFormatWrong},
		{"1x", quantity.ErrFormatWrong},
		{"1.2.3", quantity.ErrFormatWrong},
		{" 1", quantity.ErrFormatWrong},
		{"1Ki1", quantity.ErrSuffix},
		{"1e", quantity.ErrSuffix},
		{"1K", quantity.ErrSuffix},
		{"1e99999999999999999999", quantity.ErrSuffix},
		{".e-10", quantity.ErrNumeric},
		{"Pi", quantity.ErrNumeric}, // no digits, and too wide for the int64 fast path
	} {
		_, err := quantity.Parse(c.in)
		assert.Equal(t, c.err, err, c.in)
	}
	assert.Equal(t, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", quantity.ErrFormatWrong.Error())
	assert.Panics(t, func() { quantity.MustParse("x") })
}

func TestCmp(t *testing.T) {
	for _, c := range []struct {
		a, b string
		cmp  int
	}{
		{"1", "1000m", 0},
		{"1Ki", "1024", 0},
		{"0.5", "500m", 0},
		{"100m", "0.2", -1},
		{"1e3", "1k", 0},
		{"1e2000000000", "1e1999999999", 1},
		{"-1e2000000000", "1", -1},
		{"1n", "0.1n", 0},
		{"8Ei", "9223372036854775807", 0},
		{"9223372036854775807", "9223372036854775808", -1},
		{"-5", "-4", -1},
		{"0", "-0", 0},
	} {
		a, b := quantity.MustParse(c.a), quantity.MustParse(c.b)
		assert.Equal(t, c.cmp, a.Cmp(b), "%s <=> %s", c.a, c.b)
		assert.Equal(t, -c.cmp, b.Cmp(a), "%s <=> %s", c.b, c.a)
		assert.Equal(t, c.cmp == 0, a.Equal(b))
	}
}

func TestNumbers(t *testing.T) {
	bigDecFloat := float64(12345678901234567890e9) * math.Pow10(-9)
	for _, c := range []struct {
		in      string
		i       int64
		isInt   bool
		f       float64
		decimal string
		sign    int
	}{
		{"1k", 1000, true, 1000, "1000", 1},
		{"1000m", 0, false, 1, "1", 1}, // scale -3: not an integer to AsInt64
		{"-1.5", 0, false, -1.5, "-1.5", -1},
		{"1Ki", 1024, true, 1024, "1024", 1},
		{"1e-10", 0, false, 1e-9, "0.000000001", 1},
		{"9223372036854775807", 0, false, 9223372036854775807, "9223372036854775807", 1}, // 19 digits: a big decimal
		{"12345678901234567890", 0, false, bigDecFloat, "12345678901234567890", 1},       // unscaled at scale 9, times 10^-9
		{"1e2000", 0, false, math.Inf(1), "1e2000", 1},
		{"0", 0, true, 0, "0", 0},
	} {
		q := quantity.MustParse(c.in)
		i, ok := q.AsInt64()
		assert.Equal(t, c.isInt, ok, c.in)
		assert.Equal(t, c.i, i, c.in)
		assert.Equal(t, c.f, q.AsApproximateFloat64(), c.in)
		assert.Equal(t, c.decimal, q.Decimal(), c.in)
		assert.Equal(t, c.sign, q.Sign(), c.in)
	}
	assert.Equal(t, "1.5", quantity.MustParse("1500m").Rat().FloatString(1))
}

func TestArithmetic(t *testing.T) {
	for _, c := range []struct {
		a, b, sum, diff string
		int64Form       bool
	}{
		{"1", "500m", "1.5", "0.5", true},
		{"1Ki", "1", "1025", "1023", true},
		{"9223372036854775807", "1", "9223372036854775808", "9223372036854775806", false},
		{"0", "1Ki", "1024", "-1024", true},
		{"1.5Gi", "0", "1610612736", "1610612736", false},
	} {
		a, b := quantity.MustParse(c.a), quantity.MustParse(c.b)
		s, err := a.Add(b)
		require.NoError(t, err)
		assert.Equal(t, c.sum, s.Decimal(), "%s+%s", c.a, c.b)
		assert.Equal(t, c.int64Form, s.IsInt64Form(), "%s+%s", c.a, c.b)
		assert.Empty(t, s.Cached())
		d, err := a.Sub(b)
		require.NoError(t, err)
		assert.Equal(t, c.diff, d.Decimal(), "%s-%s", c.a, c.b)
	}
	// A zero takes the other operand's format.
	s, err := quantity.MustParse("0").Add(quantity.MustParse("2Ki"))
	require.NoError(t, err)
	assert.Equal(t, quantity.BinarySI, s.Format())
	assert.Equal(t, "2Ki", s.String())
	// Aligning 1e2000000000 with 1n would take 2·10^9 digits.
	_, err = quantity.MustParse("1e2000000000").Add(quantity.MustParse("1n"))
	assert.Equal(t, quantity.ErrRange, err)
	i, ok := quantity.FromInt64(7, quantity.DecimalExponent).AsInt64()
	assert.True(t, ok)
	assert.Equal(t, int64(7), i)
}

// TestRoundUp is RoundUp(Milli), what built-in defaulting does to every ResourceList value.
func TestRoundUp(t *testing.T) {
	for _, c := range []struct {
		in, out string
		exact   bool
	}{
		{"1", "1", true},
		{"+1", "+1", true}, // int64 form already coarse enough: the cached string stays
		{"1500m", "1500m", true},
		{"1.0001", "1001m", false},
		{"-1.0001", "-1001m", false},
		{"1n", "1m", false},
		{"1e-10", "1e-3", false},
		{"0.5Ki", "512", true},
		{"12345678901234567890.5", "12345678901234567890500m", true},
	} {
		q, exact := quantity.MustParse(c.in).RoundUp(-3)
		assert.Equal(t, c.out, q.String(), c.in)
		assert.Equal(t, c.exact, exact, c.in)
	}
}

// TestNoMaterialisation: exponents near the int32 limit parse, compare, round and print
// without building 10^2000000000.
func TestNoMaterialisation(t *testing.T) {
	for _, s := range []string{"1e-2000000000", "12345678901234567890123e2000000000", "-1.5e2147483647", "1e-2147483648"} {
		q, err := quantity.Parse(s)
		require.NoError(t, err, s)
		r, _ := q.RoundUp(-3)
		_ = r.String()
		_ = q.Cmp(quantity.MustParse("1"))
	}
	assert.Equal(t, "1e-9", quantity.MustParse("1e-2000000000").String())
	assert.Equal(t, "1234567890123456789012300e1999999998", quantity.MustParse("12345678901234567890123e2000000000").Canonical())
}

// TestIdentical: the same string parses to identical quantities; equal values written
// differently are not identical (reflect.DeepEqual of resource.Quantity).
func TestIdentical(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1", "1", true}, {"1", "1000m", false}, {"1", "01", false}, {"1Gi", "1Gi", true}, {"1Gi", "1024Mi", false},
		{"1e30", "1e30", true}, {"1e30", "1000e27", false}, {"0", "0", true}, {"0", "0m", false},
	} {
		got := quantity.MustParse(tc.a).Identical(quantity.MustParse(tc.b))
		if got != tc.want {
			t.Errorf("Identical(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
