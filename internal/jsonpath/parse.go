package jsonpath

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	dictKey  = regexp.MustCompile(`^'([^']*)'$`)
	sliceArg = regexp.MustCompile(`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`)
	filterOp = regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`)
)

// Parse parses a template: text, and actions between { and }.
func Parse(text string) (*Template, error) {
	flat, err := parseFlat(text)
	if err != nil {
		return nil, err
	}
	t := &Template{}
	t.items, _, t.endErr = nest(flat, false)
	return t, nil
}

// nest builds range blocks from the flat items: {range EXPR} opens one, {end} closes it. It
// returns the items up to the {end} that closes the block (inRange) and what follows it.
func nest(flat []item, inRange bool) (items, rest []item, err error) {
	for i := 0; i < len(flat); i++ {
		it := flat[i]
		switch {
		case it.text == nil && len(it.action) == 1 && it.action[0].kind == stepIdent && it.action[0].name == "end":
			if !inRange {
				return items, nil, errors.New("not in range, nothing to end")
			}
			return items, flat[i+1:], nil
		case it.text == nil && len(it.action) > 0 && it.action[0].kind == stepIdent && it.action[0].name == "range":
			body, after, err := nest(flat[i+1:], true)
			if err != nil {
				return nil, nil, err
			}
			items = append(items, item{action: it.action[1:], body: body, isRng: true})
			flat, i = after, -1
		default:
			items = append(items, it)
		}
	}
	return items, nil, nil
}

type parser struct {
	in    string
	pos   int
	width int
}

const eof = -1

func (p *parser) next() rune {
	if p.pos >= len(p.in) {
		p.width = 0
		return eof
	}
	r, w := utf8.DecodeRuneInString(p.in[p.pos:])
	p.width = w
	p.pos += w
	return r
}

func (p *parser) backup() { p.pos -= p.width }

func (p *parser) peek() rune {
	r := p.next()
	p.backup()
	return r
}

// parseFlat reads the template into text and action items, without nesting ranges.
func parseFlat(text string) ([]item, error) {
	p := &parser{in: text}
	var items []item
	for p.pos < len(p.in) {
		i := strings.Index(p.in[p.pos:], "{")
		if i < 0 {
			s := p.in[p.pos:]
			items = append(items, item{text: &s})
			break
		}
		if i > 0 {
			s := p.in[p.pos : p.pos+i]
			items = append(items, item{text: &s})
		}
		p.pos += i + 1
		steps, err := p.action()
		if err != nil {
			return nil, err
		}
		items = append(items, item{action: steps})
	}
	return items, nil
}

// sub parses text as the inside of one action (a filter's sides, a union's members).
func sub(text string) ([]step, error) {
	p := &parser{in: text + "}"}
	return p.action()
}

// action reads the steps of an action up to and past its closing }.
func (p *parser) action() ([]step, error) {
	var steps []step
	for {
		rest := p.in[p.pos:]
		switch {
		case strings.HasPrefix(rest, "}"):
			p.pos++
			return steps, nil
		case strings.HasPrefix(rest, "[?("):
			s, err := p.filter()
			if err != nil {
				return nil, err
			}
			steps = append(steps, s)
			continue
		case strings.HasPrefix(rest, ".."):
			if n := len(steps); n > 0 && steps[n-1].kind == stepRecursive {
				return nil, errors.New("invalid multiple recursive descent")
			}
			p.pos += 2
			steps = append(steps, step{kind: stepRecursive})
			if r := p.peek(); isAlphaNumeric(r) {
				steps = append(steps, p.field())
			}
			continue
		}
		r := p.next()
		switch {
		case r == eof || r == '\r' || r == '\n':
			return nil, errors.New("unclosed action")
		case r == ' ', r == '@', r == '$':
		case r == '[':
			s, err := p.array()
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		case r == '"' || r == '\'':
			s, err := p.quote(r)
			if err != nil {
				return nil, err
			}
			steps = append(steps, step{kind: stepText, name: s})
		case r == '.':
			steps = append(steps, p.field())
		case r == '+' || r == '-' || unicode.IsDigit(r):
			p.backup()
			s, err := p.number()
			if err != nil {
				return nil, err
			}
			steps = append(steps, s)
		case isAlphaNumeric(r):
			p.backup()
			steps = append(steps, p.identifier())
		default:
			return nil, fmt.Errorf("unrecognized character in action: %#U", r)
		}
	}
}

// field reads a field name up to an unescaped terminator; \x is x.
func (p *parser) field() step {
	var b strings.Builder
	for {
		r := p.next()
		if r == '\\' {
			if r = p.next(); r == eof {
				break
			}
			b.WriteRune(r)
			continue
		}
		if isTerminator(r) {
			if r != eof {
				p.backup()
			}
			break
		}
		b.WriteRune(r)
	}
	if b.String() == "*" {
		return step{kind: stepWildcard}
	}
	return step{kind: stepField, name: b.String()}
}

func (p *parser) identifier() step {
	start := p.pos
	for {
		r := p.next()
		if isTerminator(r) {
			if r != eof {
				p.backup()
			}
			break
		}
	}
	v := p.in[start:p.pos]
	if v == "true" || v == "false" {
		return step{kind: stepBool, b: v == "true"}
	}
	return step{kind: stepIdent, name: v}
}

func (p *parser) number() (step, error) {
	start := p.pos
	if r := p.peek(); r == '+' || r == '-' {
		p.next()
	}
	for {
		r := p.next()
		if r != '.' && !unicode.IsDigit(r) {
			if r != eof {
				p.backup()
			}
			break
		}
	}
	v := p.in[start:p.pos]
	if i, err := strconv.Atoi(v); err == nil {
		return step{kind: stepInt, i: i}, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return step{kind: stepFloat, f: f}, nil
	}
	return step{}, fmt.Errorf("cannot parse number %s", v)
}

// array reads [...] after its [: an index or slice, a union, or a 'key'.
func (p *parser) array() ([]step, error) {
	start := p.pos
	for {
		r := p.next()
		if r == eof || r == '\n' {
			return nil, errors.New("unterminated array")
		}
		if r == ']' {
			break
		}
	}
	text := p.in[start : p.pos-1]
	if text == "*" {
		text = ":"
	}
	if parts := strings.Split(text, ","); len(parts) > 1 {
		u := step{kind: stepUnion}
		for _, part := range parts {
			steps, err := sub("[" + strings.Trim(part, " ") + "]")
			if err != nil {
				return nil, err
			}
			u.union = append(u.union, steps)
		}
		return []step{u}, nil
	}
	if m := dictKey.FindStringSubmatch(text); m != nil {
		return sub("." + m[1])
	}
	m := sliceArg.FindStringSubmatch(text)
	if m == nil {
		return nil, fmt.Errorf("invalid array index %s", text)
	}
	s := step{kind: stepSlice}
	for i, v := range m[1:] {
		if i > 0 && v != "" {
			v = v[1:] // the colon
			if v == "" {
				continue // [1:] and [::]: not known
			}
		}
		if v == "" {
			if i == 1 {
				s.slice[1] = sliceParam{value: s.slice[0].value + 1, known: true, derived: true}
			}
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("array index %s is not a number", v)
		}
		s.slice[i] = sliceParam{value: n, known: true}
	}
	return []step{s}, nil
}

// filter reads [?(LEFT OP RIGHT)] or [?(PATH)].
func (p *parser) filter() (step, error) {
	p.pos += len("[?(")
	start := p.pos
	begin, end := false, false
	var pair rune
	for {
		r := p.next()
		if r == eof || r == '\n' {
			return step{}, errors.New("unterminated filter")
		}
		if r == '"' || r == '\'' {
			if !begin {
				begin, pair = true, r
				continue
			}
			if p.in[p.pos-2] != '\\' && r == pair {
				end = true
			}
		}
		if r == ')' && begin == end {
			break
		}
	}
	text := p.in[start : p.pos-1]
	if p.next() != ']' {
		return step{}, errors.New("unclosed array expect ]")
	}
	m := filterOp.FindStringSubmatch(text)
	if m == nil {
		left, err := sub(text)
		if err != nil {
			return step{}, err
		}
		return step{kind: stepFilter, left: left, op: "exists"}, nil
	}
	left, err := sub(m[1])
	if err != nil {
		return step{}, err
	}
	right, err := sub(m[3])
	if err != nil {
		return step{}, err
	}
	return step{kind: stepFilter, left: left, right: right, op: m[2]}, nil
}

// quote reads a string quoted with q (its opening quote read), Go's escapes allowed, in
// single quotes too.
func (p *parser) quote(q rune) (string, error) {
	start := p.pos - 1
	for {
		r := p.next()
		if r == eof || r == '\n' {
			return "", errors.New("unterminated quoted string")
		}
		if r == q && p.in[p.pos-2] != '\\' {
			break
		}
	}
	raw := p.in[start:p.pos]
	s, err := unquote(raw[1:len(raw)-1], byte(q))
	if err != nil {
		return "", fmt.Errorf("unquote string %s error %v", raw, err)
	}
	return s, nil
}

func unquote(s string, q byte) (string, error) {
	var b strings.Builder
	for len(s) > 0 {
		c, multibyte, rest, err := strconv.UnquoteChar(s, q)
		if err != nil {
			return "", err
		}
		s = rest
		if c < utf8.RuneSelf || !multibyte {
			b.WriteByte(byte(c))
		} else {
			b.WriteRune(c)
		}
	}
	return b.String(), nil
}

func isTerminator(r rune) bool {
	switch r {
	case eof, ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func isAlphaNumeric(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
