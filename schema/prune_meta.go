package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
)

// The apiserver decodes the metadata of a custom resource (and of embedded resources) into
// metav1.ObjectMeta and writes it back: unknown fields disappear, values of the wrong type are
// errors (or dropped when reading old data from storage), times are normalised to RFC 3339 in UTC
// and empty values vanish. These types mirror ObjectMeta's JSON shape so that decoding fails with
// the same messages.

// metaTimeValue is a decoded metav1.Time written back: RFC 3339 in UTC, nil for none.
func metaTimeValue(t codec.Time) any {
	if t.Time.IsZero() {
		return nil
	}
	return t.Time.UTC().Format(time.RFC3339)
}

// rawJSON is a field kept as JSON: the bytes the decoder saw, or (read from the object model by
// metaFromMap) the value, marshalled when its bytes are asked for.
type rawJSON struct {
	raw   []byte
	value any
}

// bytes returns the field's JSON.
func (r *rawJSON) bytes() []byte {
	if r.raw == nil && r.value != nil {
		b, err := json.Marshal(r.value)
		if err == nil {
			return b
		}
	}
	return r.raw
}

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	if string(b) != "null" {
		r.raw = append(r.raw[:0], b...)
	}
	return nil
}

type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

type ManagedFieldsEntry struct {
	Manager     string      `json:"manager,omitempty"`
	Operation   string      `json:"operation,omitempty"`
	APIVersion  string      `json:"apiVersion,omitempty"`
	Time        *codec.Time `json:"time,omitempty"`
	FieldsType  string      `json:"fieldsType,omitempty"`
	FieldsV1    *rawJSON    `json:"fieldsV1,omitempty"`
	Subresource string      `json:"subresource,omitempty"`
}

// ObjectMeta mirrors metav1.ObjectMeta's JSON shape; it is exported only because decoding errors
// name the type ("Go struct field ObjectMeta.name of type string") and must read like the
// apiserver's. Use CoerceMetadata rather than this type.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	SelfLink                   string               `json:"selfLink,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          codec.Time           `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *codec.Time          `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string             `json:"finalizers,omitempty"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// Go names the declared types of a few fields in decoding errors; ours are plain strings.
var (
	metaUIDType       = regexp.MustCompile(`(Go struct field \w+\.(?:[\w.]*\.)?uid) of type string`)
	metaOperationType = regexp.MustCompile(`(Go struct field \w+\.(?:[\w.]*\.)?operation) of type string`)
)

func metaDecodeError(err error) error {
	msg := err.Error()
	msg = metaUIDType.ReplaceAllString(msg, "$1 of type types.UID")
	msg = metaOperationType.ReplaceAllString(msg, "$1 of type v1.ManagedFieldsOperationType")
	msg = strings.ReplaceAll(msg, "codec.Time", "v1.Time")
	msg = strings.ReplaceAll(msg, "schema.ObjectMeta", "v1.ObjectMeta")
	msg = strings.ReplaceAll(msg, "schema.OwnerReference", "v1.OwnerReference")
	msg = strings.ReplaceAll(msg, "schema.ManagedFieldsEntry", "v1.ManagedFieldsEntry")
	return errors.New(msg)
}

// decodeObjectMeta decodes a metadata value like runtime's json round trip into ObjectMeta. With
// trackUnknown it also returns the unknown field paths, prefixed by prefix.
func decodeObjectMeta(metadata any, strict bool, prefix string) (*ObjectMeta, []string, error) {
	b, err := json.Marshal(metadata)
	if err != nil {
		return nil, nil, err
	}
	om := &ObjectMeta{}
	if strict {
		strictErrs, err := kjson.UnmarshalStrict(b, om)
		if err != nil {
			return nil, nil, metaDecodeError(err)
		}
		var unknown []string
		for _, e := range strictErrs {
			var fe kjson.FieldError
			if errors.As(e, &fe) {
				unknown = append(unknown, prefix+"."+fe.FieldPath())
			}
		}
		return om, unknown, nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, om); err != nil {
		return nil, nil, metaDecodeError(err)
	}
	return om, nil, nil
}

// decodeObjectMetaDropping decodes field by field, keeping only the fields that decode (what the
// apiserver does with DropMalformedFields when reading from storage and pruning defaults).
func decodeObjectMetaDropping(metadata any, strict bool, prefix string) (*ObjectMeta, []string, error) {
	om, unknown, err := decodeObjectMeta(metadata, strict, prefix)
	if err == nil {
		return om, unknown, nil
	}
	m, ok := metadata.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("invalid metadata: expected object, got %T", metadata)
	}
	acc := &ObjectMeta{}
	for _, k := range sortedKeys(m) {
		single, err := json.Marshal(map[string]any{k: m[k]})
		if err != nil {
			continue
		}
		test := &ObjectMeta{}
		if kjson.UnmarshalCaseSensitivePreserveInts(single, test) != nil {
			continue
		}
		if strict {
			strictErrs, _ := kjson.UnmarshalStrict(single, acc)
			for _, e := range strictErrs {
				var fe kjson.FieldError
				if errors.As(e, &fe) {
					unknown = append(unknown, prefix+"."+fe.FieldPath())
				}
			}
		} else {
			_ = kjson.UnmarshalCaseSensitivePreserveInts(single, acc)
		}
	}
	return acc, unknown, nil
}

// unstructured renders om like runtime.DefaultUnstructuredConverter.ToUnstructured.
func (om *ObjectMeta) unstructured() map[string]any {
	out := map[string]any{}
	str := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	str("name", om.Name)
	str("generateName", om.GenerateName)
	str("namespace", om.Namespace)
	str("selfLink", om.SelfLink)
	str("uid", om.UID)
	str("resourceVersion", om.ResourceVersion)
	if om.Generation != 0 {
		out["generation"] = om.Generation
	}
	if !om.CreationTimestamp.Time.IsZero() {
		out["creationTimestamp"] = metaTimeValue(om.CreationTimestamp)
	}
	if om.DeletionTimestamp != nil {
		out["deletionTimestamp"] = metaTimeValue(*om.DeletionTimestamp)
	}
	if om.DeletionGracePeriodSeconds != nil {
		out["deletionGracePeriodSeconds"] = *om.DeletionGracePeriodSeconds
	}
	strMap := func(k string, m map[string]string) {
		if len(m) == 0 {
			return
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		out[k] = c
	}
	strMap("labels", om.Labels)
	strMap("annotations", om.Annotations)
	if len(om.OwnerReferences) > 0 {
		l := make([]any, len(om.OwnerReferences))
		for i, r := range om.OwnerReferences {
			e := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": r.UID}
			if r.Controller != nil {
				e["controller"] = *r.Controller
			}
			if r.BlockOwnerDeletion != nil {
				e["blockOwnerDeletion"] = *r.BlockOwnerDeletion
			}
			l[i] = e
		}
		out["ownerReferences"] = l
	}
	if len(om.Finalizers) > 0 {
		l := make([]any, len(om.Finalizers))
		for i, f := range om.Finalizers {
			l[i] = f
		}
		out["finalizers"] = l
	}
	if len(om.ManagedFields) > 0 {
		l := make([]any, len(om.ManagedFields))
		for i, mf := range om.ManagedFields {
			e := map[string]any{}
			if mf.Manager != "" {
				e["manager"] = mf.Manager
			}
			if mf.Operation != "" {
				e["operation"] = mf.Operation
			}
			if mf.APIVersion != "" {
				e["apiVersion"] = mf.APIVersion
			}
			if mf.Time != nil {
				e["time"] = metaTimeValue(*mf.Time)
			}
			if mf.FieldsType != "" {
				e["fieldsType"] = mf.FieldsType
			}
			if mf.FieldsV1 != nil {
				var v any
				if raw := mf.FieldsV1.bytes(); len(raw) > 0 {
					if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v); err != nil {
						v = nil
					}
				}
				e["fieldsV1"] = v
			}
			if mf.Subresource != "" {
				e["subresource"] = mf.Subresource
			}
			l[i] = e
		}
		out["managedFields"] = l
	}
	return out
}

// coercer normalises the metadata of embedded resources below the root (objectmeta.Coerce).
type coercer struct {
	dropInvalid bool
	track       bool
	unknown     []string
}

func (c *coercer) coerce(pth field.Path, x any, s *Structural) *field.Error {
	if s == nil {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			v := x[k]
			if s.XEmbeddedResource {
				switch k {
				case "apiVersion", "kind":
					if _, ok := v.(string); !ok {
						if c.dropInvalid {
							delete(x, k)
						} else {
							return field.Invalid(pth.Child(k), v, "must be a string")
						}
					}
				case "metadata":
					decode := decodeObjectMeta
					if c.dropInvalid {
						decode = decodeObjectMetaDropping
					}
					om, unknown, err := decode(v, c.track, pth.Child("metadata").String())
					c.unknown = append(c.unknown, unknown...)
					if err != nil {
						if !c.dropInvalid {
							return field.Invalid(pth.Child("metadata"), v, err.Error())
						}
					} else {
						x["metadata"] = om.unstructured()
					}
				}
			}
			if prop, ok := s.Properties[k]; ok {
				if err := c.coerce(pth.Child(k), v, prop); err != nil {
					return err
				}
			} else if s.AdditionalProperties != nil {
				if err := c.coerce(pth.Key(k), v, s.AdditionalProperties.Structural); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, v := range x {
			if err := c.coerce(pth.Index(i), v, s.Items); err != nil {
				return err
			}
		}
	}
	return nil
}

// needsCoerce reports whether s has any embedded resource below the root (the only places
// Coerce changes anything when the root is not embedded).
func needsCoerce(s *Structural, depth int) bool {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	if s.XEmbeddedResource {
		return true
	}
	for _, p := range s.Properties {
		if needsCoerce(p, depth+1) {
			return true
		}
	}
	return needsCoerce(s.Items, depth+1) || needsCoerce(s.AdditionalPropertiesSchema(), depth+1)
}

// CoerceEmbedded returns a copy of obj whose embedded resources (x-kubernetes-embedded-resource)
// have their apiVersion and kind checked and their metadata normalised through ObjectMeta, like
// apiextensions' objectmeta.CoerceWithOptions with isResourceRoot false. With trackUnknown it
// also returns the unknown metadata fields ("spec.template.metadata.foo"), sorted. A wrong-typed
// apiVersion, kind or metadata is an error (the apiserver answers 400).
func CoerceEmbedded(obj map[string]any, s *Structural, trackUnknown bool) (map[string]any, []string, error) {
	out := value.Clone(obj).(map[string]any)
	c := &coercer{track: trackUnknown}
	if ferr := c.coerce(field.Path{}, out, s); ferr != nil {
		return nil, nil, ferr
	}
	sort.Strings(c.unknown)
	return out, c.unknown, nil
}
