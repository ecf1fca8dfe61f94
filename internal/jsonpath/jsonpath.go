package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Options are the execution options.
type Options struct {
	// AllowMissingKeys prints nothing for a field that is not there, instead of the error
	// "NAME is not found" (kubectl's --allow-missing-template-keys, true by default).
	AllowMissingKeys bool
	// JSONOutput prints each action's results as one indented JSON array (kubectl's -o
	// jsonpath-as-json).
	JSONOutput bool
}

// Template is a parsed template.
type Template struct {
	items []item
	// endErr is the error of an {end} with no {range} open, which kubectl reports when the
	// template runs, not when it is parsed.
	endErr error
}

// item is a top-level piece: text, an action, or a range block.
type item struct {
	text   *string
	action []step
	// body is set for a range: action is its expression, body what runs for each result.
	body  []item
	isRng bool
}

type stepKind int

const (
	stepField stepKind = iota
	stepWildcard
	stepRecursive
	stepSlice
	stepUnion
	stepFilter
	stepText
	stepInt
	stepFloat
	stepBool
	stepIdent
)

// step is one element of an action, applied to the current results in turn.
type step struct {
	kind  stepKind
	name  string // field name, text, identifier
	slice [3]sliceParam
	union [][]step
	// filter
	left, right []step
	op          string
	i           int
	f           float64
	b           bool
}

type sliceParam struct {
	value   int
	known   bool
	derived bool // the end of [n], n+1
}

// Execute writes the template applied to data. data is the object model's value: maps,
// slices, strings, int64, float64, bool and nil.
func (t *Template) Execute(w io.Writer, data any, opts Options) error {
	if t.endErr != nil {
		return t.endErr
	}
	return execItems(w, t.items, data, opts)
}

func execItems(w io.Writer, items []item, data any, opts Options) error {
	for _, it := range items {
		switch {
		case it.text != nil:
			if _, err := io.WriteString(w, *it.text); err != nil {
				return err
			}
		case it.isRng:
			results, err := eval([]any{data}, it.action, opts)
			if err != nil {
				return err
			}
			for _, r := range results {
				if err := execItems(w, it.body, r, opts); err != nil {
					return err
				}
			}
		default:
			results, err := eval([]any{data}, it.action, opts)
			if err != nil {
				return err
			}
			if opts.JSONOutput {
				if results == nil {
					results = []any{}
				}
				text, err := json.MarshalIndent(results, "", "    ")
				if err != nil {
					return err
				}
				if _, err := w.Write(append(text, '\n')); err != nil {
					return err
				}
				continue
			}
			if err := printResults(w, results); err != nil {
				return err
			}
		}
	}
	return nil
}

// printResults writes an action's results separated by spaces, as kubectl's PrintResults.
func printResults(w io.Writer, results []any) error {
	for i, r := range results {
		var text []byte
		switch v := r.(type) {
		case map[string]any, []any:
			var err error
			if text, err = json.Marshal(v); err != nil {
				return err
			}
		case nil:
			text = []byte("null")
		default:
			text = fmt.Append(nil, v)
		}
		if i != len(results)-1 {
			text = append(text, ' ')
		}
		if _, err := w.Write(text); err != nil {
			return err
		}
	}
	return nil
}

func eval(cur []any, steps []step, opts Options) ([]any, error) {
	var err error
	for i := range steps {
		if cur, err = evalStep(cur, &steps[i], opts); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func evalStep(input []any, s *step, opts Options) ([]any, error) {
	switch s.kind {
	case stepText:
		return []any{s.name}, nil
	case stepInt:
		return repeat(int64(s.i), len(input)), nil
	case stepFloat:
		return repeat(s.f, len(input)), nil
	case stepBool:
		return repeat(s.b, len(input)), nil
	case stepIdent:
		return nil, fmt.Errorf("unrecognized identifier %v", s.name)
	case stepField:
		return evalField(input, s.name, opts)
	case stepWildcard:
		var out []any
		for _, v := range input {
			out = append(out, children(v)...)
		}
		return out, nil
	case stepRecursive:
		var out []any
		for _, v := range input {
			out = append(out, descend(v)...)
		}
		return out, nil
	case stepSlice:
		return evalSlice(input, s.slice)
	case stepUnion:
		var out []any
		for _, u := range s.union {
			r, err := eval(input, u, opts)
			if err != nil {
				return nil, err
			}
			out = append(out, r...)
		}
		return out, nil
	case stepFilter:
		return evalFilter(input, s, opts)
	}
	return nil, fmt.Errorf("unexpected step %d", s.kind)
}

func repeat(v any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func evalField(input []any, name string, opts Options) ([]any, error) {
	if len(input) == 0 {
		return nil, nil
	}
	var out []any
	for _, v := range input {
		if m, ok := v.(map[string]any); ok {
			if x, found := m[name]; found {
				out = append(out, x)
			}
		}
	}
	if len(out) == 0 && !opts.AllowMissingKeys {
		return nil, fmt.Errorf("%s is not found", name)
	}
	return out, nil
}

// children are a map's values (in key order), a list's elements, and a string's bytes, as
// kubectl's wildcard gives them (printed as numbers).
func children(v any) []any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = x[k]
		}
		return out
	case []any:
		return x
	case string:
		out := make([]any, len(x))
		for i := range x {
			out[i] = x[i]
		}
		return out
	}
	return nil
}

// descend is the recursive descent: v and every map or list below it, in pre-order, when v has
// something below it.
func descend(v any) []any {
	kids := children(v)
	if len(kids) == 0 {
		return nil
	}
	out := []any{v}
	for _, k := range kids {
		out = append(out, descend(k)...)
	}
	return out
}

func typeName(v any) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%T", v)
}

func evalSlice(input []any, p [3]sliceParam) ([]any, error) {
	var out []any
	for _, v := range input {
		if v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%v is not array or slice", typeName(v))
		}
		n := len(list)
		start, end := 0, n
		if p[0].known {
			start = p[0].value
		}
		if start < 0 {
			start += n
		}
		if p[1].known {
			end = p[1].value
		}
		if end < 0 || (end == 0 && p[1].derived) {
			end += n
		}
		if end == start {
			return out, nil // zero elements asked: allowed whatever the length
		}
		if start >= n || start < 0 {
			return nil, fmt.Errorf("array index out of bounds: index %d, length %d", start, n)
		}
		if end > n || end < 0 {
			return nil, fmt.Errorf("array index out of bounds: index %d, length %d", end-1, n)
		}
		if start > end {
			return nil, fmt.Errorf("starting index %d is greater than ending index %d", start, end)
		}
		stepBy := 1
		if p[2].known {
			if p[2].value <= 0 {
				return nil, errors.New("step must be > 0")
			}
			stepBy = p[2].value
		}
		for i := start; i < end; i += stepBy {
			out = append(out, list[i])
		}
	}
	return out, nil
}

func evalFilter(input []any, s *step, opts Options) ([]any, error) {
	var out []any
	for _, v := range input {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%v is not array or slice and cannot be filtered", jsonText(v))
		}
		for _, el := range list {
			lefts, err := eval([]any{el}, s.left, opts)
			if s.op == "exists" {
				if len(lefts) > 0 {
					out = append(out, el)
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			if len(lefts) == 0 {
				continue
			}
			if len(lefts) > 1 {
				return nil, errors.New("can only compare one element at a time")
			}
			rights, err := eval([]any{el}, s.right, opts)
			if err != nil {
				return nil, err
			}
			if len(rights) == 0 {
				continue
			}
			if len(rights) > 1 {
				return nil, errors.New("can only compare one element at a time")
			}
			pass, err := compare(lefts[0], rights[0], s.op)
			if err != nil {
				return nil, err
			}
			if pass {
				out = append(out, el)
			}
		}
	}
	return out, nil
}

// jsonText is how kubectl's filter error shows a value that is not a list (Go's %v).
func jsonText(v any) string { return fmt.Sprint(v) }

// compare is text/template's comparison functions (eq, ne, lt, gt, le, ge) on two basic values,
// as kubectl's filters use them: integers with integers, floats with floats, strings with
// strings; booleans for == and != only.
func compare(a, b any, op string) (bool, error) {
	ka, kb := basicKind(a), basicKind(b)
	if ka == kindInvalid || kb == kindInvalid {
		if op == "==" || op == "!=" {
			if ka != kb {
				return false, errors.New("incompatible types for comparison")
			}
			return false, errors.New("invalid type for comparison")
		}
		return false, errors.New("invalid type for comparison")
	}
	if ka != kb {
		return false, errors.New("incompatible types for comparison")
	}
	var c int
	switch ka {
	case kindBool:
		if op != "==" && op != "!=" {
			return false, errors.New("invalid type for comparison")
		}
		if a.(bool) != b.(bool) {
			c = 1
		}
	case kindInt:
		x, y := toInt(a), toInt(b)
		c = cmpOrdered(x, y)
	case kindFloat:
		c = cmpOrdered(a.(float64), b.(float64))
	case kindString:
		c = cmpOrdered(a.(string), b.(string))
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unrecognized filter operator %s", op)
}

type kind int

const (
	kindInvalid kind = iota
	kindBool
	kindInt
	kindFloat
	kindString
)

func basicKind(v any) kind {
	switch v.(type) {
	case bool:
		return kindBool
	case int, int64, uint8:
		return kindInt
	case float64:
		return kindFloat
	case string:
		return kindString
	}
	return kindInvalid
}

func toInt(v any) int64 {
	switch i := v.(type) {
	case int:
		return int64(i)
	case uint8:
		return int64(i)
	}
	return v.(int64)
}

func cmpOrdered[T int64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// First returns the first result of the template's first piece applied to data, as a custom
// resource's printer column reads its JSONPath (client-go's FindResults, results[0][0]): ok is
// false when there is none. A text piece is its own result.
func (t *Template) First(data any, opts Options) (result any, ok bool, err error) {
	if t.endErr != nil {
		return nil, false, t.endErr
	}
	if len(t.items) == 0 {
		return nil, false, nil
	}
	it := t.items[0]
	if it.text != nil {
		return *it.text, true, nil
	}
	results, err := eval([]any{data}, it.action, opts)
	if err != nil || len(results) == 0 {
		return nil, false, err
	}
	return results[0], true, nil
}

// Text is one result as Execute prints it: strings as they are, numbers and booleans as Go
// prints them, maps and lists as compact JSON, nil as null.
func Text(v any) (string, error) {
	var b bytes.Buffer
	if err := printResults(&b, []any{v}); err != nil {
		return "", err
	}
	return b.String(), nil
}
