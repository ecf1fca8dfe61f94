package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/value"
)

// checkedStore is the memory store whose shared reads remember a copy of every value they hand
// out, so that a test can prove nobody modified one (registry.Handle must not: the cluster's own
// requests read the stored maps themselves, and the store keeps their writes as they are).
type checkedStore struct {
	*memoryStore
	handed []handedValue
}

type handedValue struct {
	key  Key
	live map[string]any
	was  map[string]any
}

func (s *checkedStore) sharedReads() Reads { return checkedReads{s} }

// writeOwned checks, before every write the cluster's requests hand over, that what they read is
// unchanged, and then that the value it keeps is never changed either.
func (s *checkedStore) writeOwned(w Write) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	rev, err := s.memoryStore.writeOwned(w)
	if err == nil && w.Value != nil {
		s.remember(w.Key, w.Value)
	}
	return rev, err
}

func (s *checkedStore) remember(k Key, v map[string]any) {
	c, err := value.DeepCopyMap(v)
	if err != nil {
		panic(err)
	}
	s.handed = append(s.handed, handedValue{key: k, live: v, was: c})
}

func (s *checkedStore) check() error {
	for _, h := range s.handed {
		if !value.Equal(h.live, h.was) {
			return fmt.Errorf("%s: a value read or written without a copy was modified", h.key)
		}
	}
	return nil
}

type checkedReads struct{ s *checkedStore }

func (r checkedReads) Revision(ctx context.Context) (int64, error) { return r.s.Revision(ctx) }

func (r checkedReads) Get(ctx context.Context, k Key) (Object, error) {
	o, err := r.s.memoryStore.sharedReads().Get(ctx, k)
	if err == nil {
		r.s.remember(k, o.Value)
	}
	return o, err
}

func (r checkedReads) List(ctx context.Context, req ListRequest) (ListResult, error) {
	l, err := r.s.memoryStore.sharedReads().List(ctx, req)
	for _, o := range l.Items {
		r.s.remember(o.Key, o.Value)
	}
	return l, err
}

// The controllers' and the kubelet's requests read and write without copies: over rollouts,
// scales, Recreate, pauses and deletions (the random histories of
// TestQueuedSyncsMatchSyncingEverything), no value they read or stored is ever modified.
func TestOwnRequestsModifyNothingShared(t *testing.T) {
	for seed := 1; seed <= 3; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			store := &checkedStore{memoryStore: NewMemoryStore(MemoryOptions{}).(*memoryStore)}
			c, err := New(Options{Kubelet: Kubelet(seed % 3), Seed: 42, Store: store, Clock: NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
			require.NoError(t, err)
			for _, ns := range []string{"a", "b"} {
				queueTestDo(t, c, "POST", "/api/v1/namespaces", "", fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns))
			}
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			for step := 0; step < 40; step++ {
				queueTestOp(rng, step)(t, c)
			}
			require.NoError(t, store.check())
			assert.NotEmpty(t, store.handed, "the cluster's own requests read without copies")
			require.NoError(t, c.Settle(context.Background()))
		})
	}
}
