package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// n creates between two lists cost one merge of n keys, not n sorted inserts: the keys moved grow
// as n (8n at 8× the size), where inserting each key in place would move ~n²/2.
func TestIndexMergeScales(t *testing.T) {
	ctx := context.Background()
	moved := func(n int) int {
		s := NewMemoryStore(MemoryOptions{}).(*memoryStore)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("cm-%07d", n-i) // descending: the worst order for in-place inserts
			_, err := s.Write(ctx, Write{Key: Key{Resource: "configmaps", Namespace: "demo", Name: name}, Value: map[string]any{}})
			require.NoError(t, err)
		}
		l, err := s.List(ctx, ListRequest{Prefix: Prefix{Resource: "configmaps"}, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("cm-%07d", 1), l.Items[0].Key.Name)
		require.Equal(t, int64(n-1), l.Remaining)
		return s.indexes[resourceKey{"", "configmaps"}].merged
	}
	small, large := moved(1000), moved(8000)
	assert.Equal(t, 1000, small)
	assert.Equal(t, 8*small, large, "work linear in the keys written")
}
