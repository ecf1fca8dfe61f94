package field

import "strings"

// ErrorList is a list of field errors, in the order they were found.
type ErrorList []*Error

// ToAggregate returns the list as one error, or nil when the list has no
// non-nil error. Errors with the same message are kept once, first occurrence
// first, as apimachinery's ToAggregate does. The result prints like
// apimachinery's aggregate: a single error prints as itself, several print as
// "[a, b]". It unwraps to the kept *Error values, so errors.As and errors.Is
// reach each of them. The list is not modified.
func (list ErrorList) ToAggregate() error {
	agg := list.dedup()
	if len(agg) == 0 {
		return nil
	}
	return agg
}

// dedup returns the non-nil errors of list, each message once, in a new slice.
func (list ErrorList) dedup() aggregate {
	var out aggregate
	seen := make(map[string]struct{}, len(list))
	for _, e := range list {
		if e == nil {
			continue
		}
		msg := e.Error()
		if _, dup := seen[msg]; dup {
			continue
		}
		seen[msg] = struct{}{}
		out = append(out, e)
	}
	return out
}

// Filter returns a new list without the errors for which any of the matchers
// returns true. Like apimachinery's Filter it goes through ToAggregate, so
// errors with a repeated message are kept once, and it returns nil when no error
// remains. The list is not modified.
func (list ErrorList) Filter(matchers ...func(*Error) bool) ErrorList {
	var out ErrorList
	for _, e := range list.dedup() {
		drop := false
		for _, m := range matchers {
			if m(e) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, e)
		}
	}
	return out
}

// OfType returns a matcher, for Filter, of the errors of type t.
func OfType(t ErrorType) func(*Error) bool {
	return func(e *Error) bool { return e.Type == t }
}

// aggregate is the error ToAggregate returns: at least one *Error, messages
// distinct.
type aggregate []*Error

// Error prints one error as itself and several as "[a, b, ...]".
func (agg aggregate) Error() string {
	if len(agg) == 1 {
		return agg[0].Error()
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range agg {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Error())
	}
	b.WriteByte(']')
	return b.String()
}

// Errors returns the errors of the aggregate in a new slice.
func (agg aggregate) Errors() []error {
	out := make([]error, len(agg))
	for i, e := range agg {
		out[i] = e
	}
	return out
}

// Unwrap returns the errors of the aggregate, for errors.Is and errors.As.
func (agg aggregate) Unwrap() []error { return agg.Errors() }
