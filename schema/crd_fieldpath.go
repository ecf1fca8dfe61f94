package schema

import (
	"bufio"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/writepath/writepath/field"
)

// errNotAField is ValidFieldPath's "does not refer to a valid field". The apiserver dereferences
// a missing schema (a step below additionalProperties: true, or a schema that did not convert)
// and fails the request with a panic; writepath reports the path as invalid instead.
var errNotAField = errors.New("does not refer to a valid field")

var unescapeMatcher = regexp.MustCompile(`\\.`)

func unescapeSingleQuote(s string) (string, error) {
	var err error
	out := unescapeMatcher.ReplaceAllStringFunc(s, func(m string) string {
		switch m[1] {
		case 'a':
			return "\a"
		case 'b':
			return "\b"
		case 'f':
			return "\f"
		case 'n':
			return "\n"
		case 'r':
			return "\r"
		case 't':
			return "\t"
		case 'v':
			return "\v"
		case '\'':
			return "'"
		case '\\':
			return "\\"
		}
		err = fmt.Errorf("invalid escape char %s", m)
		return ""
	})
	return out, err
}

// ValidFieldPath checks a JSON path (".a.b", ".a['b.c']", ...) against the structural schema it
// is relative to, as apiextensions' cel.ValidFieldPath does, and returns the normalised path and
// the schema it refers to: an x-kubernetes-validations rule's fieldPath (package cel) and, with
// allowArrayNotation false (no ['...'] form), a selectable field's jsonPath. A step enters a
// property of an object with properties or a key of a map with additionalProperties; a token
// longer than the scanner's 64 KiB ends the path silently, as in the apiserver.
func ValidFieldPath(jsonPath string, s *Structural, allowArrayNotation bool) (field.Path, *Structural, error) {
	var p field.Path
	appendToPath := func(name string, isNamed bool) error {
		if !isNamed {
			p = p.Key(name)
			s = s.AdditionalProperties.Structural
		} else {
			p = p.Child(name)
			v, ok := s.Properties[name]
			if !ok {
				return errNotAField
			}
			s = v
		}
		return nil
	}
	scanner := bufio.NewScanner(strings.NewReader(jsonPath))
	scanner.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if len(data) > 0 {
			for i := 0; i < len(data); i++ {
				if data[0] == '\'' {
					if i > 0 && data[i] == '\'' && data[i-1] != '\\' {
						return i + 1, data[:i+1], nil
					}
					continue
				}
				switch data[i] {
				case '.', '[', ']':
					if i == 0 {
						return 1, data[:1], nil
					}
					return i, data[:i], nil
				}
			}
			if atEOF {
				return len(data), data, nil
			}
		}
		return 0, nil, nil
	})
	isNamedFor := func() (bool, error) {
		if s == nil {
			return false, errNotAField
		}
		if s.Properties != nil {
			return true, nil
		}
		if s.AdditionalProperties != nil {
			return false, nil
		}
		return false, errNotAField
	}
	for scanner.Scan() {
		tok := scanner.Text()
		switch tok {
		case "[":
			if !allowArrayNotation {
				return field.Path{}, nil, errors.New("array notation is not allowed")
			}
			if !scanner.Scan() {
				return field.Path{}, nil, errors.New("unexpected end of JSON path")
			}
			tok = scanner.Text()
			if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
				return field.Path{}, nil, fmt.Errorf("expected single quoted string but got %s", tok)
			}
			unescaped, err := unescapeSingleQuote(tok[1 : len(tok)-1])
			if err != nil {
				return field.Path{}, nil, fmt.Errorf("invalid string literal: %w", err)
			}
			named, err := isNamedFor()
			if err != nil {
				return field.Path{}, nil, err
			}
			if err := appendToPath(unescaped, named); err != nil {
				return field.Path{}, nil, err
			}
			if !scanner.Scan() {
				return field.Path{}, nil, errors.New("unexpected end of JSON path")
			}
			if tok = scanner.Text(); tok != "]" {
				return field.Path{}, nil, fmt.Errorf("expected ] but got %s", tok)
			}
		case ".":
			if !scanner.Scan() {
				return field.Path{}, nil, errors.New("unexpected end of JSON path")
			}
			tok = scanner.Text()
			named, err := isNamedFor()
			if err != nil {
				return field.Path{}, nil, err
			}
			if err := appendToPath(tok, named); err != nil {
				return field.Path{}, nil, err
			}
		default:
			return field.Path{}, nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
	}
	return p, s, nil
}
