package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/internal/bounded"
)

// DefaultMaxBytes is the apiserver's request body limit (3 MiB, the default of
// --max-request-body-bytes / MaxRequestBodyBytes).
const DefaultMaxBytes = 3 << 20

// DefaultMaxDepth is the nesting bound of sigs.k8s.io/json's scanner and of the YAML parser
// under sigs.k8s.io/yaml: 10000 nested maps or lists decode, 10001 do not.
const DefaultMaxDepth = 10000

// Format selects how input is parsed.
type Format int

const (
	// FormatAuto decodes a single document as JSON when its first non-space character is '{'
	// or '[', and as YAML otherwise. A stream is a JSON stream when it starts with '{' (the
	// rule of apimachinery's YAMLOrJSONDecoder, used by kubectl -f).
	FormatAuto Format = iota
	// FormatJSON parses JSON only (Content-Type application/json).
	FormatJSON
	// FormatYAML parses YAML only (Content-Type application/yaml); JSON is YAML, so JSON input
	// decodes too, with YAML's rules.
	FormatYAML
)

// Options bounds and tunes decoding. The zero value is the apiserver's defaults with strict
// duplicate-field checking.
type Options struct {
	// MaxBytes bounds the input length; 0 means DefaultMaxBytes, a negative value means no
	// bound. Longer input fails with a KindTooLarge error (HTTP 413) before any parsing.
	MaxBytes int64
	// MaxDepth bounds nesting (maps and lists); 0 means DefaultMaxDepth. Values above
	// DefaultMaxDepth have no effect: the underlying parsers stop there.
	MaxDepth int
	// AllowDuplicates accepts duplicate map keys the way the apiserver does under
	// fieldValidation=Warn: the last value wins (JSON and YAML) and each duplicate is reported in
	// Document.Warnings. By default a duplicate is a KindDuplicate error, as under
	// fieldValidation=Strict (kubectl's default).
	AllowDuplicates bool
	// Format selects JSON, YAML or sniffing (the zero value).
	Format Format

	stats *decodeStats // work counters, set by the scaling tests only
}

// Document is one decoded document.
type Document struct {
	// Value is the decoded value: nil, bool, int64, float64, string, []any or map[string]any.
	Value any
	// Line is the 1-based line of the input where the document starts (at its "---" line when
	// the separator opens the document, as in YAMLReader, whose chunks go-yaml numbers from there).
	Line int
	// Warnings lists the duplicate keys tolerated under Options.AllowDuplicates, in the words of
	// the apiserver's field-validation warnings.
	Warnings []string
}

// DecodeValue decodes one JSON or YAML document of any type with the default Options.
func DecodeValue(data []byte) (any, error) { return Options{}.DecodeValue(data) }

// DecodeObject decodes one JSON or YAML document that must be an object, with the default
// Options.
func DecodeObject(data []byte) (map[string]any, error) { return Options{}.DecodeObject(data) }

// DecodeDocuments decodes a stream of objects (YAML documents separated by "---" lines, or
// concatenated JSON objects) with the default Options, skipping empty and null documents.
func DecodeDocuments(data []byte) ([]map[string]any, error) {
	return Options{}.DecodeDocuments(data)
}

// ReadDocuments reads the file at path ("-" reads stdin) and decodes it with DecodeDocuments
// and the default Options.
func ReadDocuments(path string, stdin io.Reader) ([]map[string]any, error) {
	return Options{}.ReadDocuments(path, stdin)
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes == 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

func (o Options) maxDepth() int {
	if o.MaxDepth <= 0 || o.MaxDepth > DefaultMaxDepth {
		return DefaultMaxDepth
	}
	return o.MaxDepth
}

func (o Options) checkSize(n int64) *Error {
	if max := o.maxBytes(); max >= 0 && n > max {
		// Detail is the apiserver's argument to NewRequestEntityTooLargeError.
		return &Error{Kind: KindTooLarge, Limit: max, Detail: fmt.Sprintf("limit is %d", max)}
	}
	return nil
}

// DecodeValue decodes exactly one document (as the apiserver decodes a request body). With
// FormatAuto, YAML input holding several documents yields the first one, as
// sigs.k8s.io/yaml does; use DecodeDocuments for streams.
func (o Options) DecodeValue(data []byte) (any, error) {
	d, err := o.Decode(data)
	if err != nil {
		return nil, err
	}
	return d.Value, nil
}

// DecodeObject is DecodeValue for a document that must be a JSON object; anything else is a
// KindNotObject error.
func (o Options) DecodeObject(data []byte) (map[string]any, error) {
	d, err := o.Decode(data)
	if err != nil {
		return nil, err
	}
	m, ok := d.Value.(map[string]any)
	if !ok {
		return nil, notObject(d.Value, d.Line)
	}
	return m, nil
}

// Decode decodes exactly one document and returns it with its warnings.
func (o Options) Decode(data []byte) (Document, error) {
	if err := o.checkSize(int64(len(data))); err != nil {
		return Document{}, err
	}
	format := o.Format
	if format == FormatAuto {
		format = FormatYAML
		if c := firstNonSpace(data); c == '{' || c == '[' {
			format = FormatJSON
		}
	}
	v, warnings, err := o.decodeOne(data, format, 1)
	if err != nil {
		return Document{}, err
	}
	return Document{Value: v, Line: 1, Warnings: warnings}, nil
}

func notObject(v any, line int) *Error {
	return &Error{Kind: KindNotObject, Line: line,
		Detail: fmt.Sprintf("json: cannot unmarshal %s into Go value of type map[string]interface {}", JSONKind(v))}
}

// JSONKind names a value's JSON type the way encoding/json's UnmarshalTypeError does ("null",
// "bool", "number", "string", "array", "object"); any other Go value is named "object".
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int64, float64, int, int32, float32:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

func firstNonSpace(data []byte) byte {
	trimmed := bytes.TrimLeftFunc(data, unicode.IsSpace)
	if len(trimmed) == 0 {
		return 0
	}
	return trimmed[0]
}

// decodeOne decodes a single document in the given format; line is the 1-based line of the
// document's first byte in the whole input, used to make error lines absolute.
func (o Options) decodeOne(data []byte, format Format, line int) (any, []string, *Error) {
	var warnings []string
	jsonData := data
	if format == FormatYAML {
		j, err := yamlToJSON(data, true)
		if err != nil {
			// The apiserver converts without strictness first, so an error there wins; what
			// only the strict conversion rejects (duplicate keys) is a strict-decoding violation.
			lenient, err2 := yamlToJSON(data, false)
			if err2 != nil {
				return nil, nil, yamlError(err2, line)
			}
			violations := yamlWarnings(err)
			if !o.AllowDuplicates {
				rel := yamlLine(err.Error())
				return nil, nil, &Error{Kind: KindDuplicate, Line: line - 1 + rel, Path: yamlDuplicatePath(data, rel),
					Detail: err.Error(), Violations: violations, Err: err}
			}
			warnings = violations
			j = lenient
		}
		jsonData = j
	}
	var v any
	strictErrs, err := kjson.UnmarshalStrict(jsonData, &v, kjson.DisallowDuplicateFields)
	if err != nil {
		if format == FormatYAML {
			// The JSON came from sigs.k8s.io/yaml; its offsets mean nothing to the user.
			return nil, nil, &Error{Kind: KindSyntax, Line: 0, Detail: err.Error(), Err: err}
		}
		return nil, nil, jsonError(err, data, line)
	}
	if len(strictErrs) > 0 {
		violations := make([]string, len(strictErrs))
		path := ""
		for i, e := range strictErrs {
			violations[i] = e.Error()
			var fe kjson.FieldError
			if path == "" && errors.As(e, &fe) {
				path = fe.FieldPath()
			}
		}
		if !o.AllowDuplicates {
			return nil, nil, &Error{Kind: KindDuplicate, Path: path,
				Detail: "json: " + strings.Join(violations, ", "), Violations: violations}
		}
		warnings = append(warnings, violations...)
	}
	if max := o.maxDepth(); max < DefaultMaxDepth {
		if p, deep := tooDeep(v, max); deep {
			return nil, nil, &Error{Kind: KindTooDeep, Line: line, Path: p, Limit: int64(max),
				Detail: fmt.Sprintf("exceeded max depth of %d at %s", max, p)}
		}
	}
	return v, warnings, nil
}

// tooDeep reports whether v nests more than max maps and lists, and the path to the first
// value beyond the bound.
func tooDeep(v any, max int) (string, bool) {
	var path []string
	var visit func(v any, depth int) bool
	visit = func(v any, depth int) bool {
		switch t := v.(type) {
		case map[string]any:
			if depth+1 > max {
				return true
			}
			for k, e := range t {
				path = append(path, "."+k)
				if visit(e, depth+1) {
					return true
				}
				path = path[:len(path)-1]
			}
		case []any:
			if depth+1 > max {
				return true
			}
			for i, e := range t {
				path = append(path, "["+strconv.Itoa(i)+"]")
				if visit(e, depth+1) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	if !visit(v, 0) {
		return "", false
	}
	return strings.TrimPrefix(strings.Join(path, ""), "."), true
}

func jsonError(err error, data []byte, line int) *Error {
	e := &Error{Kind: KindSyntax, Err: err, Detail: err.Error()}
	var offset int64 = -1
	if ok, off := kjson.SyntaxErrorOffset(err); ok {
		offset = off
		if strings.Contains(err.Error(), "exceeded max depth") {
			e.Kind = KindTooDeep
			e.Limit = DefaultMaxDepth
		}
	} else if te := (*typeError)(nil); errors.As(err, &te) {
		offset = te.Offset
	}
	if offset >= 0 && offset <= int64(len(data)) {
		rel := bytes.Count(data[:offset], []byte("\n"))
		if offset > 0 && data[offset-1] == '\n' {
			// The scanner reports the offset after the offending byte.
			rel--
		}
		e.Line = line + rel
		e.Detail = fmt.Sprintf("json: line %d: %s", rel+1, strings.TrimPrefix(err.Error(), "json: "))
	}
	return e
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlLine extracts the first "line N" of a go-yaml message, 0 if none.
func yamlLine(msg string) int {
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

func yamlError(err error, line int) *Error {
	msg := err.Error()
	e := &Error{Kind: KindSyntax, Detail: msg, Err: err}
	if kc := (*keyCollision)(nil); errors.As(err, &kc) {
		e.Kind = KindDuplicate
		e.Violations = []string{msg}
	}
	if n := yamlLine(msg); n > 0 {
		e.Line = line - 1 + n
	}
	if strings.Contains(msg, "exceeded max depth") {
		e.Kind = KindTooDeep
		e.Limit = DefaultMaxDepth
	}
	return e
}

// yamlWarnings splits a strict-only go-yaml error the way the apiserver turns it into
// fieldValidation=Warn warnings (handlers.parseYAMLWarnings): one per line of
// "yaml: unmarshal errors:\n  line 3: key \"a\" already set in map", else the whole message.
func yamlWarnings(err error) []string {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "yaml: unmarshal errors:\n")
	if !ok {
		return []string{msg}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// DecodeDocuments decodes a stream the way kubectl -f does (apimachinery's
// YAMLOrJSONDecoder): input starting with '{' is a stream of JSON objects; otherwise it is
// split into YAML documents at lines starting with "---" (which may be followed only by spaces
// or a comment). Empty and null documents are skipped; every other document must be an object.
// Errors carry the 1-based Document index and absolute Line.
func (o Options) DecodeDocuments(data []byte) ([]map[string]any, error) {
	docs, err := o.DecodeStream(data)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(docs))
	for i, d := range docs {
		out[i] = d.Value.(map[string]any)
	}
	return out, nil
}

// DecodeStream is DecodeDocuments returning each Document with its start line and warnings.
// On error it also returns the documents decoded before the failing one, so a caller can
// process a stream document by document as kubectl does.
func (o Options) DecodeStream(data []byte) ([]Document, error) {
	if err := o.checkSize(int64(len(data))); err != nil {
		return nil, err
	}
	var docs []Document
	var err *Error
	switch {
	case o.Format == FormatYAML:
		docs, err, _ = o.yamlStream(data, 1, 0)
	case o.Format == FormatJSON || firstNonSpace(data) == '{':
		docs, err = o.jsonStream(data, 1)
	default:
		docs, err, _ = o.yamlStream(data, 1, 0)
	}
	if err != nil {
		return docs, err
	}
	return docs, nil
}

// jsonStream decodes concatenated JSON values. Like YAMLOrJSONDecoder, when the JSON stream
// breaks after at most one object, the rest (after its first line break) is read as YAML;
// the JSON error is reported only if the first YAML chunk fails too.
func (o Options) jsonStream(data []byte, line int) ([]Document, *Error) {
	var out []Document
	pos := 0
	decoded := 0 // JSON values decoded, null ones included (YAMLOrJSONDecoder's count)
	lines := lineCounter{data: data, line: line, stats: o.stats}
	for {
		start := pos + len(leadingSpace(data[pos:]))
		if start >= len(data) {
			return out, nil
		}
		startLine := lines.at(start)
		end, scanErr := scanJSONValue(data, start)
		if scanErr != nil {
			jerr := jsonError(scanErr, data[start:], startLine)
			jerr.Document = len(out) + 1
			if jerr.Line == 0 {
				jerr.Line = startLine
			}
			if decoded <= 1 && o.Format != FormatJSON {
				rest := data[pos:]
				if i := firstLineBreakAfterSpace(rest); i >= 0 {
					restLine := lines.at(pos + i)
					more, yerr, failedChunk := o.yamlStream(rest[i:], restLine, len(out))
					out = append(out, more...)
					if yerr == nil {
						return out, nil
					}
					if failedChunk > 0 {
						return out, yerr
					}
				}
			}
			return out, jerr
		}
		decoded++
		v, warnings, err := o.decodeOne(data[start:end], FormatJSON, startLine)
		if err != nil {
			err.Document = len(out) + 1
			return out, err
		}
		pos = end
		if v == nil {
			continue
		}
		if _, ok := v.(map[string]any); !ok {
			e := notObject(v, startLine)
			e.Document = len(out) + 1
			return out, e
		}
		out = append(out, Document{Value: v, Line: startLine, Warnings: warnings})
	}
}

// lineCounter gives the 1-based line of increasing offsets of data, counting each byte once
// (a stream's documents used to recount from the start of the input: quadratic in their number).
type lineCounter struct {
	data  []byte
	off   int // offset counted up to
	line  int // line at off
	stats *decodeStats
}

// at returns the line of data[off]. Offsets that only grow cost one pass over data in all; a
// step back costs the bytes stepped over.
func (l *lineCounter) at(off int) int {
	lo, hi := l.off, off
	if off < l.off {
		lo, hi = off, l.off
	}
	n := bytes.Count(l.data[lo:hi], []byte("\n"))
	if off < l.off {
		n = -n
	}
	l.line += n
	if l.stats != nil {
		l.stats.lineBytes += hi - lo
	}
	l.off = off
	return l.line
}

// decodeStats counts the work of one decode, for the scaling tests.
type decodeStats struct {
	lineBytes int // bytes scanned to number lines
}

func leadingSpace(b []byte) []byte {
	t := bytes.TrimLeftFunc(b, unicode.IsSpace)
	return b[:len(b)-len(t)]
}

// firstLineBreakAfterSpace returns where YAMLOrJSONDecoder's YAML fallback starts reading b:
// after the leading whitespace, or just after its first '\n' (consumeWhitespace). It returns -1
// when consumeWhitespace gives up and the fallback does not happen: it reads four bytes at a
// time, so fewer than four bytes left at any step end it, and so does a rune it cannot decode
// (U+FFFD included).
func firstLineBreakAfterSpace(b []byte) int {
	for i := 0; ; {
		if len(b)-i < 4 {
			return -1
		}
		r, size := utf8.DecodeRune(b[i : i+4])
		if r == utf8.RuneError {
			return -1
		}
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
		if r == '\n' {
			return i
		}
	}
}

// scanJSONValue returns the end offset of the JSON value starting at data[start] using the
// reference scanner, or its syntax error.
func scanJSONValue(data []byte, start int) (int, error) {
	dec := kjson.NewDecoderCaseSensitivePreserveInts(bytes.NewReader(data[start:]))
	var raw rawValue
	if err := dec.Decode(&raw); err != nil {
		if err == io.EOF {
			return 0, io.ErrUnexpectedEOF
		}
		return 0, err
	}
	return start + int(dec.InputOffset()), nil
}

// rawValue captures a JSON value without decoding it.
type rawValue []byte

func (r *rawValue) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// yamlStream splits data into YAML documents like apimachinery's YAMLReader and decodes each
// with YAML rules. It returns the documents before any error, the error, and the 0-based index
// of the chunk that failed (empty chunks count, as they do for YAMLToJSONDecoder).
func (o Options) yamlStream(data []byte, line int, docIndex int) ([]Document, *Error, int) {
	var out []Document
	docLine := line
	n := docIndex
	chunks := 0
	flush := func(chunk []byte, chunkLine int) *Error {
		defer func() { chunks++ }()
		// Every non-empty chunk is parsed, blank ones included: go-yaml rejects a tab there.
		if len(chunk) == 0 {
			return nil
		}
		v, warnings, err := o.decodeOne(chunk, FormatYAML, chunkLine)
		if err != nil {
			err.Document = n + 1
			return err
		}
		if v == nil {
			return nil
		}
		n++
		if _, ok := v.(map[string]any); !ok {
			e := notObject(v, chunkLine)
			e.Document = n
			return e
		}
		out = append(out, Document{Value: v, Line: chunkLine, Warnings: warnings})
		return nil
	}
	// Chunks are rebuilt line by line as YAMLReader's LineReader does: bufio.ReadLine drops
	// "\r\n" and "\n", and every line gets "\n" back. The byte layout matters: go-yaml reports
	// the first error within the window it has read, so different bytes can mean different
	// errors.
	var chunk []byte
	cur := line
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		l := data[pos:next]
		content := bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
		if bytes.HasPrefix(l, []byte("---")) {
			trimmed := strings.TrimSpace(string(l[3:]))
			if trimmed != "" && trimmed[0] != '#' {
				return out, &Error{Kind: KindSyntax, Line: cur, Document: n + 1,
					Detail: "invalid Yaml document separator: " + trimmed}, chunks
			}
			// Like YAMLReader, a separator that opens an empty chunk stays in it (go-yaml then
			// reads it as an explicit document start, which shifts its line numbers).
			if len(chunk) > 0 {
				if err := flush(chunk, docLine); err != nil {
					return out, err, chunks - 1
				}
				chunk = nil
				docLine = cur + 1
				pos = next
				cur++
				continue
			}
		}
		chunk = append(chunk, content...)
		chunk = append(chunk, '\n')
		pos = next
		cur++
	}
	if len(chunk) > 0 {
		if err := flush(chunk, docLine); err != nil {
			return out, err, chunks - 1
		}
	}
	return out, nil, chunks
}

// ReadDocuments reads path ("-" reads stdin), at most MaxBytes of it, and decodes it with
// DecodeDocuments. Errors name the source as kubectl does ("error parsing FILE: ...",
// "STDIN" for "-").
func (o Options) ReadDocuments(path string, stdin io.Reader) ([]map[string]any, error) {
	source := path
	var r io.Reader
	if path == "-" {
		source = "STDIN"
		if stdin == nil {
			return nil, &Error{Kind: KindRead, Source: source, Detail: "no standard input"}
		}
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			detail := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				detail = fmt.Sprintf("the path %q does not exist", path) // kubectl's words
			}
			return nil, &Error{Kind: KindRead, Detail: detail, Err: err}
		}
		defer f.Close()
		r = f
	}
	data, err := bounded.Read(r, source, o.maxBytes())
	if err != nil {
		if tl := (*bounded.TooLargeError)(nil); errors.As(err, &tl) {
			return nil, &Error{Kind: KindTooLarge, Source: source, Limit: tl.Limit, Detail: tl.Detail()}
		}
		err = errors.Unwrap(err) // the reader's own error; Source names the input
		return nil, &Error{Kind: KindRead, Source: source, Detail: err.Error(), Err: err}
	}
	docs, err := o.DecodeDocuments(data)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.Source = source
		}
		return nil, err
	}
	return docs, nil
}
