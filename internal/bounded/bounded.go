package bounded

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// RequestBodyBytes is the apiserver's request body limit (3 MiB, the default of
// --max-request-body-bytes): the bound for anything that stands for one request body (an
// object, a patch, a policy, a CRD, a CA bundle).
const RequestBodyBytes int64 = 3 << 20

// StateBytes is the default bound of a state file: a snapshot of many objects (kubectl get -A
// -o yaml of a cluster), which no single request carries. 256 MiB.
const StateBytes int64 = 256 << 20

// Stdin is the name "-" stands for in errors.
const Stdin = "STDIN"

// TooLargeError is input longer than its bound: the apiserver answers such a body with 413
// RequestEntityTooLarge, "Request entity too large: limit is N".
type TooLargeError struct {
	// Input names what was read (a file name, STDIN, a URL).
	Input string
	// Limit is the bound in bytes.
	Limit int64
}

// Error is "INPUT: request entity too large: limit is N".
func (e *TooLargeError) Error() string {
	msg := fmt.Sprintf("request entity too large: limit is %d", e.Limit)
	if e.Input == "" {
		return msg
	}
	return e.Input + ": " + msg
}

// Detail is the apiserver's argument to NewRequestEntityTooLargeError ("limit is N"), for a
// caller that builds the Status.
func (e *TooLargeError) Detail() string { return fmt.Sprintf("limit is %d", e.Limit) }

// StatusCode is 413.
func (e *TooLargeError) StatusCode() int { return 413 }

// Reason is RequestEntityTooLarge.
func (e *TooLargeError) Reason() string { return "RequestEntityTooLarge" }

// Read reads r to its end, at most limit bytes; one byte more is a *TooLargeError naming input.
// A negative limit means no bound (only for callers whose users asked for it).
func Read(r io.Reader, input string, limit int64) ([]byte, error) {
	if limit >= 0 {
		r = io.LimitReader(r, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ReadError{Input: input, Err: err}
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, &TooLargeError{Input: input, Limit: limit}
	}
	return data, nil
}

// ReadFile reads the file at path with Read's bound. A file that cannot be opened fails with
// os.Open's error.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, limit)
}

// ReadInput is ReadFile where "-" reads stdin (named STDIN in errors), as kubectl's -f does.
func ReadInput(path string, stdin io.Reader, limit int64) ([]byte, error) {
	if path != "-" {
		return ReadFile(path, limit)
	}
	if stdin == nil {
		return nil, &ReadError{Input: Stdin, Err: errors.New("no standard input")}
	}
	return Read(stdin, Stdin, limit)
}

// ReadBody reads path ("-" for stdin) as a request body for a caller that answers an oversized
// body itself, as the apiserver does (413 from the request pipeline): it reads at most limit+1
// bytes, so a longer body comes back one byte longer than limit, without an error.
func ReadBody(path string, stdin io.Reader, limit int64) ([]byte, error) {
	input, r := Stdin, stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		input, r = path, f
	} else if stdin == nil {
		return nil, &ReadError{Input: Stdin, Err: errors.New("no standard input")}
	}
	return ReadBodyFrom(r, input, limit)
}

// ReadBodyFrom is ReadBody over a reader (an HTTP request's body, as the apiserver's
// limitedReadBody reads it): at most limit+1 bytes, a longer body one byte longer than limit.
func ReadBodyFrom(r io.Reader, input string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &ReadError{Input: input, Err: err}
	}
	return data, nil
}

// ReadError is a reader that failed before its end.
type ReadError struct {
	Input string
	Err   error
}

// Error is "INPUT: the reader's error".
func (e *ReadError) Error() string { return e.Input + ": " + e.Err.Error() }

// Unwrap returns the reader's error.
func (e *ReadError) Unwrap() error { return e.Err }
