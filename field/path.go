package field

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// Path is the path from the root of an object to one of its fields, such as
// spec.containers[0].image or metadata.labels[app].
//
// A Path is an immutable value: Child, Index and Key return new paths and never
// change (or share mutable memory with) the receiver, so two paths derived from
// one parent never interfere. Paths are comparable with ==; two paths are equal
// when they were built from the same segments of the same kinds. The zero Path is
// the empty path (no segment); it renders as "<nil>", which is what apimachinery
// prints for a nil *field.Path, so an error reported at the zero path reads
// exactly like one the apiserver reports at the root.
type Path struct {
	// enc holds all but the last few segments, each as a kind byte, a uvarint length and
	// the bytes of the name, key or decimal index. A string keeps the value immutable and
	// comparable.
	enc string
	// The last segments are held in the value itself, so that appending one to a short
	// path allocates nothing (validation builds a path for every field it visits and
	// renders one only for an error). The split depends only on the number of segments:
	// n segments keep ((n-1) mod inline)+1 of them here, the rest in enc, and the unused
	// slots are zero, so == still compares segments.
	n     uint8
	kinds [inline]SegmentKind
	texts [inline]string
}

// inline is how many trailing segments a Path holds without encoding them.
const inline = 6

// SegmentKind tells how a segment of a Path was appended.
type SegmentKind uint8

// The kinds of path segments.
const (
	// SegmentChild is a named field, appended by NewPath or Child.
	SegmentChild SegmentKind = iota + 1
	// SegmentIndex is a list index, appended by Index.
	SegmentIndex
	// SegmentKey is a map key, appended by Key.
	SegmentKey
)

// Segment is one element of a Path.
type Segment struct {
	// Kind tells whether the segment is a field name, a list index or a map key.
	Kind SegmentKind
	// Name is the field name (SegmentChild) or the map key (SegmentKey).
	Name string
	// Index is the list index (SegmentIndex).
	Index int
}

// NewPath returns the path made of the field name followed by the more names.
func NewPath(name string, more ...string) Path {
	return Path{}.Child(name, more...)
}

// Child returns p followed by the field name and then by the more names.
func (p Path) Child(name string, more ...string) Path {
	// The common case, one name and a free slot, is small enough to be inlined where
	// validation builds a path for every field it visits.
	if n := p.n; len(more) == 0 && n < inline {
		p.kinds[n], p.texts[n], p.n = SegmentChild, name, n+1
		return p
	}
	return p.children(name, more)
}

// children is Child appending through with.
func (p Path) children(name string, more []string) Path {
	p = p.with(SegmentChild, name)
	for _, m := range more {
		p = p.with(SegmentChild, m)
	}
	return p
}

// Index returns p subscripted by the list index i.
func (p Path) Index(i int) Path {
	if n := p.n; n < inline {
		p.kinds[n], p.texts[n], p.n = SegmentIndex, strconv.Itoa(i), n+1
		return p
	}
	return p.with(SegmentIndex, strconv.Itoa(i))
}

// Key returns p subscripted by the map key k.
func (p Path) Key(k string) Path {
	if n := p.n; n < inline {
		p.kinds[n], p.texts[n], p.n = SegmentKey, k, n+1
		return p
	}
	return p.with(SegmentKey, k)
}

// with appends one segment: in place when a slot is free, else after encoding the held
// segments into enc (one allocation every inline segments).
func (p Path) with(kind SegmentKind, s string) Path {
	if p.n >= inline {
		var b strings.Builder
		b.Grow(len(p.enc) + p.heldLen())
		b.WriteString(p.enc)
		for i := range p.n {
			appendSegment(&b, p.kinds[i], p.texts[i])
		}
		p = Path{enc: b.String()}
	}
	p.kinds[p.n], p.texts[p.n] = kind, s
	p.n++
	return p
}

// heldLen is the number of bytes the held segments take encoded.
func (p Path) heldLen() int {
	n := 0
	for i := range p.n {
		n += encodedLen(p.texts[i])
	}
	return n
}

// encodedLen is the number of bytes appendSegment writes for a segment of text s.
func encodedLen(s string) int {
	l := 2
	for x := len(s); x >= 0x80; x >>= 7 {
		l++
	}
	return l + len(s)
}

// Append returns p followed by segs, encoded in one pass (appending segments one at a time
// copies the encoded part once every few segments: walks that keep their position as a list
// of segments, thousands of levels deep, render it through Append once, where they report an
// error). A segment of an unknown Kind is a field name.
func (p Path) Append(segs ...Segment) Path {
	if len(segs) == 0 {
		return p
	}
	if int(p.n)+len(segs) <= inline {
		for _, s := range segs {
			p = p.with(segmentText(s))
		}
		return p
	}
	// The new path holds its last ((total-1) mod inline)+1 segments; everything before them
	// (the held segments of p, then the first of segs) is encoded after p.enc.
	total := int(p.n) + len(segs) // segments not in p.enc
	keep := (total-1)%inline + 1
	size := len(p.enc) + p.heldLen()
	for _, s := range segs[:len(segs)-keep] {
		if s.Kind == SegmentIndex {
			size += 2 + 20 // a decimal int64
		} else {
			size += encodedLen(s.Name)
		}
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(p.enc)
	for i := range p.n {
		appendSegment(&b, p.kinds[i], p.texts[i])
	}
	for _, s := range segs[:len(segs)-keep] {
		kind, text := segmentText(s)
		appendSegment(&b, kind, text)
	}
	out := Path{enc: b.String()}
	for _, s := range segs[len(segs)-keep:] {
		out = out.with(segmentText(s))
	}
	return out
}

// segmentText is the kind and text a segment is held as.
func segmentText(s Segment) (SegmentKind, string) {
	switch s.Kind {
	case SegmentIndex:
		return SegmentIndex, strconv.Itoa(s.Index)
	case SegmentKey:
		return SegmentKey, s.Name
	default:
		return SegmentChild, s.Name
	}
}

func appendSegment(b *strings.Builder, kind SegmentKind, s string) {
	var n [binary.MaxVarintLen64 + 1]byte
	n[0] = byte(kind)
	l := binary.PutUvarint(n[1:], uint64(len(s)))
	b.Write(n[:1+l])
	b.WriteString(s)
}

// each calls f with the kind and text of every segment, root first.
func (p Path) each(f func(kind SegmentKind, s string)) {
	enc := p.enc
	for len(enc) > 0 {
		kind := SegmentKind(enc[0])
		l, n := uvarint(enc[1:])
		start := 1 + n
		end := start + l
		f(kind, enc[start:end])
		enc = enc[end:]
	}
	for i := range p.n {
		f(p.kinds[i], p.texts[i])
	}
}

// uvarint decodes the length written by appendSegment at the start of s and
// returns it with the number of bytes it took.
func uvarint(s string) (int, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s); i++ {
		c := s[i]
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int(x), i + 1
		}
		shift += 7
	}
	return int(x), len(s)
}

// IsEmpty reports whether p has no segment (it is the zero Path).
func (p Path) IsEmpty() bool { return p.n == 0 }

// Len returns the number of segments of p.
func (p Path) Len() int {
	n := 0
	p.each(func(SegmentKind, string) { n++ })
	return n
}

// Segments returns the segments of p, root first, in a new slice.
func (p Path) Segments() []Segment {
	var segs []Segment
	p.each(func(kind SegmentKind, s string) {
		seg := Segment{Kind: kind}
		if kind == SegmentIndex {
			// the text was written by strconv.Itoa, so it always parses.
			seg.Index, _ = strconv.Atoi(s)
		} else {
			seg.Name = s
		}
		segs = append(segs, seg)
	})
	return segs
}

// Parent returns p without its last segment; the parent of a one-segment path and
// of the empty path is the empty path.
func (p Path) Parent() Path {
	switch {
	case p.n > 1:
		p.n--
		p.kinds[p.n], p.texts[p.n] = 0, ""
		return p
	case p.enc == "":
		return Path{}
	}
	// The parent holds the last inline segments of enc (which holds a multiple of inline).
	var starts [inline]int
	count := 0
	enc := p.enc
	for pos := 0; pos < len(enc); count++ {
		starts[count%inline] = pos
		l, n := uvarint(enc[pos+1:])
		pos += 1 + n + l
	}
	out := Path{enc: enc[:starts[count%inline]]}
	for i := range inline {
		st := starts[(count+i)%inline]
		l, n := uvarint(enc[st+1:])
		out.kinds[i], out.texts[i] = SegmentKind(enc[st]), enc[st+1+n:st+1+n+l]
	}
	out.n = inline
	return out
}

// String renders p the way apimachinery's (*field.Path).String does: field names
// joined by dots, indexes and keys in brackets ("spec.containers[0].image",
// "metadata.labels[app]"). Keys are not quoted or escaped, and an empty field
// name renders as "[]", both as in apimachinery. The empty path renders as
// "<nil>".
func (p Path) String() string {
	if p.n == 0 {
		return "<nil>"
	}
	var b strings.Builder
	b.Grow(len(p.enc) + p.heldLen())
	first := true
	p.each(func(kind SegmentKind, s string) {
		if kind == SegmentChild && s != "" {
			if !first {
				b.WriteByte('.')
			}
			b.WriteString(s)
		} else {
			// apimachinery renders any element without a name as a subscript.
			b.WriteByte('[')
			b.WriteString(s)
			b.WriteByte(']')
		}
		first = false
	})
	return b.String()
}
