package registry

import (
	"github.com/writepath/writepath/schema/defaults"
)

// Present-but-empty []byte fields. kube-apiserver decodes "" in an omitempty []byte field
// (status.certificate of a CertificateSigningRequest, clientConfig.caBundle of a webhook) into
// []byte{}, which reflect.DeepEqual tells from nil and the etcd store's protobuf encoding keeps
// (gogo's Marshal writes a non-nil slice): the stored bytes change (a new resourceVersion; a
// webhook configuration's generation too, its PrepareForUpdate comparing the webhooks with
// reflect.DeepEqual), the object decodes back with []byte{}, and the CertificateSigning plugin
// refuses a later /status write that does not keep it — while every JSON view leaves it out
// (encoding/json's and the unstructured converter's omitempty), so a patch or a PUT from what a
// client reads drops it again. Recorded: testdata/cluster/scenarios/bytes.yaml.
//
// The pipeline keeps the Go value: a built-in object stored in protobuf is decoded with
// defaults.Options.KeepEmptyBytes (the field holds ""), and the stored object keeps the "" it
// was written with; the no-op check, the generation rule, the strategies' resets and the
// built-in admission plugins see both objects so. What the apiserver computes from a JSON or
// unstructured view of the object sees defaults.OmitEmptyBytes of it: the patched document,
// the field manager (apply's Builtin types), AdmissionReview and CEL objects, and the JSON and
// YAML body of every answer (Response.Object keeps the "" for a protobuf encoder, which writes
// the field).
//
// apiextensions-apiserver and kube-aggregator store CustomResourceDefinitions and APIServices
// as JSON (their LegacyCodec), which leaves the empty slice out: a caBundle "" there is no
// write at all (recorded: bytes/bytes-crd), and their objects are decoded without
// KeepEmptyBytes.

// keepsEmptyBytes reports whether the endpoint's objects are stored in protobuf, where an
// empty omitempty []byte field stays present: every built-in resource but those of
// apiextensions.k8s.io and apiregistration.k8s.io.
func (e *endpoint) keepsEmptyBytes() bool {
	if e.crd != nil || e.builtin == nil {
		return false
	}
	switch e.gvk.Group {
	case "apiextensions.k8s.io", "apiregistration.k8s.io":
		return false
	}
	return true
}

// jsonView is obj as the apiserver's JSON encoding and unstructured converter write it
// (defaults.OmitEmptyBytes): obj itself when it holds no present-but-empty []byte field.
func jsonView(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	return defaults.OmitEmptyBytes(obj)
}
