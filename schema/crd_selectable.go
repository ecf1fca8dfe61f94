package schema

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
)

// maxSelectableFields is apiextensions' MaxSelectableFields.
const maxSelectableFields = 8

// validateSelectableFields is apiextensions' ValidateCustomResourceSelectableFields for a create:
// each jsonPath must be set, resolve in the schema through properties and
// additionalProperties only (no array notation, nothing under a list), not point into metadata,
// reach a string, integer or boolean, and be unique; at most 8 distinct paths.
func validateSelectableFields(paths []string, s *Structural, fld field.Path) field.ErrorList {
	var all field.ErrorList
	unique := map[string]bool{}
	for i, jp := range paths {
		ip := fld.Index(i).Child("jsonPath")
		if jp == "" {
			all = append(all, field.Required(ip, ""))
			continue
		}
		p, found, err := selectableFieldPath(jp, s)
		if err != nil {
			all = append(all, field.Invalid(ip, jp, "is an invalid path: "+err.Error()))
			continue
		}
		if segs := p.Segments(); len(segs) > 0 && segs[0].Kind == field.SegmentChild && segs[0].Name == "metadata" {
			all = append(all, field.Invalid(ip, jp, "must not point to fields in metadata"))
		}
		if found == nil || found.Type != "string" && found.Type != "boolean" && found.Type != "integer" {
			all = append(all, field.Invalid(ip, jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if unique[p.String()] {
			all = append(all, field.Duplicate(ip, jp))
		} else {
			unique[p.String()] = true
		}
	}
	if len(unique) > maxSelectableFields {
		all = append(all, field.TooMany(fld, len(unique), maxSelectableFields))
	}
	return all
}

// errNotAField is ValidFieldPath's "does not refer to a valid field". The apiserver dereferences
// a missing schema (a step below additionalProperties: true, or a schema that did not convert)
// and fails the request with a panic; writepath reports the path as invalid instead.
var errNotAField = errors.New("does not refer to a valid field")

// selectableFieldPath is apiextensions' cel.ValidFieldPath with array notation forbidden: the
// path is a sequence of ".name" steps, a name entering a property of an object with properties
// or a key of a map with additionalProperties.
func selectableFieldPath(jsonPath string, s *Structural) (field.Path, *Structural, error) {
	var p field.Path
	sc := bufio.NewScanner(strings.NewReader(jsonPath))
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
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
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		switch tok := sc.Text(); tok {
		case "[":
			return field.Path{}, nil, errors.New("array notation is not allowed")
		case ".":
			if !sc.Scan() {
				return field.Path{}, nil, errors.New("unexpected end of JSON path")
			}
			name := sc.Text()
			switch {
			case s == nil:
				return field.Path{}, nil, errNotAField
			case s.Properties != nil:
				p = p.Child(name)
				next, ok := s.Properties[name]
				if !ok {
					return field.Path{}, nil, errNotAField
				}
				s = next
			case s.AdditionalProperties != nil:
				p = p.Key(name)
				s = s.AdditionalProperties.Structural
			default:
				return field.Path{}, nil, errNotAField
			}
		default:
			return field.Path{}, nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
	}
	// Like the apiserver, a token longer than the scanner's 64 KiB ends the path silently.
	return p, s, nil
}
