package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/writepath/writepath/cluster"
)

// FuzzMemoryStore runs a random sequence of writes, reads and lists against the store and a
// plain map model of it: every answer must agree with the model, and nothing panics.
func FuzzMemoryStore(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{0, 0, 1, 1, 2, 2, 9, 9, 3, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		s := cluster.NewMemoryStore(cluster.MemoryOptions{History: 4})
		type entry struct {
			rev  int64
			data string
		}
		model := map[string]entry{}
		var rev int64
		for i := 0; i+1 < len(ops); i += 2 {
			name := fmt.Sprint("k", ops[i+1]%4)
			key := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: name}
			cur, exists := model[name]
			switch ops[i] % 5 {
			case 0, 1: // create or compare-and-swap update at the model's revision (or a stale one)
				expect := cur.rev
				if ops[i]%5 == 1 && exists {
					expect = cur.rev + int64(ops[i+1]%2) // sometimes stale
				}
				got, err := s.Write(ctx, cluster.Write{Key: key, Value: configMap(name, fmt.Sprint(i)), ModRevision: expect})
				var conflict *cluster.ConflictError
				if expect == cur.rev {
					if err != nil {
						t.Fatalf("op %d: write at the current revision failed: %v", i, err)
					}
					rev++
					if got != rev {
						t.Fatalf("op %d: revision %d, model %d", i, got, rev)
					}
					model[name] = entry{rev, fmt.Sprint(i)}
				} else if !errors.As(err, &conflict) {
					t.Fatalf("op %d: a stale write answered %v", i, err)
				}
			case 2: // delete
				_, err := s.Write(ctx, cluster.Write{Key: key, ModRevision: cluster.AnyRevision})
				var nf *cluster.NotFoundError
				if exists {
					if err != nil {
						t.Fatalf("op %d: delete failed: %v", i, err)
					}
					rev++
					delete(model, name)
				} else if !errors.As(err, &nf) {
					t.Fatalf("op %d: delete of a missing key answered %v", i, err)
				}
			case 3: // get
				got, err := s.Get(ctx, key)
				if exists != (err == nil) {
					t.Fatalf("op %d: get %s: exists %v, err %v", i, name, exists, err)
				}
				if exists && (got.ModRevision != cur.rev || got.Value["data"].(map[string]any)["v"] != cur.data) {
					t.Fatalf("op %d: get %s = %d %v, model %+v", i, name, got.ModRevision, got.Value["data"], cur)
				}
			case 4: // list, paged by the op's byte
				limit := int(ops[i+1] % 3)
				var after *cluster.Key
				seen := 0
				at := int64(0)
				for {
					l, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Limit: limit, After: after, Revision: at})
					if err != nil {
						t.Fatalf("op %d: list: %v", i, err)
					}
					at = l.Revision
					for _, o := range l.Items {
						if e, ok := model[o.Key.Name]; !ok || e.rev != o.ModRevision {
							t.Fatalf("op %d: list has %s at %d, model %+v", i, o.Key.Name, o.ModRevision, model)
						}
					}
					seen += len(l.Items)
					if !l.More {
						break
					}
					after = &l.Items[len(l.Items)-1].Key
				}
				if seen != len(model) {
					t.Fatalf("op %d: list saw %d objects, model %d", i, seen, len(model))
				}
			}
		}
	})
}
