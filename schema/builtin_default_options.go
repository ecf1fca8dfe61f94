package schema

import "time"

// DefaultOptions choose the steps Kind.DefaultWith runs (see DefaultBuiltin for the four
// steps). The zero value runs them all and reads a JSON body: DefaultWith is then Default.
type DefaultOptions struct {
	// Unstructured reads numbers as runtime.DefaultUnstructuredConverter does
	// (DefaultUnstructured) rather than as the JSON decoder does.
	Unstructured bool
	// SkipDefaulting leaves out step 2: the object is only decoded into the Go type and
	// encoded back (unknown fields dropped, quantities canonical, empty structs written), as
	// it is before the scheme's defaulter runs.
	SkipDefaulting bool
	// SkipInternalRoundTrip leaves out step 3: the object as the versioned Go value holds it,
	// not as it comes back from the internal version. kube-apiserver's mutating admission
	// dispatchers default an object a webhook patched at the version the webhook was sent,
	// and convert that versioned object into the internal one themselves; when it is not the
	// request's version, the round trip of the webhook's version never happens (an
	// autoscaling/v1 HorizontalPodAutoscaler without a CPU target does not get the 80 % one
	// there: the conversion into the object the dispatcher holds decides).
	SkipInternalRoundTrip bool
}

// DefaultWith is Default with the steps o chooses. Errors are Default's; with SkipDefaulting and
// SkipInternalRoundTrip only decoding errors remain.
func (k *Kind) DefaultWith(obj map[string]any, now time.Time, o DefaultOptions) (map[string]any, error) {
	return k.defaultWith(obj, now, o)
}
