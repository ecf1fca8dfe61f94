package validation

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/value"
)

// randomSpecValue is a small value with nulls, empty lists and maps, and scalars that are
// equal in JSON but not in the object model (1 and 1.0).
func randomSpecValue(r *rand.Rand, depth int) any {
	if depth > 3 {
		return []any{nil, int64(1), 1.0, "a", true, []any{}, map[string]any{}}[r.IntN(7)]
	}
	switch r.IntN(9) {
	case 0, 1, 2:
		m := map[string]any{}
		for range r.IntN(4) {
			m[[]string{"a", "b", "c"}[r.IntN(3)]] = randomSpecValue(r, depth+1)
		}
		return m
	case 3, 4:
		l := make([]any, r.IntN(3))
		for i := range l {
			l[i] = randomSpecValue(r, depth+1)
		}
		return l
	}
	return []any{nil, int64(1), 1.0, "a", true, []any{}, map[string]any{}}[r.IntN(7)]
}

func TestNormalizedEqualIsEqualOfNormalized(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 4))
	for range 20000 {
		a, b := randomSpecValue(r, 0), randomSpecValue(r, 0)
		if r.IntN(3) == 0 {
			b = a
		}
		want := value.Equal(normalize(a), normalize(b))
		require.Equal(t, want, normalizedEqual(a, b, 0), "%#v vs %#v", a, b)
		require.Equal(t, want, normalizedEqual(b, a, 0), "%#v vs %#v", b, a)
	}
}
