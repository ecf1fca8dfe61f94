// Package bounded reads every input writepath takes from outside (a file, standard input, a
// webhook's answer) with a size bound, so that no input — an endless stream such as a device or
// a pipe included — grows memory without limit.
//
// The bound for a request body is the apiserver's: 3 MiB (RequestBodyBytes, the default of
// --max-request-body-bytes). Past it the read stops and fails the way the apiserver refuses the
// body: 413 RequestEntityTooLarge, "Request entity too large: limit is 3145728", here with the
// input's name in front. Files that hold a whole cluster's state (the snapshots the garbage
// collector and namespace controller simulations read) have their own, larger default,
// StateBytes, which callers let their users change.
//
// # Usage
//
//	data, err := bounded.ReadInput("-", os.Stdin, bounded.RequestBodyBytes)
//	var tl *bounded.TooLargeError
//	if errors.As(err, &tl) {
//		// tl.StatusCode() == 413, tl.Input == "STDIN"
//	}
//
// # Invariants
//
// At most limit+1 bytes are read from any reader, whatever it holds. Functions keep no state
// and are safe for concurrent use.
//
// # Errors
//
// *TooLargeError for input past the bound (HTTP 413); the *fs.PathError of os.Open for a file
// that cannot be opened; the reader's own error, wrapped with the input's name, for a failed
// read.
package bounded
