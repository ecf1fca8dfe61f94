package field

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildPath interprets ops as a sequence of appends (child, index, key, several
// children) using names cut from names, returning the path and the segments it
// should have.
func buildPath(ops []byte, names string) (Path, []Segment) {
	parts := strings.Split(names, "/")
	next := func(i int) string { return parts[i%len(parts)] }
	var p Path
	var want []Segment
	for i, op := range ops {
		switch op % 4 {
		case 0:
			p = p.Child(next(i))
			want = append(want, Segment{Kind: SegmentChild, Name: next(i)})
		case 1:
			idx := int(int8(op))
			p = p.Index(idx)
			want = append(want, Segment{Kind: SegmentIndex, Index: idx})
		case 2:
			p = p.Key(next(i))
			want = append(want, Segment{Kind: SegmentKey, Name: next(i)})
		case 3:
			p = p.Child(next(i), next(i+1), next(i+2))
			want = append(want, Segment{Kind: SegmentChild, Name: next(i)},
				Segment{Kind: SegmentChild, Name: next(i + 1)}, Segment{Kind: SegmentChild, Name: next(i + 2)})
		}
	}
	return p, want
}

// render is an independent statement of apimachinery's rendering rule.
func render(segs []Segment) string {
	if len(segs) == 0 {
		return "<nil>"
	}
	var b strings.Builder
	for i, s := range segs {
		switch {
		case s.Kind == SegmentChild && s.Name != "":
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(s.Name)
		case s.Kind == SegmentIndex:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		default:
			b.WriteString("[" + s.Name + "]")
		}
	}
	return b.String()
}

// FuzzPath checks the laws of Path on arbitrary appends: no panic, segments as
// appended, rendering per apimachinery's rule, Parent undoes the last append,
// equality is structural, and siblings never interfere.
func FuzzPath(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "spec/containers/image")
	f.Add([]byte{}, "")
	f.Add([]byte{2, 2, 0}, "/a.b/[x]")
	f.Add([]byte{255, 129, 0}, strings.Repeat("long", 100))
	f.Fuzz(func(t *testing.T, ops []byte, names string) {
		if len(ops) > 256 {
			ops = ops[:256]
		}
		p, want := buildPath(ops, names)
		got := p.Segments()
		if len(want) == 0 {
			assert.Nil(t, got)
		} else {
			assert.Equal(t, want, got)
		}
		assert.Equal(t, len(want), p.Len())
		assert.Equal(t, render(want), p.String())
		assert.Equal(t, len(want) == 0, p.IsEmpty())

		// structural equality and Parent.
		again, _ := buildPath(ops, names)
		assert.True(t, p == again, "same appends give equal paths")
		child := p.Child("c")
		assert.True(t, child.Parent() == p, "Parent undoes Child")
		assert.True(t, p.Index(3).Parent() == p, "Parent undoes Index")

		// siblings built from p are independent and leave p unchanged.
		before := p.String()
		x, y := p.Key("x"), p.Index(1)
		require.Equal(t, before, p.String())
		if len(want) == 0 {
			assert.Equal(t, "[x]", x.String())
		} else {
			assert.Equal(t, before+"[x]", x.String())
			assert.Equal(t, before+"[1]", y.String())
		}
	})
}

// FuzzErrorBody checks that any error type, detail and value prints without
// panicking and in the "field: body" shape.
func FuzzErrorBody(f *testing.F) {
	f.Add("FieldValueInvalid", "spec", "detail", int64(3), "v", 0)
	f.Add("Weird", "", "", int64(-1), "\xff", 3)
	f.Fuzz(func(t *testing.T, typ, fieldName, detail string, n int64, s string, kind int) {
		var v any
		switch kind % 5 {
		case 0:
			v = n
		case 1:
			v = s
		case 2:
			v = map[string]any{s: n, "list": []any{s, float64(n) / 3}}
		case 3:
			v = nil
		default:
			v = OmitValueType{}
		}
		e := &Error{Type: ErrorType(typ), Field: fieldName, BadValue: v, Detail: detail}
		msg := e.Error()
		assert.True(t, strings.HasPrefix(msg, fieldName+": "+e.Type.String()) ||
			strings.HasPrefix(msg, fieldName+": Internal error"), msg)
		if detail != "" {
			assert.True(t, strings.HasSuffix(msg, ": "+detail), msg)
		}
	})
}
