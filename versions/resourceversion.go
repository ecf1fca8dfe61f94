package versions

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/internal/validation"
)

// InvalidResourceVersionError reports a resourceVersion that is not well formed
// under KEP-5504: it is not a non-empty string of decimal digits without a
// leading zero. Its text is that of apimachinery's
// resourceversion.InvalidResourceVersion.
type InvalidResourceVersionError struct {
	// ResourceVersion is the offending value, as given.
	ResourceVersion string
}

// Error returns "resource version is not well formed: <rv>".
func (e *InvalidResourceVersionError) Error() string {
	return fmt.Sprintf("resource version is not well formed: %s", e.ResourceVersion)
}

// StatusCode returns 400: a client that sends such a version made a bad request.
func (e *InvalidResourceVersionError) StatusCode() int { return 400 }

// IsWellFormed reports whether rv is a KEP-5504 resourceVersion: one or more
// ASCII decimal digits, the first of which is not '0'. There is no length
// limit, so "0" and "" are not well formed and neither is "007".
func IsWellFormed(rv string) bool { return validation.IsWellFormedResourceVersion(rv) }

// CompareResourceVersion orders two resourceVersions the way KEP-5504 lets
// clients do it for kube-apiserver (1.35+): both must be well formed (see
// IsWellFormed); the shorter one is the smaller, and versions of equal length
// compare lexically. It returns -1, 0 or +1, or an *InvalidResourceVersionError
// for the first of a, b that is not well formed (a is checked first), exactly
// like k8s.io/apimachinery/pkg/util/resourceversion.CompareResourceVersion.
//
// It runs in time linear in the lengths and never allocates unless it fails.
func CompareResourceVersion(a, b string) (int, error) {
	if !IsWellFormed(a) {
		return 0, &InvalidResourceVersionError{ResourceVersion: a}
	}
	if !IsWellFormed(b) {
		return 0, &InvalidResourceVersionError{ResourceVersion: b}
	}
	switch {
	case len(a) < len(b):
		return -1, nil
	case len(a) > len(b):
		return 1, nil
	case a < b:
		return -1, nil
	case a > b:
		return 1, nil
	}
	return 0, nil
}

// ErrNotOrdered is returned by a Comparator that can tell two resourceVersions
// apart but cannot say which one is newer.
var ErrNotOrdered = errors.New("resource versions are not ordered: only equality can be decided")

// Comparator orders resourceVersions. kube-apiserver's versions are decimal
// (Decimal); a custom API server whose versions are opaque strings uses
// EqualityOnly, or its own implementation.
//
// Compare returns -1, 0 or +1 when a is older than, the same as, or newer than
// b. It returns an error when it cannot decide: the versions are malformed for
// this comparator, or (ErrNotOrdered) they differ but have no order.
type Comparator interface {
	Compare(a, b string) (int, error)
}

// Decimal is the Comparator of kube-apiserver: CompareResourceVersion.
type Decimal struct{}

// Compare calls CompareResourceVersion.
func (Decimal) Compare(a, b string) (int, error) { return CompareResourceVersion(a, b) }

// EqualityOnly is the Comparator for servers whose resourceVersions are opaque,
// which is what the API conventions promise clients in general: equal strings
// are the same version; different ones are not ordered (ErrNotOrdered). The
// empty string is not a version.
type EqualityOnly struct{}

// Compare returns 0 when a == b, and ErrNotOrdered when they differ.
func (EqualityOnly) Compare(a, b string) (int, error) {
	if a == "" {
		return 0, &InvalidResourceVersionError{ResourceVersion: a}
	}
	if b == "" {
		return 0, &InvalidResourceVersionError{ResourceVersion: b}
	}
	if a == b {
		return 0, nil
	}
	return 0, ErrNotOrdered
}

// DecimalOrEquality is the Comparator a client uses when it does not know the
// server: decimal order when both versions are well formed (KEP-5504), and
// equality only otherwise (an API server that predates the KEP, or is not
// kube-apiserver, may hand out versions that are not decimal).
type DecimalOrEquality struct{}

// Compare orders a and b as Decimal when both are well formed, and as
// EqualityOnly otherwise.
func (DecimalOrEquality) Compare(a, b string) (int, error) {
	if IsWellFormed(a) && IsWellFormed(b) {
		return CompareResourceVersion(a, b)
	}
	return EqualityOnly{}.Compare(a, b)
}
