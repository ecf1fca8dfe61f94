package managedfields

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Object-model fast paths: the apiserver reads and writes FieldsV1 as JSON; in the object model
// the sets are nested maps, so they are converted directly (no JSON round trip). The results are
// identical to FromObject+Decode and Encode+WithEntries; malformed input falls back to the JSON
// path so that errors keep the apiserver's wording.

// DecodeObject reads and decodes an object's managedFields the way the apiserver's field manager
// does for a stored object: malformed entries (wrong JSON types) read as no managedFields at all
// (Lenient), then Decode's checks and errors apply.
func DecodeObject(obj map[string]any) (Managed, error) { return decodeObject(obj, nil) }

func decodeObject(obj map[string]any, stats *decodeStats) (Managed, error) {
	md, _ := obj["metadata"].(map[string]any)
	items, ok := md["managedFields"].([]any)
	if !ok {
		return Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}, nil
	}
	m := Managed{Fields: make(fieldpath.ManagedFields, len(items)), Times: make(map[string]*time.Time, len(items))}
	type pending struct {
		e    Entry
		raw  map[string]any
		has  bool
		item map[string]any
	}
	entries := make([]pending, 0, len(items))
	times := make([]time.Time, len(items))
	for i, item := range items {
		im, ok := item.(map[string]any)
		if !ok {
			return Decode(nil)
		}
		fv, hasFields := im["fieldsV1"]
		e, err := entryFromObject(im, false, &times[i])
		if err != nil {
			return Decode(nil) // Lenient: unreadable list, no managedFields
		}
		raw, isMap := fv.(map[string]any)
		if hasFields && fv != nil && !isMap {
			// Not an object: let the JSON path report it exactly.
			full, _, ferr := FromObject(obj)
			if ferr != nil {
				return Decode(nil)
			}
			return Decode(full)
		}
		entries = append(entries, pending{e: e, raw: raw, has: hasFields && fv != nil, item: im})
	}
	memo := newKeyMemo()
	memo.stats = stats
	m.decoded = &decodedFrom{entries: make(map[string]map[string]any, len(entries)), fields: memo.names}
	for i, p := range entries {
		e := p.e
		if err := checkEntry(e, i); err != nil {
			return Managed{}, err
		}
		set := fieldpath.NewSet()
		canon := false
		if p.has {
			var err error
			_, canon, err = memo.setFromMap(set, p.raw)
			if err != nil {
				// The JSON path words the error as the apiserver does.
				full, _, ferr := FromObject(obj)
				if ferr != nil {
					return Decode(nil)
				}
				return Decode(full)
			}
		}
		id := Identifier(e)
		vs := fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == OperationApply)
		m.Fields[id] = vs
		m.Times[id] = e.Time
		m.decoded.entries[id] = p.item
		if p.has && canon {
			if m.source == nil {
				m.source = make(map[fieldpath.VersionedSet]map[string]any, len(entries))
			}
			m.source[vs] = p.raw
		}
	}
	return m, nil
}

var errSlowPath = errors.New("fieldsV1 needs the JSON decoder")

// keyMemo remembers the path elements of the keys already decoded in one DecodeObject call (the
// same list keys recur in several managers' sets); path elements are immutable and may be
// shared between sets.
type keyMemo struct {
	elems map[string]memoElement
	names map[string]string // field name → its key ("f:" + name), for EncodeList
	strs  []string          // backing store of the field names the path elements point to
	stack []fieldsEntry     // the keys of the objects being decoded, outermost first
	stats *decodeStats      // work counters, set by the scaling tests only
}

// newKeyMemo sizes the memo for a Pod's managers (the distinct keys of a kube-controller-
// manager create and a kubelet status): larger maps cost more to allocate than they save in
// growth (Rollout1000: 48 and 32 entries 201.6 MB/op, 24 and 16 198.4, 8 and 8 201.3).
func newKeyMemo() *keyMemo {
	return &keyMemo{elems: make(map[string]memoElement, 24), names: make(map[string]string, 16)}
}

// fieldName returns a pointer to a string equal to name, from a shared backing array (one
// allocation for many names; the strings are never changed).
func (memo *keyMemo) fieldName(name string) *string {
	if len(memo.strs) == cap(memo.strs) {
		memo.strs = make([]string, 0, 64)
	}
	memo.strs = append(memo.strs, name)
	return &memo.strs[len(memo.strs)-1]
}

type memoElement struct {
	pe    fieldpath.PathElement
	canon bool
	err   error
}

func (memo *keyMemo) element(k string) (fieldpath.PathElement, bool, error) {
	if m, ok := memo.elems[k]; ok {
		return m.pe, m.canon, m.err
	}
	if strings.HasPrefix(k, "f:") {
		// Field names recur in every manager's set (f:metadata, f:spec, f:name, ...): one
		// *string each per decode.
		name := memo.fieldName(k[2:])
		pe := fieldpath.PathElement{FieldName: name}
		memo.elems[k] = memoElement{pe: pe, canon: true}
		memo.names[*name] = k
		return pe, true, nil
	}
	pe, err := fieldpath.DeserializePathElement(k)
	canon := false
	if err == nil {
		s, serr := fieldpath.SerializePathElement(pe)
		canon = serr == nil && s == k
	}
	memo.elems[k] = memoElement{pe: pe, canon: canon, err: err}
	return pe, canon, err
}

// setFromMap adds the paths of a FieldsV1 object to set, as SMD's FromJSON reads them: a key is
// a member when its object has "." or no recognised child; keys with an unknown prefix are
// skipped. It returns the number of recognised keys of m, and whether m is exactly what SMD
// would write for the set (so that it can be copied instead of re-encoded).
func (memo *keyMemo) setFromMap(set *fieldpath.Set, m map[string]any) (int, bool, error) {
	if len(m) > 1 {
		set.Members = fieldpath.MakePathElementSet(len(m)) // room for every key: no regrowth
	}
	canon := true
	dot := false
	// The set's members and children are sorted slices: inserted in Go's map order, each insert
	// moves half of them (quadratic in the keys of one object). The keys are decoded first,
	// sorted, then inserted at the end. They sit on memo.stack, above the parent's.
	base := len(memo.stack)
	defer func() { memo.stack = memo.stack[:base] }()
	for k, v := range m {
		if k == "." {
			dot = true
			if vm, ok := v.(map[string]any); !ok || len(vm) != 0 {
				canon = false
			}
			continue
		}
		pe, keyCanon, err := memo.element(k)
		if err == fieldpath.ErrUnknownPathElementType {
			canon = false
			continue
		}
		if err != nil {
			return 0, false, errSlowPath
		}
		canon = canon && keyCanon
		var cm map[string]any
		switch t := v.(type) {
		case map[string]any:
			cm = t
		case nil:
			canon = false
		default:
			return 0, false, errSlowPath
		}
		memo.stack = append(memo.stack, fieldsEntry{pe: pe, child: cm})
	}
	top := len(memo.stack)
	recognised := top - base
	if recognised > 1 {
		compare := func(a, b fieldsEntry) int { return a.pe.Compare(b.pe) }
		if st := memo.stats; st != nil {
			compare = func(a, b fieldsEntry) int { st.compares++; return a.pe.Compare(b.pe) }
		}
		slices.SortStableFunc(memo.stack[base:top], compare)
	}
	for i := base; i < top; i++ {
		pe, cm := memo.stack[i].pe, memo.stack[i].child // memo.stack may move while recursing
		n := 0
		if memo.anyRecognised(cm) {
			// Such a child set is never empty: it is built in place.
			var childCanon bool
			var err error
			memo.count(set.Children.Size(), i > base && memo.stack[i-1].pe.Compare(pe) >= 0)
			if n, childCanon, err = memo.setFromMap(set.Children.Descend(pe), cm); err != nil {
				return 0, false, err
			}
			canon = canon && childCanon
		} else if len(cm) > 0 {
			canon = false // only "." or unknown prefixes below: SMD would write {}
		}
		if _, d := cm["."]; d || n == 0 {
			memo.count(set.Members.Size(), i > base && memo.stack[i-1].pe.Compare(pe) >= 0)
			set.Members.Insert(pe)
		}
	}
	if dot && recognised == 0 {
		canon = false
	}
	return recognised, canon, nil
}

// fieldsEntry is one recognised key of a FieldsV1 object: its path element and its value.
type fieldsEntry struct {
	pe    fieldpath.PathElement
	child map[string]any
}

// decodeStats counts the work of one decode, for the scaling tests.
type decodeStats struct {
	compares int // path element comparisons of the sorts
	inserts  int // inserts into sorted member and child lists (a binary search each)
	moved    int // list elements an insert may have had to move (all of them, when not appending)
}

// count records an insert into a sorted list of size elements; outOfOrder says the element
// does not come after the one inserted before it.
func (memo *keyMemo) count(size int, outOfOrder bool) {
	if memo.stats == nil {
		return
	}
	memo.stats.inserts++
	if outOfOrder {
		memo.stats.moved += size
	}
}

// anyRecognised reports whether m has a key setFromMap turns into a path element (or fails on):
// any key but "." and those with an unknown one-letter prefix (what DeserializePathElement
// answers with ErrUnknownPathElementType), decided without decoding.
func (memo *keyMemo) anyRecognised(m map[string]any) bool {
	for k := range m {
		if k == "." {
			continue
		}
		if len(k) >= 2 && k[1] == ':' {
			switch k[0] {
			case 'f', 'v', 'k', 'i':
			default:
				continue
			}
		}
		return true
	}
	return false
}

// EncodeList encodes m as the object-model value of metadata.managedFields: entry maps in the
// apiserver's order (nil when m is empty). It equals the list WithEntries(obj, Encode(m)) writes.
func EncodeList(m Managed) ([]any, error) { return encodeList(m, false) }

// EncodeListSharing is EncodeList whose entries hold, for the sets that did not change, the
// fieldsV1 maps of the object m was decoded from instead of copies of them: for a caller that
// changes neither that object's managedFields nor the result's fieldsV1. The value is the same.
func EncodeListSharing(m Managed) ([]any, error) { return encodeList(m, true) }

func encodeList(m Managed, share bool) ([]any, error) {
	if len(m.Fields) == 0 {
		return nil, nil
	}
	type item struct {
		id  string
		e   Entry
		set *fieldpath.Set
		raw map[string]any
	}
	items := make([]item, 0, len(m.Fields))
	for id, vs := range m.Fields {
		e, err := ParseIdentifier(id)
		if err != nil {
			return nil, fmt.Errorf("error encoding versioned set for %v: error unmarshalling manager identifier %v: %v", id, id, err)
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = OperationApply
		}
		e.FieldsType = FieldsTypeV1
		if t, ok := m.Times[id]; ok && t != nil {
			e.Time = t // only read below
		}
		items = append(items, item{id: id, e: e, set: vs.Set(), raw: m.source[vs]})
	}
	// Sort by the entry fields (the set does not take part).
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case less(a.e, b.e):
			return -1
		case less(b.e, a.e):
			return 1
		}
		return 0
	})
	var fieldKeys map[string]string
	var entryMaps map[string]map[string]any
	if m.decoded != nil {
		fieldKeys, entryMaps = m.decoded.fields, m.decoded.entries
	}
	out := make([]any, 0, len(items))
	var timeBuf [len(timeLayout) + 8]byte
	for i := range items {
		e := items[i].e
		// The strings of an entry read from the live object are reused as they are (boxed
		// already; strings are immutable): only what changed is allocated again.
		was := entryMaps[items[i].id]
		str := func(key, v string) any {
			if w, ok := was[key]; ok {
				if ws, ok := w.(string); ok && ws == v {
					return w
				}
			}
			return v
		}
		obj := make(map[string]any, 7)
		if e.Manager != "" {
			obj["manager"] = str("manager", e.Manager)
		}
		obj["operation"] = str("operation", string(e.Operation))
		if e.APIVersion != "" {
			obj["apiVersion"] = str("apiVersion", e.APIVersion)
		}
		if e.Time != nil {
			if e.Time.IsZero() {
				obj["time"] = nil
			} else {
				b := e.Time.UTC().AppendFormat(timeBuf[:0], timeLayout)
				if w, ok := was["time"].(string); ok && w == string(b) {
					obj["time"] = was["time"]
				} else {
					obj["time"] = string(b)
				}
			}
		}
		obj["fieldsType"] = FieldsTypeV1
		if raw := items[i].raw; raw != nil && share {
			obj["fieldsV1"] = raw
		} else if raw != nil {
			obj["fieldsV1"] = copyFields(raw)
		} else {
			fm, err := setToMap(items[i].set, fieldKeys)
			if err != nil {
				return nil, err
			}
			obj["fieldsV1"] = fm
		}
		if e.Subresource != "" {
			obj["subresource"] = str("subresource", e.Subresource)
		}
		out = append(out, obj)
	}
	return out, nil
}

// setToMap is SMD's ToJSON (emitContentsV1) building maps instead of bytes. fieldKeys, when not
// nil, holds keys already made for field names ("f:" + name).
func setToMap(s *fieldpath.Set, fieldKeys map[string]string) (map[string]any, error) {
	out := make(map[string]any, s.Members.Size()+s.Children.Size())
	key := func(pe fieldpath.PathElement) (string, error) {
		if pe.FieldName != nil {
			if k, ok := fieldKeys[*pe.FieldName]; ok {
				return k, nil
			}
		}
		return fieldpath.SerializePathElement(pe)
	}
	var err error
	s.Members.Iterate(func(pe fieldpath.PathElement) {
		if err != nil {
			return
		}
		k, serr := key(pe)
		if serr != nil {
			err = serr
			return
		}
		out[k] = map[string]any{}
	})
	s.Children.Iterate(func(pe fieldpath.PathElement) {
		if err != nil {
			return
		}
		k, serr := key(pe)
		if serr != nil {
			err = serr
			return
		}
		child, _ := s.Children.Get(pe)
		cm, cerr := setToMap(child, fieldKeys)
		if cerr != nil {
			err = cerr
			return
		}
		if s.Members.Has(pe) && len(cm) > 0 {
			cm["."] = map[string]any{}
		}
		out[k] = cm
	})
	return out, err
}

func copyFields(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyFields(v.(map[string]any))
	}
	return out
}
