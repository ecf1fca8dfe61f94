package labels

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// Operator is a requirement's operator, spelled as selection.Operator spells it.
type Operator string

// The operators of selection.Operator.
const (
	DoesNotExist Operator = "!"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	In           Operator = "in"
	NotEquals    Operator = "!="
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

var validOperators = []Operator{In, NotIn, Equals, DoubleEquals, NotEquals, GreaterThan, LessThan, Exists, DoesNotExist}

// Requirement is one condition on one label key.
type Requirement struct {
	Key      string
	Operator Operator
	// Values as given (the string parser passes them sorted and without duplicates).
	Values []string
}

// NewRequirement checks a requirement as labels.NewRequirement does; path prefixes the
// field paths of its errors ("" for none, which apimachinery prints as the field names
// alone).
func NewRequirement(key string, op Operator, values []string) (Requirement, error) {
	return newRequirement(key, op, values, "")
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func newRequirement(key string, op Operator, values []string, path string) (Requirement, error) {
	var errs field.ErrorList
	if e := keyError(key, child(path, "key")); e != nil {
		errs = append(errs, e)
	}
	valuePath := child(path, "values")
	bad := func(v any, detail string) {
		errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: valuePath, BadValue: v, Detail: detail})
	}
	switch op {
	case In, NotIn:
		if len(values) == 0 {
			bad(values, "for 'in', 'notin' operators, values set can't be empty")
		}
	case Equals, DoubleEquals, NotEquals:
		if len(values) != 1 {
			bad(values, "exact-match compatibility requires one single value")
		}
	case Exists, DoesNotExist:
		if len(values) != 0 {
			bad(values, "values set must be empty for exists and does not exist")
		}
	case GreaterThan, LessThan:
		if len(values) != 1 {
			bad(values, "for 'Gt', 'Lt' operators, exactly one value is required")
		}
		for i, v := range values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: valuePath + "[" + strconv.Itoa(i) + "]", BadValue: v,
					Detail: "for 'Gt', 'Lt' operators, the value must be an integer"})
			}
		}
	default:
		errs = append(errs, field.NotSupported(field.Path{}, string(op), validOperators))
		errs[len(errs)-1].Field = child(path, "operator")
	}
	for i, v := range values {
		if msgs := validation.IsValidLabelValue(v); len(msgs) != 0 {
			errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: valuePath + "[" + strconv.Itoa(i) + "][" + key + "]", BadValue: v,
				Detail: strings.Join(msgs, "; ")})
		}
	}
	return Requirement{Key: key, Operator: op, Values: values}, errs.ToAggregate()
}

func keyError(key, path string) *field.Error {
	if msgs := validation.IsQualifiedName(key); len(msgs) != 0 {
		return &field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: key, Detail: strings.Join(msgs, "; ")}
	}
	return nil
}

// Matches reports whether labels satisfy r, as Requirement.Matches does.
func (r Requirement) Matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	switch r.Operator {
	case In, Equals, DoubleEquals:
		return has && slices.Contains(r.Values, v)
	case NotIn, NotEquals:
		return !has || !slices.Contains(r.Values, v)
	case Exists:
		return has
	case DoesNotExist:
		return !has
	case GreaterThan, LessThan:
		if !has || len(r.Values) != 1 {
			return false
		}
		lv, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		rv, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		return (r.Operator == GreaterThan && lv > rv) || (r.Operator == LessThan && lv < rv)
	}
	return false
}

// String prints r as Requirement.String does (values sorted).
func (r Requirement) String() string {
	var b strings.Builder
	if r.Operator == DoesNotExist {
		b.WriteString("!")
	}
	b.WriteString(r.Key)
	switch r.Operator {
	case Equals:
		b.WriteString("=")
	case DoubleEquals:
		b.WriteString("==")
	case NotEquals:
		b.WriteString("!=")
	case In:
		b.WriteString(" in ")
	case NotIn:
		b.WriteString(" notin ")
	case GreaterThan:
		b.WriteString(">")
	case LessThan:
		b.WriteString("<")
	case Exists, DoesNotExist:
		return b.String()
	}
	set := r.Operator == In || r.Operator == NotIn
	if set {
		b.WriteString("(")
	}
	vals := r.Values
	if len(vals) > 1 && !sort.StringsAreSorted(vals) {
		vals = slices.Clone(vals)
		sort.Strings(vals)
	}
	b.WriteString(strings.Join(vals, ","))
	if set {
		b.WriteString(")")
	}
	return b.String()
}

// Selector is a conjunction of requirements sorted by key, or Nothing. The zero value
// is Everything.
type Selector struct {
	reqs    []Requirement
	nothing bool
}

// Everything matches every set of labels.
func Everything() Selector { return Selector{} }

// Nothing matches no set of labels.
func Nothing() Selector { return Selector{nothing: true} }

// New is the selector of reqs (sorted by key, stable); the requirements are not checked.
func New(reqs ...Requirement) Selector {
	s := Selector{reqs: slices.Clone(reqs)}
	sort.SliceStable(s.reqs, func(i, j int) bool { return s.reqs[i].Key < s.reqs[j].Key })
	return s
}

// FromSet is SelectorFromSet: key=value for every entry; empty is Everything.
func FromSet(set map[string]string) Selector {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := Selector{}
	for _, k := range keys {
		s.reqs = append(s.reqs, Requirement{Key: k, Operator: Equals, Values: []string{set[k]}})
	}
	return s
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for _, r := range s.reqs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// MatchesObject matches the metadata.labels of obj (string values only; a nil obj has
// no labels).
func (s Selector) MatchesObject(obj map[string]any) bool {
	return s.Matches(Of(obj))
}

// Of returns the string-valued entries of obj's metadata.labels, in a new map.
func Of(obj map[string]any) map[string]string {
	md, _ := obj["metadata"].(map[string]any)
	ls, _ := md["labels"].(map[string]any)
	out := make(map[string]string, len(ls))
	for k, v := range ls {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// Empty reports whether s restricts nothing (Everything); Nothing is not empty.
func (s Selector) Empty() bool { return !s.nothing && len(s.reqs) == 0 }

// MatchesNothing reports whether s is Nothing.
func (s Selector) MatchesNothing() bool { return s.nothing }

// Requirements returns the requirements in key order, in a new slice; Nothing has none
// (and reports false, as Selector.Requirements does).
func (s Selector) Requirements() ([]Requirement, bool) {
	if s.nothing {
		return nil, false
	}
	return slices.Clone(s.reqs), true
}

// String prints s as Selector.String does ("" for Everything and Nothing).
func (s Selector) String() string {
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// RequiresExactMatch reports the single value s requires for label, as
// Selector.RequiresExactMatch does.
func (s Selector) RequiresExactMatch(label string) (string, bool) {
	for _, r := range s.reqs {
		if r.Key == label {
			switch r.Operator {
			case Equals, DoubleEquals, In:
				if len(r.Values) == 1 {
					return r.Values[0], true
				}
			}
			return "", false
		}
	}
	return "", false
}

// FromLabelSelector reads a metav1.LabelSelector from the object model (map[string]any
// with matchLabels and matchExpressions) as LabelSelectorAsSelector does: nil is
// Nothing, no requirements is Everything.
func FromLabelSelector(v any) (Selector, error) {
	if v == nil {
		return Nothing(), nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Selector{}, fmt.Errorf("label selector must be an object, not %T", v)
	}
	ml, isMap := m["matchLabels"].(map[string]any)
	if x := m["matchLabels"]; x != nil && !isMap {
		return Selector{}, fmt.Errorf("matchLabels must be an object, not %T", x)
	}
	exprs, isList := m["matchExpressions"].([]any)
	if x := m["matchExpressions"]; x != nil && !isList {
		return Selector{}, fmt.Errorf("matchExpressions must be a list, not %T", x)
	}
	if len(ml)+len(exprs) == 0 {
		return Everything(), nil
	}
	keys := make([]string, 0, len(ml))
	for k := range ml {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	reqs := make([]Requirement, 0, len(ml)+len(exprs))
	for _, k := range keys {
		val, ok := ml[k].(string)
		if !ok {
			return Selector{}, fmt.Errorf("matchLabels.%s must be a string, not %T", k, ml[k])
		}
		r, err := NewRequirement(k, Equals, []string{val})
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	for i, e := range exprs {
		em, ok := e.(map[string]any)
		if !ok {
			return Selector{}, fmt.Errorf("matchExpressions[%d] must be an object, not %T", i, e)
		}
		key, _ := em["key"].(string)
		opName, _ := em["operator"].(string)
		var op Operator
		switch opName {
		case "In":
			op = In
		case "NotIn":
			op = NotIn
		case "Exists":
			op = Exists
		case "DoesNotExist":
			op = DoesNotExist
		default:
			return Selector{}, fmt.Errorf("%q is not a valid label selector operator", opName)
		}
		var vals []string
		if raw, ok := em["values"].([]any); ok {
			for j, x := range raw {
				s, ok := x.(string)
				if !ok {
					return Selector{}, fmt.Errorf("matchExpressions[%d].values[%d] must be a string, not %T", i, j, x)
				}
				vals = append(vals, s)
			}
		}
		r, err := NewRequirement(key, op, vals)
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	return New(reqs...), nil
}
