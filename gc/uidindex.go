package gc

import "hash/maphash"

// uidIndex finds items by uid. It is an open-addressing hash table of 64-bit slots, each the
// high 32 bits of the uid's hash and the item's position in items plus one (zero is an empty
// slot), probed linearly and kept at most half full. For the millions of objects of a large
// snapshot it is several times cheaper to fill than a map[string]*item: one cache line per
// insertion and no per-entry string headers.
type uidIndex struct {
	seed  maphash.Seed
	slots []uint64
	mask  uint64
	items []*item
}

func newUIDIndex(n int) uidIndex {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return uidIndex{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: uint64(size - 1), items: make([]*item, 0, n)}
}

// get returns the item with the uid, nil if none.
func (x *uidIndex) get(uid string) *item {
	h := maphash.String(x.seed, uid)
	tag := h &^ (1<<32 - 1)
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := x.slots[i]
		if s == 0 {
			return nil
		}
		if s&^(1<<32-1) == tag {
			if it := x.items[s&(1<<32-1)-1]; it.m.uid == uid {
				return it
			}
		}
	}
}

// add indexes it under its uid and appends it to items, unless an item with that uid is
// already indexed: add then returns that item and changes nothing.
func (x *uidIndex) add(it *item) (prev *item) {
	return x.addHashed(it, x.hash(it.m.uid))
}

// hash is the hash of a uid that addHashed takes.
func (x *uidIndex) hash(uid string) uint64 { return maphash.String(x.seed, uid) }

// addHashed is add with the uid's hash computed beforehand: a loop of insertions alone keeps
// several cache misses in flight.
func (x *uidIndex) addHashed(it *item, h uint64) (prev *item) {
	uid := it.m.uid
	tag := h &^ (1<<32 - 1)
	i := h & x.mask
	for ; ; i = (i + 1) & x.mask {
		s := x.slots[i]
		if s == 0 {
			break
		}
		if s&^(1<<32-1) == tag {
			if p := x.items[s&(1<<32-1)-1]; p.m.uid == uid {
				return p
			}
		}
	}
	if 2*(len(x.items)+1) > len(x.slots) {
		x.grow()
		return x.addHashed(it, h)
	}
	x.items = append(x.items, it)
	x.slots[i] = tag | uint64(len(x.items))
	return nil
}

// grow doubles the table (only when more items come than newUIDIndex was sized for).
func (x *uidIndex) grow() {
	old := x.slots
	x.slots = make([]uint64, 2*len(old))
	x.mask = uint64(len(x.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		h := maphash.String(x.seed, x.items[s&(1<<32-1)-1].m.uid)
		i := h & x.mask
		for x.slots[i] != 0 {
			i = (i + 1) & x.mask
		}
		x.slots[i] = s
	}
}
