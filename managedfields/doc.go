// Package managedfields reads, checks, writes and queries metadata.managedFields, the field
// ownership record the Kubernetes apiserver keeps on every object.
//
// An object's managedFields is a list of entries. Each entry names a manager (the fieldManager of
// a request), the operation that recorded it (Apply for server-side apply, Update for any other
// write), the apiVersion it wrote through, a time, an optional subresource, and the set of fields it
// owns, encoded as FieldsV1 (structured-merge-diff's serialization of a fieldpath.Set). This package
// converts between three forms: the object model (map[string]any inside an object), Entry values,
// and Managed (structured-merge-diff's fieldpath.ManagedFields keyed by manager identifier, plus
// times), which is what server-side apply computes with. Encoding follows kube-apiserver 1.37 byte
// for byte: entry field order, the sort order of entries, FieldsV1 bytes, seconds-precision UTC
// times, and no metadata.managedFields at all when nothing is owned.
//
// # Usage
//
//	entries, _, err := managedfields.FromObject(live)      // read
//	managed, err := managedfields.Decode(entries)          // check and decode (apiserver texts)
//	entries, err = managedfields.Encode(managed)           // back, in the apiserver's order
//	out, err := managedfields.WithEntries(live, entries)   // a copy of live carrying them
//	owners, err := managedfields.OwnersOf(live, ".spec.replicas")
//	err = managedfields.WriteTable(os.Stdout, live, "")    // MANAGER OPERATION APIVERSION TIME ...
//	entries, err = managedfields.Upgrade(entries, []string{"kubectl-client-side-apply"}, "kubectl", "")
//
// DecodeObject and EncodeList are the object-model forms of Decode and Encode (the FieldsV1 sets
// as nested maps, converted without JSON). Upgrade is client-go's csaupgrade (client-side apply
// ownership moved to a server-side applier); Rename moves an applier's ownership to a new name.
//
// # Invariants
//
// Every function is pure: inputs are never changed, results share no mutable memory with them,
// nothing reads the clock. Functions are safe for concurrent use.
//
// # Errors
//
// Decode returns the apiserver's DecodeManagedFields texts ("operation must be `Apply` or
// `Update`", "apiVersion must not be empty", "missing fieldsType in managed fields entry 0",
// "invalid fieldsType \"x\" in managed fields entry 0", "error decoding versioned set from ...");
// the apply package wraps them as the apiserver does. Validate returns field.ErrorList items worded
// like ValidateManagedFields. FromObject reports shape errors (a field of the wrong JSON type, a
// time that is not RFC 3339); Lenient reads such input the way the apiserver's unstructured
// accessor does, as no managedFields.
package managedfields
