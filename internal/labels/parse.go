package labels

import (
	"fmt"
	"sort"
	"strings"
)

// token is a lexer token of the selector syntax.
type token int

const (
	tokError token = iota
	tokEnd
	tokClosePar
	tokComma
	tokNot
	tokDoubleEquals
	tokEquals
	tokGreater
	tokIdent
	tokIn
	tokLess
	tokNotEquals
	tokNotIn
	tokOpenPar
)

var literalTokens = map[string]token{
	")": tokClosePar, ",": tokComma, "!": tokNot, "==": tokDoubleEquals, "=": tokEquals,
	">": tokGreater, "in": tokIn, "<": tokLess, "!=": tokNotEquals, "notin": tokNotIn, "(": tokOpenPar,
}

// binaryOperators is the list the parser's "expected" message names.
const binaryOperators = "in, notin, =, ==, !=, gt, lt"

type item struct {
	tok token
	lit string
}

func isSpace(c byte) bool   { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
func isSpecial(c byte) bool { return strings.IndexByte("=!(),><", c) >= 0 }

// lex splits s into items, ending with tokEnd. A NUL byte ends the input, as in the
// reference lexer (it reads 0 as the end of the string).
func lex(s string) []item {
	var out []item
	pos := 0
	read := func() byte {
		if pos < len(s) {
			pos++
			return s[pos-1]
		}
		return 0
	}
	for {
		c := read()
		for isSpace(c) {
			c = read()
		}
		switch {
		case c == 0:
			return append(out, item{tokEnd, ""})
		case isSpecial(c):
			pos--
			var buf []byte
			last := item{}
			for {
				c := read()
				if c == 0 {
					break
				}
				if !isSpecial(c) {
					pos--
					break
				}
				buf = append(buf, c)
				if t, ok := literalTokens[string(buf)]; ok {
					last = item{t, string(buf)}
				} else if last.tok != tokError {
					pos--
					break
				}
			}
			if last.tok == tokError {
				out = append(out, item{tokError, fmt.Sprintf("error expected: keyword found '%s'", buf)})
			} else {
				out = append(out, last)
			}
		default:
			pos--
			start := pos
			for {
				c := read()
				if c == 0 {
					break
				}
				if isSpecial(c) || isSpace(c) {
					pos--
					break
				}
			}
			// The reference stops at a NUL byte too: the identifier is what came before it.
			lit := s[start:pos]
			if i := strings.IndexByte(lit, 0); i >= 0 {
				lit = lit[:i]
			}
			if t, ok := literalTokens[lit]; ok {
				out = append(out, item{t, lit})
			} else {
				out = append(out, item{tokIdent, lit})
			}
		}
	}
}

type parser struct {
	items []item
	pos   int
}

// peek and next read an item; in values context "in" and "notin" are identifiers.
func (p *parser) peek(values bool) (token, string) {
	it := p.items[p.pos]
	return ctx(it.tok, values), it.lit
}

func (p *parser) next(values bool) (token, string) {
	it := p.items[p.pos]
	p.pos++
	return ctx(it.tok, values), it.lit
}

func ctx(t token, values bool) token {
	if values && (t == tokIn || t == tokNotIn) {
		return tokIdent
	}
	return t
}

// Parse reads the string syntax as labels.Parse does: requirements separated by commas,
// sorted by key. The empty string is Everything.
func Parse(s string) (Selector, error) {
	reqs, err := ParseRequirements(s)
	if err != nil {
		return Selector{}, err
	}
	return Selector{reqs: reqs}, nil
}

// ParseRequirements is ParseToRequirements: the requirements of s sorted by key.
func ParseRequirements(s string) ([]Requirement, error) {
	p := &parser{items: lex(s)}
	var reqs []Requirement
loop:
	for {
		tok, lit := p.peek(true)
		switch tok {
		case tokIdent, tokNot:
			r, err := p.requirement()
			if err != nil {
				return nil, fmt.Errorf("unable to parse requirement: %v", err)
			}
			reqs = append(reqs, r)
			t, l := p.next(true)
			switch t {
			case tokEnd:
				break loop
			case tokComma:
				if t2, l2 := p.peek(true); t2 != tokIdent && t2 != tokNot {
					return nil, fmt.Errorf("found '%s', expected: identifier after ','", l2)
				}
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", l)
			}
		case tokEnd:
			break loop
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", lit)
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
	return reqs, nil
}

// nilPath is how apimachinery prints the nil *field.Path the parser validates keys at.
const nilPath = "<nil>"

func (p *parser) requirement() (Requirement, error) {
	var op Operator
	tok, key := p.next(true)
	if tok == tokNot {
		op = DoesNotExist
		tok, key = p.next(true)
	}
	if tok != tokIdent {
		return Requirement{}, fmt.Errorf("found '%s', expected: identifier", key)
	}
	if e := keyError(key, nilPath); e != nil {
		return Requirement{}, e
	}
	if t, _ := p.peek(true); t == tokEnd || t == tokComma {
		if op != DoesNotExist {
			op = Exists
		}
	}
	if op == Exists || op == DoesNotExist {
		return newRequirement(key, op, []string{}, "")
	}
	tok, lit := p.next(false)
	switch tok {
	case tokIn:
		op = In
	case tokEquals:
		op = Equals
	case tokDoubleEquals:
		op = DoubleEquals
	case tokGreater:
		op = GreaterThan
	case tokLess:
		op = LessThan
	case tokNotIn:
		op = NotIn
	case tokNotEquals:
		op = NotEquals
	default:
		return Requirement{}, fmt.Errorf("found '%s', expected: %s", lit, binaryOperators)
	}
	var vals set
	var err error
	if op == In || op == NotIn {
		vals, err = p.values()
	} else {
		vals, err = p.exactValue()
	}
	if err != nil {
		return Requirement{}, err
	}
	return newRequirement(key, op, vals.list(), "")
}

// set is sets.String: the parser's values are deduplicated and sorted.
type set map[string]struct{}

func (s set) list() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (p *parser) values() (set, error) {
	tok, lit := p.next(true)
	if tok != tokOpenPar {
		return nil, fmt.Errorf("found '%s' expected: '('", lit)
	}
	tok, lit = p.peek(true)
	switch tok {
	case tokIdent, tokComma:
		s, err := p.identifiers()
		if err != nil {
			return s, err
		}
		if tok, _ = p.next(true); tok != tokClosePar {
			return nil, fmt.Errorf("found '%s', expected: ')'", lit)
		}
		return s, nil
	case tokClosePar:
		p.next(true)
		return set{"": {}}, nil
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", lit)
	}
}

func (p *parser) identifiers() (set, error) {
	s := set{}
	for {
		tok, lit := p.next(true)
		switch tok {
		case tokIdent:
			s[lit] = struct{}{}
			switch tok2, lit2 := p.peek(true); tok2 {
			case tokComma:
				continue
			case tokClosePar:
				return s, nil
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or ')'", lit2)
			}
		case tokComma:
			if len(s) == 0 {
				s[""] = struct{}{}
			}
			switch tok2, _ := p.peek(true); tok2 {
			case tokClosePar:
				s[""] = struct{}{}
				return s, nil
			case tokComma:
				s[""] = struct{}{}
			}
		default:
			return s, fmt.Errorf("found '%s', expected: ',', or identifier", lit)
		}
	}
}

func (p *parser) exactValue() (set, error) {
	if tok, _ := p.peek(true); tok == tokEnd || tok == tokComma {
		return set{"": {}}, nil
	}
	tok, lit := p.next(true)
	if tok == tokIdent {
		return set{lit: {}}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: identifier", lit)
}
