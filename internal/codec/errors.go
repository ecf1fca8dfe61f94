package codec

import (
	"fmt"
	"strings"
)

// Kind classifies a codec Error.
type Kind string

const (
	// KindSyntax is malformed JSON or YAML, or a value JSON cannot hold (a number out of
	// float64 range, a YAML map key of an unsupported type, ...).
	KindSyntax Kind = "Syntax"
	// KindDuplicate is a duplicate map key, rejected unless Options.AllowDuplicates is set.
	KindDuplicate Kind = "Duplicate"
	// KindNotObject is a document that decoded to something other than a JSON object where
	// an object is required.
	KindNotObject Kind = "NotObject"
	// KindTooLarge is input longer than Options.MaxBytes (HTTP 413).
	KindTooLarge Kind = "TooLarge"
	// KindTooDeep is input nested deeper than Options.MaxDepth.
	KindTooDeep Kind = "TooDeep"
	// KindUnsupported is a value outside the object model given to an encoder.
	KindUnsupported Kind = "Unsupported"
	// KindRead is a failure to read the input (a missing file, an I/O error).
	KindRead Kind = "Read"
)

// Error is every error this package returns. It says what went wrong (Kind), where (Document,
// Line, Path, where known) and carries the reference library's own words in Detail.
type Error struct {
	// Kind classifies the failure.
	Kind Kind
	// Source names the input (a file name, "-" for stdin) when read through ReadDocuments.
	Source string
	// Document is the 1-based index of the document in a stream (DecodeDocuments); 0 for a
	// single-document decode.
	Document int
	// Line is the 1-based line of the failure in the whole input, 0 when unknown.
	Line int
	// Path is the field path of the offending value in sigs.k8s.io/json's notation
	// ("spec.template.metadata.labels.app", "spec.containers[0].name"), "" when unknown.
	Path string
	// Detail is the message as the reference library words it, e.g.
	// `yaml: line 3: could not find expected ':'` or `json: duplicate field "a"`. Line numbers
	// inside it count from the start of the document, as go-yaml's do; JSON syntax errors, for
	// which sigs.k8s.io/json gives only a byte offset, get a "json: line N: " prefix.
	Detail string
	// Violations lists, for KindDuplicate, each violation in the words the apiserver uses for
	// its field-validation warnings (`duplicate field "a"`, `line 3: key "a" already set in
	// map`).
	Violations []string
	// Limit is the exceeded bound for KindTooLarge (bytes) and KindTooDeep (levels).
	Limit int64
	// Err is the underlying error, if any; Unwrap returns it.
	Err error
}

// Error prints kubectl's "error parsing SOURCE: " when read from a file, "document N: " inside
// a stream, then Detail ("request entity too large: " first for KindTooLarge, whose Detail is
// the apiserver's "limit is N", ready for a RequestEntityTooLarge status).
func (e *Error) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString("error parsing ")
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	if e.Document > 0 {
		fmt.Fprintf(&b, "document %d: ", e.Document)
	}
	if e.Kind == KindTooLarge {
		b.WriteString("request entity too large: ")
	}
	b.WriteString(e.Detail)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// StatusCode is the HTTP status an API server answers for this error: 413 for KindTooLarge,
// 500 for KindUnsupported (a caller's programming error), 400 otherwise.
func (e *Error) StatusCode() int {
	switch e.Kind {
	case KindTooLarge:
		return 413
	case KindUnsupported:
		return 500
	default:
		return 400
	}
}

// Reason is the metav1.StatusReason matching StatusCode.
func (e *Error) Reason() string {
	switch e.Kind {
	case KindTooLarge:
		return "RequestEntityTooLarge"
	case KindUnsupported:
		return "InternalError"
	default:
		return "BadRequest"
	}
}
