package schema

import "github.com/writepath/writepath/field"

// walkPath is the position of a recursive walk through a schema. Extending it is O(1) (a node
// pointing at its parent) and it becomes a field.Path only where an error is reported, so a
// walk through d levels costs O(d) where extending a field.Path at each level (a copy of the
// whole path) costs O(d²): kube-apiserver accepts CRD schemas as deep as its decoder reads,
// about 5,000 levels of properties or 10,000 of items. The zero walkPath is the empty path.
type walkPath struct{ n *walkNode }

type walkNode struct {
	parent *walkNode
	base   field.Path // the root's path; zero for the others
	seg    field.Segment
	root   bool
}

// walkFrom starts a walk at p.
func walkFrom(p field.Path) walkPath { return walkPath{&walkNode{base: p, root: true}} }

func (w walkPath) with(seg field.Segment) walkPath {
	return walkPath{&walkNode{parent: w.n, seg: seg}}
}

// Child is field.Path's Child for one name.
func (w walkPath) Child(name string) walkPath {
	return w.with(field.Segment{Kind: field.SegmentChild, Name: name})
}

// Key is field.Path's Key.
func (w walkPath) Key(k string) walkPath {
	return w.with(field.Segment{Kind: field.SegmentKey, Name: k})
}

// Index is field.Path's Index.
func (w walkPath) Index(i int) walkPath {
	return w.with(field.Segment{Kind: field.SegmentIndex, Index: i})
}

// Path renders w in time linear in its length.
func (w walkPath) Path() field.Path {
	var segs []field.Segment
	n := w.n
	for ; n != nil && !n.root; n = n.parent {
		segs = append(segs, n.seg)
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	var base field.Path
	if n != nil {
		base = n.base
	}
	return base.Append(segs...)
}

// String is the rendered path's String.
func (w walkPath) String() string { return w.Path().String() }
