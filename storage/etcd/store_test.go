package etcd_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/cluster/storetest"
	"github.com/writepath/writepath/storage/etcd"
	"github.com/writepath/writepath/storage/etcd/internal/etcdtest"
)

// TestStoreConformance runs cluster's store suite on one real etcd, each subtest under a prefix
// of its own (an empty store).
func TestStoreConformance(t *testing.T) {
	srv := etcdtest.Start(t)
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) cluster.Store {
		s, err := etcd.New(etcd.Options{Endpoints: []string{srv.URL}, Prefix: fmt.Sprintf("/storetest-%d", n.Add(1))})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}
