package registry

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
)

// The pre-check of literalNumberError skips only bodies the walk finds nothing in: over random
// Deployment bodies (integers, fractions and exponents where the Go type holds an integer and
// where it does not, numbers, dots, e's and escaped quotes inside strings, true and false,
// broken syntax), the answer is the walk's.
func TestLiteralNumberPrecheck(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	r := rand.New(rand.NewPCG(18, 5))
	numbers := []string{"2", "-3", "0", "2.0", "1e3", "2E1", "0.5", "-1.5e-2", "12"}
	strs := []string{`"a"`, `"1.5"`, `"nginx:1.2"`, `"e"`, `"a\"1.0\""`, `"\\"`, `"3e4"`}
	scalar := func() string {
		switch r.IntN(4) {
		case 0:
			return numbers[r.IntN(len(numbers))]
		case 1:
			return strs[r.IntN(len(strs))]
		case 2:
			return []string{"true", "false", "null"}[r.IntN(3)]
		}
		return numbers[r.IntN(len(numbers))]
	}
	refused, skipped := 0, 0
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%s,"labels":{"k":%s}},`, strs[r.IntN(len(strs))], scalar())
		fmt.Fprintf(&b, `"spec":{"replicas":%s,"minReadySeconds":%s,"template":{"spec":{"containers":[{"name":"c","image":%s,"args":[%s,%s]}],"terminationGracePeriodSeconds":%s}}}}`,
			scalar(), scalar(), strs[r.IntN(len(strs))], scalar(), scalar(), scalar())
		body := []byte(b.String())
		if r.IntN(10) == 0 {
			body = body[:r.IntN(len(body))] // broken syntax
		}
		wantMsg, want := walkLiteralNumbers(gvk, body)
		gotMsg, got := literalNumberError(gvk, body)
		assert.Equal(t, want, got, "%s", body)
		assert.Equal(t, wantMsg, gotMsg, "%s", body)
		if want {
			refused++
		}
		if !hasFractionOrExponent(body) {
			skipped++
		}
	}
	assert.Positive(t, refused, "bodies the decoder refuses")
	assert.Positive(t, skipped, "bodies the pre-check skips")
}
