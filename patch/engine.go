package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// This file holds the document model the apiserver's JSON Patch library
// (gopkg.in/evanphx/json-patch.v4, which kube-apiserver 1.37 uses for PATCH and
// for mutating webhooks) works on, reproduced behaviour for behaviour because
// clients observe its quirks: values are kept as the JSON text they arrived in
// and parsed only when an operation walks into them, "test" compares that text,
// and a JSON null inside a parsed container is a missing node while a null
// operation value is a node without text. The differences from RFC 6902 that
// follow from this are listed in conformance/jsonpatch/README.md.

// form is what a node currently holds.
type form uint8

const (
	formRaw form = iota // JSON text, not parsed yet
	formObj             // parsed object (obj may be nil: the text was null)
	formArr             // parsed array
)

// node is one JSON value of the document being patched. A nil *node is a JSON
// null found inside a parsed container.
type node struct {
	form form
	// fromVal marks a node built from the caller's object: its text is the
	// stdlib encoding of val, computed on demand.
	fromVal bool
	val     any
	// raw is the node's JSON text. With fromVal false, a nil raw is an
	// operation value that was JSON null.
	raw []byte
	obj map[string]*node
	arr []*node
}

// ErrServerPanics is the cause of an *Error for an input on which the
// apiserver's JSON Patch library panics (nil map assignment or nil
// dereference): kube-apiserver then aborts the request stream, and kubectl
// reports "stream error: ... INTERNAL_ERROR". The status is a synthetic 500.
var ErrServerPanics = errors.New("kube-apiserver panics on this patch and aborts the request (HTTP/2 stream INTERNAL_ERROR)")

func valueNode(v any) *node {
	if v == nil {
		return nil
	}
	return &node{fromVal: true, val: v}
}

func rawNode(raw *json.RawMessage) *node {
	if raw == nil {
		return &node{}
	}
	return &node{raw: *raw}
}

// text returns the node's JSON text; nil for a null operation value.
func (n *node) text() []byte {
	if n.fromVal && n.raw == nil {
		n.raw = encodeStd(n.val)
	}
	return n.raw
}

func (n *node) textNil() bool { return !n.fromVal && n.raw == nil }

// isArrayText reports whether the node's text starts with '[' after the
// blanks the library skips (space, newline, tab).
func (n *node) isArrayText() bool {
	if n.fromVal {
		_, ok := n.val.([]any)
		return ok
	}
	for _, c := range n.raw {
		switch c {
		case ' ', '\n', '\t':
			continue
		case '[':
			return true
		default:
			return false
		}
	}
	return false
}

// intoObj parses the node as an object (JSON null gives a nil map).
func (n *node) intoObj() bool {
	if n.form == formObj {
		return true
	}
	if n.textNil() {
		return false
	}
	if n.fromVal {
		m, ok := n.val.(map[string]any)
		if !ok {
			return false
		}
		n.obj = make(map[string]*node, len(m))
		for k, v := range m {
			n.obj[k] = valueNode(v)
		}
		n.form = formObj
		return true
	}
	var m map[string]*json.RawMessage
	if err := json.Unmarshal(n.raw, &m); err != nil {
		return false
	}
	if m != nil {
		n.obj = make(map[string]*node, len(m))
		for k, v := range m {
			if v == nil {
				n.obj[k] = nil
			} else {
				n.obj[k] = &node{raw: *v}
			}
		}
	}
	n.form = formObj
	return true
}

// intoArr parses the node as an array (JSON null gives a nil slice).
func (n *node) intoArr() bool {
	if n.form == formArr {
		return true
	}
	if n.textNil() {
		return false
	}
	if n.fromVal {
		s, ok := n.val.([]any)
		if !ok {
			return false
		}
		n.arr = make([]*node, len(s))
		for i, v := range s {
			n.arr[i] = valueNode(v)
		}
		n.form = formArr
		return true
	}
	var s []*json.RawMessage
	if err := json.Unmarshal(n.raw, &s); err != nil {
		return false
	}
	if s != nil {
		n.arr = make([]*node, len(s))
		for i, v := range s {
			if v != nil {
				n.arr[i] = &node{raw: *v}
			}
		}
	}
	n.form = formArr
	return true
}

// compact is the node's text without blanks, as json.Compact leaves it.
func compact(raw []byte) []byte {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// equal is the library's structural comparison of a document node n with an
// operation value o. It mirrors the library's asymmetries: scalars compare by
// compact text (so "\u0041" differs from "A", 1 from 1.0), and a null inside a
// parsed array, or a missing o, is dereferenced and panics (ErrServerPanics).
func equal(n, o *node) (bool, error) {
	if n == nil {
		return false, ErrServerPanics
	}
	if n.form == formRaw {
		if !n.intoObjTry() && !n.intoArrTry() {
			if o == nil {
				return false, ErrServerPanics
			}
			if o.form != formRaw {
				return false, nil
			}
			return bytes.Equal(compact(n.text()), compact(o.text())), nil
		}
	}
	if n.form == formObj {
		if o == nil {
			return false, ErrServerPanics
		}
		if o.form == formRaw && !o.intoObjTry() {
			return false, nil
		}
		if o.form != formObj {
			return false, nil
		}
		if len(n.obj) != len(o.obj) {
			return false, nil
		}
		for _, k := range sortedNodeKeys(n.obj) {
			v := n.obj[k]
			ov, ok := o.obj[k]
			if !ok {
				return false, nil
			}
			if (v == nil) != (ov == nil) {
				return false, nil
			}
			if v == nil {
				continue
			}
			eq, err := equal(v, ov)
			if err != nil || !eq {
				return eq, err
			}
		}
		return true, nil
	}
	if o == nil {
		return false, ErrServerPanics
	}
	if o.form != formArr && !o.intoArrTry() {
		return false, nil
	}
	if len(n.arr) != len(o.arr) {
		return false, nil
	}
	for i, v := range n.arr {
		eq, err := equal(v, o.arr[i])
		if err != nil || !eq {
			return eq, err
		}
	}
	return true, nil
}

// intoObjTry and intoArrTry are the library's tryDoc/tryAry: like intoObj and
// intoArr but they re-parse whatever form the node is in, which only differs
// when the node was already parsed as the other kind (then they fail).
func (n *node) intoObjTry() bool {
	if n.form == formArr {
		return false
	}
	return n.intoObj()
}

func (n *node) intoArrTry() bool {
	if n.form == formObj {
		// An object's text never decodes as an array; null parsed as an
		// object stays an object.
		return false
	}
	return n.intoArr()
}

func sortedNodeKeys(m map[string]*node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// marshal appends the node as encoding/json.Marshal writes the library's
// nodes: sorted keys, raw text compacted with HTML escaping, null for a nil
// node, a null operation value, a nil map or a nil slice.
func marshal(buf *bytes.Buffer, n *node) {
	if n == nil {
		buf.WriteString("null")
		return
	}
	switch n.form {
	case formRaw:
		if n.fromVal {
			buf.Write(n.text())
			return
		}
		if n.raw == nil {
			buf.WriteString("null")
			return
		}
		var c bytes.Buffer
		if err := json.Compact(&c, n.raw); err != nil {
			buf.Write(n.raw)
			return
		}
		json.HTMLEscape(buf, c.Bytes())
	case formObj:
		if n.obj == nil {
			buf.WriteString("null")
			return
		}
		buf.WriteByte('{')
		for i, k := range sortedNodeKeys(n.obj) {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			marshal(buf, n.obj[k])
		}
		buf.WriteByte('}')
	case formArr:
		if n.arr == nil {
			buf.WriteString("null")
			return
		}
		buf.WriteByte('[')
		for i, e := range n.arr {
			if i > 0 {
				buf.WriteByte(',')
			}
			marshal(buf, e)
		}
		buf.WriteByte(']')
	}
}

// encodeStd is encoding/json.Marshal of an object-model value (sorted keys,
// HTML escaping), the bytes the apiserver's JSON encoder gives the library.
func encodeStd(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only non-finite floats fail; the entry points reject them first.
		return []byte("null")
	}
	return b
}

// container operations: get, set (replace), add and remove on an object or
// array node, with the library's index rules (negative indices count from the
// end, leading zeros and '+' accepted as strconv.Atoi accepts them).

func get(c *node, key string) (*node, error) {
	if c.form == formObj {
		return c.obj[key], nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return nil, err
	}
	if idx < 0 {
		if idx < -len(c.arr) {
			return nil, invalidIndex(idx)
		}
		idx += len(c.arr)
	}
	if idx >= len(c.arr) {
		return nil, invalidIndex(idx)
	}
	return c.arr[idx], nil
}

func set(c *node, key string, v *node) error {
	if c.form == formObj {
		if c.obj == nil {
			return ErrServerPanics
		}
		c.obj[key] = v
		return nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return err
	}
	if idx < 0 {
		if idx < -len(c.arr) {
			return invalidIndex(idx)
		}
		idx += len(c.arr)
	}
	c.arr[idx] = v
	return nil
}

func add(c *node, key string, v *node) error {
	if c.form == formObj {
		return set(c, key, v)
	}
	if key == "-" {
		c.arr = append(c.arr, v)
		return nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return fmt.Errorf("value was not a proper array index: '%s': %w", key, err)
	}
	size := len(c.arr) + 1
	if idx >= size {
		return invalidIndex(idx)
	}
	if idx < 0 {
		if idx < -size {
			return invalidIndex(idx)
		}
		idx += size
	}
	out := make([]*node, size)
	copy(out, c.arr[:idx])
	out[idx] = v
	copy(out[idx+1:], c.arr[idx:])
	c.arr = out
	return nil
}

func remove(c *node, key string) error {
	if c.form == formObj {
		if _, ok := c.obj[key]; !ok {
			return fmt.Errorf("Unable to remove nonexistent key: %s: %w", key, ErrMissing)
		}
		delete(c.obj, key)
		return nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return err
	}
	if idx >= len(c.arr) {
		return invalidIndex(idx)
	}
	if idx < 0 {
		if idx < -len(c.arr) {
			return invalidIndex(idx)
		}
		idx += len(c.arr)
	}
	out := make([]*node, len(c.arr)-1)
	copy(out, c.arr[:idx])
	copy(out[idx:], c.arr[idx+1:])
	c.arr = out
	return nil
}

func invalidIndex(idx int) error {
	return fmt.Errorf("Unable to access invalid index: %d: %w", idx, ErrInvalidIndex)
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// find walks path to the container of its last token, as the library does:
// a path needs at least one '/', every intermediate value must exist, be
// non-null and parse as an object or array. It returns nil when it cannot.
func find(root *node, path string) (*node, string) {
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return nil, ""
	}
	c := root
	for _, part := range parts[1 : len(parts)-1] {
		next, err := get(c, pointerUnescaper.Replace(part))
		if next == nil || err != nil || next.textNil() {
			return nil, ""
		}
		if next.isArrayText() {
			if !next.intoArr() {
				return nil, ""
			}
		} else if !next.intoObj() {
			return nil, ""
		}
		c = next
	}
	return c, pointerUnescaper.Replace(parts[len(parts)-1])
}
