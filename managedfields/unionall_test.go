package managedfields_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/managedfields"
)

// TestUnionAll: the union in pairs is the union of the sets one by one, for every count from
// none to 17 (odd counts leave a set unpaired at some level), and the inputs are not changed.
func TestUnionAll(t *testing.T) {
	assert.True(t, managedfields.UnionAll(nil).Empty())
	for n := 1; n <= 17; n++ {
		var sets []*fieldpath.Set
		want := fieldpath.NewSet()
		for i := range n {
			s := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", fmt.Sprintf("f%d", i)), fieldpath.MakePathOrDie("spec", "shared"))
			sets = append(sets, s)
			want = want.Union(s)
		}
		got := managedfields.UnionAll(sets)
		assert.True(t, want.Equals(got), "n=%d: %s", n, got)
		for i, s := range sets {
			assert.Equal(t, 2, s.Size(), "n=%d: set %d changed", n, i)
		}
	}
}
