package lazyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
)

// errNotApplied is any reason the patch did not apply as json-patch.v4 applies it.
var errNotApplied = errors.New("lazyjson: the patch does not apply")

// node is json-patch.v4's lazyNode: the value's text until it is decoded as an object or a
// list. A nil *node is JSON null.
type node struct {
	raw          []byte
	obj          map[string]*node // decoded object (isObj)
	arr          []*node          // decoded list (isArr)
	isObj, isArr bool
}

func rawNode(b []byte) *node {
	if b == nil {
		return nil
	}
	return &node{raw: b}
}

// intoDoc decodes n as an object (once).
func (n *node) intoDoc() (map[string]*node, bool) {
	if n.isObj {
		return n.obj, true
	}
	if n.isArr || n.raw == nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(n.raw, &m); err != nil {
		return nil, false
	}
	n.obj = nil // the text null decodes as json-patch.v4's nil partialDoc
	if m != nil {
		n.obj = make(map[string]*node, len(m))
	}
	for k, v := range m {
		n.obj[k] = rawOrNull(v)
	}
	n.isObj = true
	return n.obj, true
}

// intoAry decodes n as a list (once).
func (n *node) intoAry() ([]*node, bool) {
	if n.isArr {
		return n.arr, true
	}
	if n.isObj || n.raw == nil {
		return nil, false
	}
	var l []json.RawMessage
	if err := json.Unmarshal(n.raw, &l); err != nil {
		return nil, false
	}
	n.arr = make([]*node, len(l))
	for i, v := range l {
		n.arr[i] = rawOrNull(v)
	}
	n.isArr = true
	return n.arr, true
}

func rawOrNull(v json.RawMessage) *node {
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return rawNode(v)
}

// write appends n as json.Marshal writes json-patch.v4's lazyNode.
func (n *node) write(b *bytes.Buffer) error {
	switch {
	case n == nil:
		b.WriteString("null")
	case n.isObj:
		return writeDoc(b, n.obj)
	case n.isArr:
		b.WriteByte('[')
		for i, e := range n.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := e.write(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		out, err := json.Marshal(json.RawMessage(n.raw))
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return nil
}

func writeDoc(b *bytes.Buffer, d map[string]*node) error {
	if d == nil {
		b.WriteString("null")
		return nil
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if err := d[k].write(b); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func render(n *node) ([]byte, error) {
	var b bytes.Buffer
	if err := n.write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MergePatch returns the text json-patch.v4's MergePatch(doc, patch) returns, for a document
// and a patch that are both JSON objects.
func MergePatch(doc, patch []byte) ([]byte, error) {
	d, p := rawNode(doc), rawNode(patch)
	dd, ok1 := d.intoDoc()
	pd, ok2 := p.intoDoc()
	if !ok1 || !ok2 || dd == nil || pd == nil {
		return nil, errNotApplied
	}
	mergeDocs(dd, pd)
	return render(d)
}

func mergeDocs(doc, patch map[string]*node) {
	for k, v := range patch {
		if v == nil {
			delete(doc, k)
			continue
		}
		cur := doc[k]
		if cur == nil {
			pruneNulls(v)
			doc[k] = v
			continue
		}
		doc[k] = merge(cur, v)
	}
}

func merge(cur, patch *node) *node {
	cd, ok := cur.intoDoc()
	if !ok {
		pruneNulls(patch)
		return patch
	}
	pd, ok := patch.intoDoc()
	if !ok {
		return patch
	}
	mergeDocs(cd, pd)
	return cur
}

func pruneNulls(n *node) {
	if d, ok := n.intoDoc(); ok {
		for k, v := range d {
			if v == nil {
				delete(d, k)
			} else {
				pruneNulls(v)
			}
		}
		return
	}
	if a, ok := n.intoAry(); ok {
		for _, v := range a {
			if v != nil {
				pruneNulls(v)
			}
		}
	}
}

// container is an object or a list on an operation's path.
type container struct {
	n *node
}

func (c container) get(key string) (*node, error) {
	if c.n.isObj {
		return c.n.obj[key], nil
	}
	i, err := c.index(key, false)
	if err != nil {
		return nil, err
	}
	return c.n.arr[i], nil
}

// index is json-patch.v4's partialArray index reading: negative indices count from the end
// (of the list one longer than today's, for add).
func (c container) index(key string, forAdd bool) (int, error) {
	i, err := strconv.Atoi(key)
	if err != nil {
		return 0, errNotApplied
	}
	n := len(c.n.arr)
	if forAdd {
		n++
	}
	if i < 0 {
		if i < -n {
			return 0, errNotApplied
		}
		i += n
	}
	if i >= n {
		return 0, errNotApplied
	}
	return i, nil
}

func (c container) set(key string, v *node) error {
	if c.n.isObj {
		c.n.obj[key] = v
		return nil
	}
	i, err := c.index(key, false)
	if err != nil {
		return err
	}
	c.n.arr[i] = v
	return nil
}

func (c container) add(key string, v *node) error {
	if c.n.isObj {
		c.n.obj[key] = v
		return nil
	}
	if key == "-" {
		c.n.arr = append(c.n.arr, v)
		return nil
	}
	i, err := c.index(key, true)
	if err != nil {
		return err
	}
	c.n.arr = append(c.n.arr, nil)
	copy(c.n.arr[i+1:], c.n.arr[i:])
	c.n.arr[i] = v
	return nil
}

func (c container) remove(key string) error {
	if c.n.isObj {
		if _, ok := c.n.obj[key]; !ok {
			return errNotApplied
		}
		delete(c.n.obj, key)
		return nil
	}
	i, err := c.index(key, false)
	if err != nil {
		return err
	}
	c.n.arr = append(c.n.arr[:i], c.n.arr[i+1:]...)
	return nil
}

func decodeKey(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
}

// intoContainer decodes n as the container its text is: a list when it starts with '['.
func intoContainer(n *node) (container, bool) {
	if n == nil {
		return container{}, false
	}
	if n.isObj || n.isArr {
		return container{n}, !n.isObj || n.obj != nil
	}
	if isArray(n.raw) {
		_, ok := n.intoAry()
		return container{n}, ok
	}
	d, ok := n.intoDoc()
	// The text null decodes as a nil map, which json-patch.v4 then panics writing into.
	return container{n}, ok && d != nil
}

// compact is lazyNode.compact: the text compacted, as it is when it does not compact.
func compact(b []byte) []byte {
	if b == nil {
		return nil
	}
	var x bytes.Buffer
	if json.Compact(&x, b) != nil {
		return b
	}
	return x.Bytes()
}

func isArray(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\n")
	return len(b) > 0 && b[0] == '['
}

// findObject is json-patch.v4's findObject: the container holding path's last segment.
func findObject(root *node, path string) (container, string, bool) {
	split := strings.Split(path, "/")
	if len(split) < 2 {
		return container{}, "", false
	}
	c, ok := intoContainer(root)
	if !ok {
		return container{}, "", false
	}
	for _, part := range split[1 : len(split)-1] {
		next, err := c.get(decodeKey(part))
		if err != nil || next == nil || (next.raw == nil && !next.isObj && !next.isArr) {
			return container{}, "", false
		}
		if c, ok = intoContainer(next); !ok {
			return container{}, "", false
		}
	}
	return c, decodeKey(split[len(split)-1]), true
}

// equal is json-patch.v4's lazyNode.equal (it decodes what it compares).
func equal(n, o *node) bool {
	if n == nil || o == nil {
		return n == nil && o == nil
	}
	if !n.isObj && !n.isArr {
		_, isDoc := n.intoDoc()
		if !isDoc {
			if _, isAry := n.intoAry(); !isAry {
				if o.isObj || o.isArr {
					return false
				}
				return bytes.Equal(compact(n.raw), compact(o.raw))
			}
		}
	}
	if n.isObj {
		od, ok := o.intoDoc()
		if !ok || len(n.obj) != len(od) {
			return false
		}
		for k, v := range n.obj {
			ov, ok := od[k]
			if !ok || !equal(v, ov) {
				return false
			}
		}
		return true
	}
	oa, ok := o.intoAry()
	if !ok || len(n.arr) != len(oa) {
		return false
	}
	for i := range n.arr {
		// json-patch.v4 dereferences a null element of either list (the apiserver's handler
		// panics); the test does not pass.
		if n.arr[i] == nil || oa[i] == nil || !equal(n.arr[i], oa[i]) {
			return false
		}
	}
	return true
}

// ApplyPatch returns the text json-patch.v4's DecodePatch(ops) and Apply(doc) return for a
// JSON Patch (RFC 6902), as kube-apiserver 1.37 applies it (negative indices supported).
func ApplyPatch(doc, ops []byte) ([]byte, error) {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(ops, &list); err != nil {
		return nil, errNotApplied
	}
	root := rawNode(doc)
	if _, ok := intoContainer(root); !ok {
		return nil, errNotApplied
	}
	for _, op := range list {
		var err error
		if root, err = applyOp(root, op); err != nil {
			return nil, err
		}
	}
	return render(root)
}

// value is an operation's "value" as json-patch.v4 reads it: nil when absent, a node without
// text for null.
func value(op map[string]json.RawMessage) *node {
	v, ok := op["value"]
	if !ok {
		return nil
	}
	if n := rawOrNull(v); n != nil {
		return n
	}
	return &node{}
}

func str(op map[string]json.RawMessage, k string) (string, bool) {
	v, ok := op[k]
	if !ok || rawOrNull(v) == nil {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// source is a move's or a copy's "from": its container, key and value.
func source(root *node, op map[string]json.RawMessage) (container, string, *node, error) {
	from, ok := str(op, "from")
	if !ok {
		return container{}, "", nil, errNotApplied
	}
	c, key, ok := findObject(root, from)
	if !ok {
		return container{}, "", nil, errNotApplied
	}
	v, err := c.get(key)
	return c, key, v, err
}

// applyOp applies one operation to the document root and returns the root (a new one when the
// operation replaces the whole document).
func applyOp(root *node, op map[string]json.RawMessage) (*node, error) {
	kind, ok := str(op, "op")
	if !ok {
		return nil, errNotApplied
	}
	path, ok := str(op, "path")
	if !ok {
		return nil, errNotApplied
	}
	switch kind {
	case "add":
		c, key, ok := findObject(root, path)
		if !ok {
			return nil, errNotApplied
		}
		return root, c.add(key, value(op))
	case "remove":
		c, key, ok := findObject(root, path)
		if !ok {
			return nil, errNotApplied
		}
		return root, c.remove(key)
	case "replace":
		if path == "" {
			v := value(op)
			if v == nil {
				return nil, errNotApplied
			}
			if _, ok := v.intoDoc(); !ok {
				if _, ok := v.intoAry(); !ok {
					return nil, errNotApplied
				}
			}
			return v, nil
		}
		c, key, ok := findObject(root, path)
		if !ok {
			return nil, errNotApplied
		}
		if !c.n.isObj {
			if _, err := c.get(key); err != nil {
				return nil, err
			}
		}
		return root, c.set(key, value(op))
	case "move":
		c, key, v, err := source(root, op)
		if err != nil {
			return nil, err
		}
		if err := c.remove(key); err != nil {
			return nil, err
		}
		if c, key, ok = findObject(root, path); !ok {
			return nil, errNotApplied
		}
		return root, c.add(key, v)
	case "copy":
		_, _, v, err := source(root, op)
		if err != nil {
			return nil, err
		}
		// The destination is found first: finding it may decode what is copied.
		c, key, ok := findObject(root, path)
		if !ok {
			return nil, errNotApplied
		}
		if v != nil {
			text, err := render(v)
			if err != nil {
				return nil, err
			}
			v = &node{raw: text}
		}
		return root, c.add(key, v)
	case "test":
		if path == "" {
			if v := value(op); v == nil || !equal(root, v) {
				return nil, errNotApplied
			}
			return root, nil
		}
		c, key, ok := findObject(root, path)
		if !ok {
			return nil, errNotApplied
		}
		v, err := c.get(key)
		if err != nil {
			return nil, err
		}
		want := value(op)
		switch {
		case v == nil && (want == nil || want.raw == nil):
			return root, nil
		case v == nil || want == nil || !equal(v, want):
			return nil, errNotApplied
		}
		return root, nil
	}
	return nil, errNotApplied
}
