package fields

import (
	"fmt"
	"sort"
	"strings"
)

// Term is one requirement of a field selector: Field equal to Value, or not equal when NotEqual.
type Term struct {
	Field    string
	Value    string
	NotEqual bool
}

// Selector is a conjunction of terms. The zero value selects everything.
type Selector struct {
	terms []Term
}

// Terms returns the selector's terms in order (a fresh slice).
func (s Selector) Terms() []Term { return append([]Term(nil), s.terms...) }

// Empty reports whether the selector selects everything.
func (s Selector) Empty() bool { return len(s.terms) == 0 }

// Matches reports whether the set of fields satisfies every term; a field absent from the set
// has the value "".
func (s Selector) Matches(set map[string]string) bool {
	for _, t := range s.terms {
		if (set[t.Field] == t.Value) == t.NotEqual {
			return false
		}
	}
	return true
}

// RequiresExactMatch returns the value an `=` term requires of field, if there is one.
func (s Selector) RequiresExactMatch(field string) (string, bool) {
	for _, t := range s.terms {
		if t.Field == field && !t.NotEqual {
			return t.Value, true
		}
	}
	return "", false
}

// Transform returns the selector with each term's field and value replaced by fn's answer; fn's
// first error is the result.
func (s Selector) Transform(fn func(field, value string) (string, string, error)) (Selector, error) {
	out := Selector{terms: make([]Term, 0, len(s.terms))}
	for _, t := range s.terms {
		f, v, err := fn(t.Field, t.Value)
		if err != nil {
			return Selector{}, err
		}
		out.terms = append(out.terms, Term{Field: f, Value: v, NotEqual: t.NotEqual})
	}
	return out, nil
}

// String prints the selector in the syntax Parse reads, values escaped.
func (s Selector) String() string {
	parts := make([]string, 0, len(s.terms))
	for _, t := range s.terms {
		op := "="
		if t.NotEqual {
			op = "!="
		}
		parts = append(parts, t.Field+op+escape(t.Value))
	}
	return strings.Join(parts, ",")
}

var escaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

func escape(s string) string { return escaper.Replace(s) }

// Parse reads a field selector. The empty string selects everything.
func Parse(selector string) (Selector, error) {
	parts := splitTerms(selector)
	sort.Strings(parts)
	var sel Selector
	for _, part := range parts {
		if part == "" {
			continue
		}
		lhs, op, rhs, ok := splitTerm(part)
		if !ok {
			return Selector{}, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", selector, part)
		}
		v, err := unescape(rhs)
		if err != nil {
			return Selector{}, err
		}
		sel.terms = append(sel.terms, Term{Field: lhs, Value: v, NotEqual: op == "!="})
	}
	return sel, nil
}

// splitTerms splits at commas not escaped by a backslash.
func splitTerms(s string) []string {
	if s == "" {
		return nil
	}
	var terms []string
	start, inSlash := 0, false
	for i, c := range s {
		switch {
		case inSlash:
			inSlash = false
		case c == '\\':
			inSlash = true
		case c == ',':
			terms = append(terms, s[start:i])
			start = i + 1
		}
	}
	return append(terms, s[start:])
}

// splitTerm finds the first operator, "!=" before "==" before "=" at each position.
func splitTerm(term string) (lhs, op, rhs string, ok bool) {
	for i := range term {
		rest := term[i:]
		for _, op := range []string{"!=", "==", "="} {
			if strings.HasPrefix(rest, op) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

func unescape(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	inSlash := false
	for _, c := range s {
		if inSlash {
			switch c {
			case '\\', ',', '=':
				b.WriteRune(c)
			default:
				return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", string([]rune{'\\', c}))
			}
			inSlash = false
			continue
		}
		switch c {
		case '\\':
			inSlash = true
		case ',', '=':
			return "", fmt.Errorf("invalid field selector: unescaped character in value: %v", c)
		default:
			b.WriteRune(c)
		}
	}
	if inSlash {
		return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", `\`)
	}
	return b.String(), nil
}
