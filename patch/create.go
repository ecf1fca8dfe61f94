package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// CreateJSONPatch returns a JSON Patch that turns from into to, as a mutating
// admission webhook returns it: applying it to from with ApplyJSONPatch gives
// to. It is deterministic (object members in sorted order) and small: equal
// values give no operation, a changed scalar one "replace", a new or removed
// member one "add" or "remove", and arrays keep their common prefix and suffix
// and patch only the middle. The result is "[]" when the objects are equal.
// Neither argument is modified.
func CreateJSONPatch(from, to map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	w := &opWriter{buf: &buf}
	if err := w.diff("", from, to); err != nil {
		return nil, err
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

type opWriter struct {
	buf *bytes.Buffer
	n   int
}

func (w *opWriter) op(kind, path string, value any, withValue bool) error {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	p, _ := json.Marshal(path)
	fmt.Fprintf(w.buf, `{"op":%q,"path":%s`, kind, p)
	if withValue {
		v, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		w.buf.WriteString(`,"value":`)
		w.buf.Write(v)
	}
	w.buf.WriteByte('}')
	return nil
}

func (w *opWriter) diff(path string, a, b any) error {
	switch at := a.(type) {
	case map[string]any:
		if bt, ok := b.(map[string]any); ok && (at == nil) == (bt == nil) {
			return w.diffObject(path, at, bt)
		}
	case []any:
		if bt, ok := b.([]any); ok && (at == nil) == (bt == nil) {
			return w.diffArray(path, at, bt)
		}
	}
	if same(a, b) {
		return nil
	}
	return w.op("replace", path, b, true)
}

func (w *opWriter) diffObject(path string, a, b map[string]any) error {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := path + "/" + pointerEscaper.Replace(k)
		av, inA := a[k]
		bv, inB := b[k]
		var err error
		switch {
		case inA && !inB:
			err = w.op("remove", p, nil, false)
		case !inA && inB:
			err = w.op("add", p, bv, true)
		default:
			err = w.diff(p, av, bv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *opWriter) diffArray(path string, a, b []any) error {
	pre := 0
	for pre < len(a) && pre < len(b) && same(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && same(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	common := min(len(am), len(bm))
	for i := 0; i < common; i++ {
		if err := w.diff(path+"/"+strconv.Itoa(pre+i), am[i], bm[i]); err != nil {
			return err
		}
	}
	for i := len(am) - 1; i >= common; i-- {
		if err := w.op("remove", path+"/"+strconv.Itoa(pre+i), nil, false); err != nil {
			return err
		}
	}
	for i := common; i < len(bm); i++ {
		if err := w.op("add", path+"/"+strconv.Itoa(pre+i), bm[i], true); err != nil {
			return err
		}
	}
	return nil
}

// same is deep equality of object-model values, with int64 and float64 equal
// only when they are the same type and value (1 and 1.0 are different JSON).
func same(a, b any) bool {
	switch at := a.(type) {
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok || len(at) != len(bt) || (at == nil) != (bt == nil) {
			return false
		}
		for k, v := range at {
			bv, ok := bt[k]
			if !ok || !same(v, bv) {
				return false
			}
		}
		return true
	case []any:
		bt, ok := b.([]any)
		if !ok || len(at) != len(bt) || (at == nil) != (bt == nil) {
			return false
		}
		for i := range at {
			if !same(at[i], bt[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		bt, ok := b.(bool)
		return ok && at == bt
	case int64:
		bt, ok := b.(int64)
		return ok && at == bt
	case float64:
		bt, ok := b.(float64)
		return ok && at == bt
	case string:
		bt, ok := b.(string)
		return ok && at == bt
	}
	return false
}
