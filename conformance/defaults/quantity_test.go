package defaults

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// randomQuantity draws from the quantity grammar, with the corners ParseQuantity treats apart:
// signs, leading zeros, fractions, every suffix, exponents, long mantissas, and some strings
// that are not quantities.
func randomQuantity(r *rand.Rand) any {
	switch r.Intn(20) {
	case 0:
		return int64(r.Intn(100000)) - 50
	case 1:
		return float64(r.Intn(100000)) / float64(1+r.Intn(1000))
	case 2:
		return []string{"", " ", "abc", "1.2.3", "1Qi", "--1", "1e", "1e+", "e3", ".", "1.", ".5", "Ki", "1 Gi", "0x10", "1ee3"}[r.Intn(16)]
	}
	var b strings.Builder
	switch r.Intn(6) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	if r.Intn(5) == 0 {
		b.WriteString(strings.Repeat("0", r.Intn(3)))
	}
	digits := 1 + r.Intn(4)
	if r.Intn(8) == 0 {
		digits = 15 + r.Intn(12)
	}
	for i := 0; i < digits; i++ {
		b.WriteByte(byte('0' + r.Intn(10)))
	}
	if r.Intn(3) == 0 {
		b.WriteByte('.')
		for i := r.Intn(12); i >= 0; i-- {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
	}
	suffixes := []string{"", "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	if r.Intn(6) == 0 {
		fmt.Fprintf(&b, "%c%d", "eE"[r.Intn(2)], r.Intn(40)-20)
	} else {
		b.WriteString(suffixes[r.Intn(len(suffixes))])
	}
	return b.String()
}

// TestQuantities compares the quantities the apiserver writes back, rounded
// (ResourceQuota spec.hard: SetDefaults_ResourceList) and not (RuntimeClass overhead).
func TestQuantities(t *testing.T) {
	n := sampleSize()
	r := rand.New(rand.NewSource(37))
	rq := schema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}
	rc := schema.GroupVersionKind{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}
	cases, rejected, fails := 0, 0, 0
	for i := 0; i < n; i++ {
		q := randomQuantity(r)
		for _, gvk := range []schema.GroupVersionKind{rq, rc} {
			var obj map[string]any
			if gvk == rq {
				obj = map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": "q"},
					"spec": map[string]any{"hard": map[string]any{"cpu": q}}}
			} else {
				obj = map[string]any{"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": map[string]any{"name": "q"},
					"handler": "h", "overhead": map[string]any{"podFixed": map[string]any{"cpu": q}}}
			}
			want, werr := reference(gvk, obj)
			got, gerr := defaults.Builtin(gvk, obj, defaults.Options{})
			cases++
			if (werr == nil) != (gerr == nil) {
				fails++
				if fails <= 10 {
					t.Errorf("%v %q: reference error %v, writepath error %v", gvk.Kind, q, werr, gerr)
				}
				continue
			}
			if werr != nil {
				rejected++
				continue
			}
			if js(want) != js(got) {
				fails++
				if fails <= 10 {
					t.Errorf("%v %#v:\n%s", gvk.Kind, q, diff(js(want), js(got)))
				}
			}
		}
	}
	t.Logf("%d cases, %d rejected by both, %d disagreements", cases, rejected, fails)
}
