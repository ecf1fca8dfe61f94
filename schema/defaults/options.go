package defaults

import "time"

// Options are the inputs of Builtin and ForKind besides the object: the
// request's time and the steps to run (see Builtin for the four steps). The zero value
// runs them all on a JSON body at the zero time.
type Options struct {
	// Now is the apiserver's clock (resource.k8s.io/v1 DeviceTaint.timeAdded defaults to it).
	Now time.Time
	// Unstructured reads numbers as runtime.DefaultUnstructuredConverter does (the object
	// server-side apply merges, a strategic merge patch's result; see
	// unstructured.go) rather than as the JSON decoder does.
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
	// ShareFieldsV1 lets the result's managedFields fieldsV1 values (kept as written: the Go
	// type holds them as raw JSON) be the input's own instead of copies. The caller must then
	// change them in neither. The result is the same value either way.
	ShareFieldsV1 bool
	// KeepEmptyBytes writes an omitempty []byte field that decodes to an empty, non-nil slice
	// (the Go value []byte{} of "", [] or a base64 text of nothing) as "" instead of leaving it
	// out as encoding/json does: the object as kube-apiserver holds it, which its protobuf
	// storage keeps present but empty and reflect.DeepEqual tells from none. OmitEmptyBytes
	// turns such an object back into what encoding/json and the unstructured converter write.
	KeepEmptyBytes bool
}
