package merge

import "sort"

// Indexes that make the reference's list algorithms linear (or n log n) with the same results:
// strategicpatch scans a list for every element it looks up (the position of an element in the
// order list inside a sort, the entry with a merge key, the duplicates of a value), which is
// quadratic in the list's length. The lookups here answer what those scans answer — the first
// position whose value is == to the one sought, and the same errors — through a map, for the
// object model's scalar values; any other value takes the reference's scan.

// mergeStats counts the work of one merge (comparisons, lookups, moves), for the scaling tests.
type mergeStats struct{ work int }

func (s *mergeStats) add(n int) {
	if s != nil {
		s.work += n
	}
}

// fastKey reports whether v can be a map key standing for Go's == on interface values: the
// object model's scalars. (NaN is a key that is never found, as NaN == NaN is false.)
func fastKey(v any) bool {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return true
	}
	return false
}

// itemKey is what index compares of a list item: the item itself, or a map's merge key value
// (nil for a non-map).
func itemKey(item any, mergeKey string, kind elemKind) any {
	if kind != kindMap {
		return item
	}
	m, ok := item.(map[string]any)
	if !ok {
		return nil
	}
	return m[mergeKey]
}

// orderIndex answers index(order, val, mergeKey, kind) with one pass over order.
type orderIndex struct {
	order    []any
	mergeKey string
	kind     elemKind
	first    map[any]int // a key's first position in order; built on the first lookup
	stats    *mergeStats
}

func newOrderIndex(order []any, mergeKey string, kind elemKind, stats *mergeStats) *orderIndex {
	return &orderIndex{order: order, mergeKey: mergeKey, kind: kind, stats: stats}
}

func (x *orderIndex) index(val any) (int, error) {
	want := itemKey(val, x.mergeKey, x.kind)
	if !fastKey(want) {
		// ifaceEq can fail on such a value: the reference's scan says where.
		x.stats.add(len(x.order))
		return index(x.order, val, x.mergeKey, x.kind)
	}
	if x.first == nil {
		x.first = make(map[any]int, len(x.order))
		for i, v := range x.order {
			// A scalar is == only to a value of its own type: other keys never match.
			if k := itemKey(v, x.mergeKey, x.kind); fastKey(k) {
				if _, seen := x.first[k]; !seen {
					x.first[k] = i
				}
			}
		}
		x.stats.add(len(x.order))
	}
	x.stats.add(1)
	if i, ok := x.first[want]; ok {
		return i, nil
	}
	return -1, nil
}

// mapIndex answers findMapInSliceBasedOnKeyValue(list, key, value) for the successive states of
// a list that only changes by replacing an entry or appending one.
type mapIndex struct {
	list     []any
	key      string
	first    map[any]int // merge key value -> first position of a map holding it
	nonMap   int         // position of the first item that is not a map, -1 if none
	stats    *mergeStats
	built    bool
	distrust bool // an entry was replaced by one with another key: rebuild on the next lookup
}

func newMapIndex(list []any, key string, stats *mergeStats) *mapIndex {
	return &mapIndex{list: list, key: key, stats: stats}
}

func (x *mapIndex) build() {
	x.first = make(map[any]int, len(x.list))
	x.nonMap = -1
	for i, v := range x.list {
		x.note(i, v)
	}
	x.stats.add(len(x.list))
	x.built, x.distrust = true, false
}

// note records the item at position i (the last one so far).
func (x *mapIndex) note(i int, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		if x.nonMap < 0 {
			x.nonMap = i
		}
		return
	}
	if vm, has := m[x.key]; has && fastKey(vm) {
		if _, seen := x.first[vm]; !seen {
			x.first[vm] = i
		}
	}
}

// find is findMapInSliceBasedOnKeyValue(x.list, x.key, value).
func (x *mapIndex) find(value any) (map[string]any, int, bool, error) {
	if !fastKey(value) {
		x.stats.add(len(x.list))
		return findMapInSliceBasedOnKeyValue(x.list, x.key, value)
	}
	if !x.built || x.distrust {
		x.build()
	}
	x.stats.add(1)
	i, found := x.first[value]
	// The scan stops at the first non-map item or the first match, whichever comes first. A
	// map's key value of another kind than value never matches, and a scalar value never makes
	// ifaceEq fail.
	if x.nonMap >= 0 && (!found || x.nonMap < i) {
		return findMapInSliceBasedOnKeyValue(x.list[:x.nonMap+1], x.key, value)
	}
	if !found {
		return nil, 0, false, nil
	}
	return x.list[i].(map[string]any), i, true, nil
}

// set replaces the item at position i (found by find) with m.
func (x *mapIndex) set(i int, m map[string]any) {
	old := x.list[i].(map[string]any)
	x.list[i] = m
	if !x.built {
		return
	}
	ov, oh := old[x.key]
	nv, nh := m[x.key]
	if oh != nh || !fastKey(nv) || !fastKey(ov) || nv != ov {
		x.distrust = true
	}
}

// add appends v to the list.
func (x *mapIndex) add(v any) {
	x.list = append(x.list, v)
	if x.built && !x.distrust {
		x.note(len(x.list)-1, v)
	}
}

// deleteMatchingEntries removes from original every map whose mergeKey value is mergeValue, in
// place, as the reference does by scanning from the start after each removal: one pass here. A
// non-map item anywhere, or a key value ifaceEq fails on, is the error the reference's last scan
// meets first (the index of a non-map is its position once the matches before it are gone).
func deleteMatchingEntries(original []any, mergeKey string, mergeValue any, stats *mergeStats) ([]any, error) {
	stats.add(len(original))
	out := original[:0]
	for _, v := range original {
		m, ok := v.(map[string]any)
		if !ok {
			_, _, _, err := findMapInSliceBasedOnKeyValue(append(out[:len(out):len(out)], v), mergeKey, mergeValue)
			return nil, err
		}
		if vm, has := m[mergeKey]; has {
			eq, err := ifaceEq(vm, mergeValue)
			if err != nil {
				return nil, err
			}
			if eq {
				continue
			}
		}
		out = append(out, v)
	}
	// The reference shifts the tail down at each removal and leaves the slots past the end as
	// they were; nobody reads them (the caller keeps only the result).
	return out, nil
}

// deduplicateScalars removes repeated values in place with the reference's swap-with-last
// algorithm: for each position i in turn, every later copy of s[i] is overwritten by the last
// element, which is then re-examined. It makes exactly the reference's writes, in its order (so
// the order and the slots past the new end are the reference's), but finds the copies of a
// value through an index of positions instead of comparing every pair.
func deduplicateScalars(s []any, stats *mergeStats) ([]any, error) {
	maps, lists := 0, 0
	for _, v := range s {
		switch v.(type) {
		case map[string]any:
			maps++
		case []any:
			lists++
		default:
			if !fastKey(v) {
				stats.add(len(s) * len(s))
				return deduplicateScalarsPairwise(s)
			}
		}
	}
	stats.add(len(s))
	if maps > 1 || lists > 1 {
		// The pairwise comparison meets two maps (or two lists) sooner or later: == on them
		// panics in the reference.
		return nil, ErrServerPanics
	}
	// positions[v] holds the positions of v, slot[p] where p sits in its value's positions.
	positions := make(map[any][]int, len(s))
	slot := make([]int, len(s))
	for p, v := range s {
		if !indexed(v) {
			continue
		}
		slot[p] = len(positions[v])
		positions[v] = append(positions[v], p)
	}
	last := len(s) - 1
	for i := 0; i < last; i++ {
		v := s[i]
		if !indexed(v) {
			continue // equal to nothing (NaN), or the one map or list: never removed
		}
		pos := positions[v]
		delete(positions, v)
		sort.Ints(pos)
		stats.add(len(pos))
		// pos[0] is i: every value before i is another, already deduplicated one.
		lo, hi := 1, len(pos)
		for lo < hi {
			p := pos[lo]
			lo++
			for {
				from := last
				s[p] = s[from]
				last--
				stats.add(1)
				if from == p {
					break
				}
				if hi > lo && pos[hi-1] == from {
					hi-- // another copy moved in: examine p again
					continue
				}
				if w := s[p]; indexed(w) {
					wp := positions[w]
					wp[slot[from]] = p
					slot[p] = slot[from]
				}
				break
			}
		}
	}
	return s[:last+1], nil
}

// indexed reports whether deduplicateScalars tracks v's copies: a scalar equal to itself.
func indexed(v any) bool {
	if f, ok := v.(float64); ok {
		return f == f
	}
	return fastKey(v)
}

// deduplicateScalarsPairwise is the reference's algorithm, comparison by comparison, for lists
// holding values outside the object model.
func deduplicateScalarsPairwise(s []any) ([]any, error) {
	length := len(s) - 1
	for i := 0; i < length; i++ {
		for j := i + 1; j <= length; j++ {
			eq, err := ifaceEq(s[i], s[j])
			if err != nil {
				return nil, err
			}
			if eq {
				s[j] = s[length]
				s = s[0:length]
				length--
				j--
			}
		}
	}
	return s, nil
}

// pendingDeletions applies a patch list's $patch: delete entries to the original list in one
// pass, as the reference applies them one after the other (a scan of the list each). For merge
// key values among the object model's scalars the outcome does not depend on when a deletion
// runs: the reference's first deletion fails if the list holds a non-map item anywhere (its
// last scan meets it), later ones cannot fail. Other values run in their turn, after the
// deletions before them.
type pendingDeletions struct {
	original []any
	mergeKey string
	stats    *mergeStats
	values   map[any]bool
	checked  bool
}

func (d *pendingDeletions) delete(value any) error {
	if !fastKey(value) {
		var err error
		if d.original, err = d.flush(); err != nil {
			return err
		}
		d.original, err = deleteMatchingEntries(d.original, d.mergeKey, value, d.stats)
		return err
	}
	if !d.checked {
		d.checked = true
		d.stats.add(len(d.original))
		for _, v := range d.original {
			if _, ok := v.(map[string]any); !ok {
				// The error the reference's scan meets, at the index it gives.
				_, err := deleteMatchingEntries(d.original, d.mergeKey, value, d.stats)
				return err
			}
		}
	}
	if d.values == nil {
		d.values = map[any]bool{}
	}
	d.values[value] = true
	d.stats.add(1)
	return nil
}

// flush runs the deletions collected so far and returns the list.
func (d *pendingDeletions) flush() ([]any, error) {
	if len(d.values) == 0 {
		return d.original, nil
	}
	d.stats.add(len(d.original))
	out := d.original[:0]
	for _, v := range d.original {
		m := v.(map[string]any) // checked by the first deletion
		if vm, has := m[d.mergeKey]; has && fastKey(vm) && d.values[vm] {
			continue
		}
		out = append(out, v)
	}
	d.original, d.values = out, nil
	return out, nil
}
