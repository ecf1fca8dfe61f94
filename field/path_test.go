package field

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPathString(t *testing.T) {
	cases := []struct {
		name string
		path Path
		want string
	}{
		{"zero", Path{}, "<nil>"},
		{"one", NewPath("spec"), "spec"},
		{"more names", NewPath("spec", "template", "spec"), "spec.template.spec"},
		{"index", NewPath("spec", "containers").Index(0).Child("image"), "spec.containers[0].image"},
		{"negative index", NewPath("a").Index(-3), "a[-3]"},
		{"key", NewPath("metadata", "labels").Key("app"), "metadata.labels[app]"},
		{"key with dots and brackets", NewPath("data").Key("a.b[c]"), "data[a.b[c]]"},
		{"empty key", NewPath("data").Key(""), "data[]"},
		{"empty root name", NewPath(""), "[]"},
		{"empty child name", NewPath("a").Child(""), "a[]"},
		{"empty name then child", NewPath("").Child("b"), "[].b"},
		{"index at root", Path{}.Index(2).Child("x"), "[2].x"},
		{"key at root", Path{}.Key("k"), "[k]"},
		{"child from zero", Path{}.Child("a", "b"), "a.b"},
		{"dotted name", NewPath("a.b"), "a.b"},
		{"unicode", NewPath("spéc", "日本").Key("ключ"), "spéc.日本[ключ]"},
		{"nested indexes", NewPath("m").Index(1).Index(2).Key("z"), "m[1][2][z]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.path.String(), "rendering of %#v", tc.path.Segments())
		})
	}
}

// TestPathSiblingsDoNotInterfere proves that appending never aliases: children of
// one parent, built in any order and concurrently, keep their own segments.
func TestPathSiblingsDoNotInterfere(t *testing.T) {
	parent := NewPath("spec", "containers")
	a := parent.Index(0)
	b := parent.Index(1)
	aImage := a.Child("image")
	bName := b.Child("name")
	aPorts := a.Child("ports").Index(7)
	assert.Equal(t, "spec.containers", parent.String())
	assert.Equal(t, "spec.containers[0]", a.String())
	assert.Equal(t, "spec.containers[1]", b.String())
	assert.Equal(t, "spec.containers[0].image", aImage.String())
	assert.Equal(t, "spec.containers[1].name", bName.String())
	assert.Equal(t, "spec.containers[0].ports[7]", aPorts.String())

	var wg sync.WaitGroup
	got := make([]string, 64)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = parent.Index(i).Child("x").String()
		}()
	}
	wg.Wait()
	for i, s := range got {
		assert.Equal(t, "spec.containers["+strconv.Itoa(i)+"].x", s)
	}
	assert.Equal(t, "spec.containers", parent.String(), "parent unchanged")
}

func TestPathEquality(t *testing.T) {
	assert.Equal(t, NewPath("a", "b"), NewPath("a").Child("b"))
	assert.True(t, NewPath("a", "b") == NewPath("a").Child("b"), "paths are comparable values")
	assert.False(t, NewPath("a").Index(0) == NewPath("a").Key("0"), "index and key differ in kind")
	assert.Equal(t, NewPath("a").Index(0).String(), NewPath("a").Key("0").String(), "but render alike")
	assert.True(t, Path{} == Path{}.Parent())
	assert.True(t, NewPath("a") == NewPath("a").Child("b").Parent())
	assert.True(t, NewPath("a").Key("long"+string(make([]byte, 300))) ==
		NewPath("a").Key("long"+string(make([]byte, 300))).Child("x").Parent())
}

func TestPathSegments(t *testing.T) {
	p := NewPath("spec").Child("containers").Index(3).Key("k")
	assert.Equal(t, []Segment{
		{Kind: SegmentChild, Name: "spec"},
		{Kind: SegmentChild, Name: "containers"},
		{Kind: SegmentIndex, Index: 3},
		{Kind: SegmentKey, Name: "k"},
	}, p.Segments())
	assert.Equal(t, 4, p.Len())
	assert.Nil(t, Path{}.Segments())
	assert.Equal(t, 0, Path{}.Len())
	assert.True(t, Path{}.IsEmpty())
	assert.False(t, p.IsEmpty())
}

func TestAppendIsChildIndexKey(t *testing.T) {
	base := NewPath("spec", "versions").Index(0)
	segs := []Segment{{Kind: SegmentChild, Name: "schema"}, {Kind: SegmentKey, Name: "a.b"}, {Kind: SegmentIndex, Index: 12},
		{Kind: SegmentChild, Name: ""}, {Kind: SegmentKey, Name: ""}, {Name: "untyped"}}
	want := base.Child("schema").Key("a.b").Index(12).Child("").Key("").Child("untyped")
	assert.Equal(t, want, base.Append(segs...))
	assert.Equal(t, want.String(), base.Append(segs...).String())
	assert.Equal(t, base, base.Append())
	assert.Equal(t, NewPath("x"), Path{}.Append(Segment{Kind: SegmentChild, Name: "x"}))
}

// segmentsOf is n segments of every kind.
func segmentsOf(n int) []Segment {
	segs := make([]Segment, n)
	for i := range segs {
		switch i % 3 {
		case 0:
			segs[i] = Segment{Kind: SegmentChild, Name: "f" + strconv.Itoa(i)}
		case 1:
			segs[i] = Segment{Kind: SegmentIndex, Index: i * 37}
		default:
			segs[i] = Segment{Kind: SegmentKey, Name: "k." + strconv.Itoa(i)}
		}
	}
	return segs
}

func appendOne(p Path, s Segment) Path {
	switch s.Kind {
	case SegmentIndex:
		return p.Index(s.Index)
	case SegmentKey:
		return p.Key(s.Name)
	}
	return p.Child(s.Name)
}

// A path is the same value however it was built (one segment at a time, by Append in one go
// or in pieces, by Parent), at every length around the segments a Path holds inline.
func TestPathBuiltAnyWayIsEqual(t *testing.T) {
	var prev Path
	for n := 0; n <= 3*inline+2; n++ {
		segs := segmentsOf(n)
		var one Path
		for _, s := range segs {
			one = appendOne(one, s)
		}
		all := Path{}.Append(segs...)
		for split := 0; split <= n; split++ {
			pieces := Path{}.Append(segs[:split]...).Append(segs[split:]...)
			assert.True(t, one == pieces, "n=%d split at %d", n, split)
		}
		assert.True(t, one == all, "n=%d: one at a time and Append", n)
		assert.Equal(t, n, one.Len())
		assert.Equal(t, n == 0, one.IsEmpty())
		if n == 0 {
			assert.Nil(t, one.Segments())
		} else {
			assert.Equal(t, segs, one.Segments(), "n=%d", n)
		}
		assert.True(t, one.Parent() == prev, "n=%d: Parent is the path of n-1 segments", n)
		if n > 0 {
			assert.True(t, one.Parent().Child("x") == prev.Child("x"), "n=%d", n)
		}
		prev = one
	}
	names := NewPath("a", "b", "c", "d", "e", "f")
	assert.True(t, names == NewPath("a").Child("b", "c").Child("d", "e", "f"))
	assert.Equal(t, "a.b.c.d.e.f", names.String())
}

// Appending to a path of fewer than inline segments allocates nothing (4 here); a path of d segments
// built one at a time allocates once every inline segments.
func TestPathAllocations(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		p := NewPath("spec").Child("template").Child("spec").Index(3)
		if p.IsEmpty() {
			t.Fatal("empty")
		}
	})
	assert.Zero(t, allocs, "a path of 4 segments")
	for _, d := range []int{40, 320} {
		allocs := testing.AllocsPerRun(10, func() {
			var p Path
			for range d {
				p = p.Child("x")
			}
		})
		assert.LessOrEqual(t, allocs, float64(d/inline), "depth %d", d)
	}
}
