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
	// enc holds the segments, each as a kind byte, a uvarint length and the bytes
	// of the name, key or decimal index. A string keeps the value immutable and
	// comparable.
	enc string
}

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
	var b strings.Builder
	b.Grow(len(p.enc) + 2 + len(name))
	b.WriteString(p.enc)
	appendSegment(&b, SegmentChild, name)
	for _, m := range more {
		appendSegment(&b, SegmentChild, m)
	}
	return Path{enc: b.String()}
}

// Index returns p subscripted by the list index i.
func (p Path) Index(i int) Path {
	return p.with(SegmentIndex, strconv.Itoa(i))
}

// Key returns p subscripted by the map key k.
func (p Path) Key(k string) Path {
	return p.with(SegmentKey, k)
}

func (p Path) with(kind SegmentKind, s string) Path {
	var b strings.Builder
	b.Grow(len(p.enc) + 2 + len(s))
	b.WriteString(p.enc)
	appendSegment(&b, kind, s)
	return Path{enc: b.String()}
}

// Append returns p followed by segs in one pass. Child, Index and Key copy p each time, so a
// path of d segments built one at a time costs d² bytes; walks that keep their position as a
// list of segments (schema's, thousands of levels deep) render it through Append once, where
// they report an error. A segment of an unknown Kind is a field name.
func (p Path) Append(segs ...Segment) Path {
	if len(segs) == 0 {
		return p
	}
	n := len(p.enc)
	for _, s := range segs {
		n += 2 + len(s.Name)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(p.enc)
	for _, s := range segs {
		switch s.Kind {
		case SegmentIndex:
			appendSegment(&b, SegmentIndex, strconv.Itoa(s.Index))
		case SegmentKey:
			appendSegment(&b, SegmentKey, s.Name)
		default:
			appendSegment(&b, SegmentChild, s.Name)
		}
	}
	return Path{enc: b.String()}
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
func (p Path) IsEmpty() bool { return p.enc == "" }

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
	last := 0
	pos := 0
	p.each(func(_ SegmentKind, s string) {
		last = pos
		// advance pos past this segment: kind byte, varint length, bytes.
		var n [binary.MaxVarintLen64]byte
		pos += 1 + binary.PutUvarint(n[:], uint64(len(s))) + len(s)
	})
	return Path{enc: p.enc[:last]}
}

// String renders p the way apimachinery's (*field.Path).String does: field names
// joined by dots, indexes and keys in brackets ("spec.containers[0].image",
// "metadata.labels[app]"). Keys are not quoted or escaped, and an empty field
// name renders as "[]", both as in apimachinery. The empty path renders as
// "<nil>".
func (p Path) String() string {
	if p.enc == "" {
		return "<nil>"
	}
	var b strings.Builder
	b.Grow(len(p.enc))
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
