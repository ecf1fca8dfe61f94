package registry

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

// literalNumberError is what kube-apiserver's JSON decoder says of a JSON body whose number is
// written with a fraction or an exponent ("replicas": 2.0, 1e3) where the Go type holds an
// integer: the decoder reads the literal, not its value, and refuses it ("json: cannot
// unmarshal number 2.0 into Go struct field DeploymentSpec.spec.replicas of type int32"). The
// object model keeps a number's value only, so the body's text is read again here, in document
// order (the decoder stops at the first such number), for built-in kinds; ok is false when the
// body has none the Go type refuses.
func literalNumberError(gvk schema.GroupVersionKind, body []byte) (msg string, ok bool) {
	if !hasFractionOrExponent(body) {
		return "", false // no number the walk could stop at: most bodies, read once
	}
	return walkLiteralNumbers(gvk, body)
}

// walkLiteralNumbers is literalNumberError's reading of the body's text.
func walkLiteralNumbers(gvk schema.GroupVersionKind, body []byte) (msg string, ok bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var found string
	var walk func(path string) bool
	// walk reads one value at path; it returns false to stop (an error found, or bad input).
	walk = func(path string) bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				for d.More() {
					kt, err := d.Token()
					if err != nil {
						return false
					}
					key, _ := kt.(string)
					if !walk(childPath(path, key)) {
						return false
					}
				}
				_, err = d.Token()
				return err == nil
			case '[':
				for i := 0; d.More(); i++ {
					if !walk(path + "[" + strconv.Itoa(i) + "]") {
						return false
					}
				}
				_, err = d.Token()
				return err == nil
			}
		case json.Number:
			if strings.ContainsAny(string(t), ".eE") {
				if m, refused := gotypes.DecodeError(gvk, path, t); refused {
					found = m
					return false
				}
			}
		}
		return true
	}
	walk("")
	return found, found != ""
}

// hasFractionOrExponent reports whether body may hold a number written with a fraction or an
// exponent: a '.', 'e' or 'E' right after a digit outside a string (JSON's number grammar puts
// one there, and nothing else does: true and false have no digit before their 'e'). A false
// answer means literalNumberError's walk would find nothing.
func hasFractionOrExponent(body []byte) bool {
	inString, escaped := false, false
	for i, c := range body {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '.', 'e', 'E':
			if i > 0 && body[i-1] >= '0' && body[i-1] <= '9' {
				return true
			}
		}
	}
	return false
}

// childPath is path's member key, dotted. A map's key should be in brackets (field.Path's form):
// gotypes.DecodeError does not resolve it dotted and reports nothing there, which leaves out only the
// integer values of maps (no built-in kind has a map of integers the decoder would refuse).
func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
