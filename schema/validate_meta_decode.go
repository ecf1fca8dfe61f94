package schema

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/internal/codec"
)

// metaFromMap is decodeObjectMeta(metadata, false, "") without the JSON round trip for the
// metadata shapes the object model holds after a typed round trip: every field of the expected
// type and every string valid UTF-8. Any other shape takes the JSON round trip, so the result
// (and the error) is always the round trip's. The timestamps and managedFields are read directly
// when they are well formed (a valid RFC 3339 string; entries of strings, a time and any
// fieldsV1, kept as the value and marshalled only if its bytes are asked for); anything else is
// decoded from JSON, for the decoder's own errors.
func metaFromMap(metadata map[string]any) (*ObjectMeta, error) {
	om := &ObjectMeta{}
	var slow map[string]any
	ok := true
	text := func(v any, dst *string) {
		s, isStr := v.(string)
		if !isStr || !utf8.ValidString(s) {
			ok = false
			return
		}
		*dst = s
	}
	strMap := func(v any) map[string]string {
		m, isMap := v.(map[string]any)
		if !isMap {
			ok = false
			return nil
		}
		out := make(map[string]string, len(m))
		for k, x := range m {
			s, isStr := x.(string)
			if !isStr || !utf8.ValidString(s) || !utf8.ValidString(k) {
				ok = false
				return nil
			}
			out[k] = s
		}
		return out
	}
	for k, v := range metadata {
		if v == nil {
			continue // null leaves the zero value
		}
		switch k {
		case "name":
			text(v, &om.Name)
		case "generateName":
			text(v, &om.GenerateName)
		case "namespace":
			text(v, &om.Namespace)
		case "selfLink":
			text(v, &om.SelfLink)
		case "uid":
			text(v, &om.UID)
		case "resourceVersion":
			text(v, &om.ResourceVersion)
		case "generation":
			n, isInt := v.(int64)
			if !isInt {
				ok = false
			}
			om.Generation = n
		case "deletionGracePeriodSeconds":
			n, isInt := v.(int64)
			if !isInt {
				ok = false
			}
			om.DeletionGracePeriodSeconds = &n
		case "labels":
			om.Labels = strMap(v)
		case "annotations":
			om.Annotations = strMap(v)
		case "finalizers":
			l, isList := v.([]any)
			if !isList {
				ok = false
				break
			}
			om.Finalizers = make([]string, len(l))
			for i, x := range l {
				text(x, &om.Finalizers[i])
			}
		case "ownerReferences":
			l, isList := v.([]any)
			if !isList {
				ok = false
				break
			}
			om.OwnerReferences = make([]OwnerReference, len(l))
			for i, x := range l {
				ref, isMap := x.(map[string]any)
				if !isMap {
					ok = false
					break
				}
				r := &om.OwnerReferences[i]
				for rk, rv := range ref {
					if rv == nil {
						continue
					}
					switch rk {
					case "apiVersion":
						text(rv, &r.APIVersion)
					case "kind":
						text(rv, &r.Kind)
					case "name":
						text(rv, &r.Name)
					case "uid":
						text(rv, &r.UID)
					case "controller", "blockOwnerDeletion":
						b, isBool := rv.(bool)
						if !isBool {
							ok = false
						}
						if rk == "controller" {
							r.Controller = &b
						} else {
							r.BlockOwnerDeletion = &b
						}
					}
				}
			}
		case "creationTimestamp", "deletionTimestamp", "managedFields":
			switch t, isTime := fastTime(v); {
			case k == "creationTimestamp" && isTime:
				om.CreationTimestamp = t
			case k == "deletionTimestamp" && isTime:
				om.DeletionTimestamp = &t
			default:
				if entries, isEntries := fastManagedFields(v); k == "managedFields" && isEntries {
					om.ManagedFields = entries
					break
				}
				if slow == nil {
					slow = map[string]any{}
				}
				slow[k] = v
			}
		}
		if !ok {
			break
		}
	}
	if !ok {
		om, _, err := decodeObjectMeta(metadata, false, "")
		return om, err
	}
	if slow != nil {
		b, err := json.Marshal(slow)
		if err != nil {
			return nil, err
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(b, om); err != nil {
			return nil, metaDecodeError(err)
		}
	}
	return om, nil
}

// fastTime reads a metav1.Time as its UnmarshalJSON would when v is a valid RFC 3339 string.
func fastTime(v any) (codec.Time, bool) {
	s, isStr := v.(string)
	if !isStr || !utf8.ValidString(s) {
		return codec.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return codec.Time{}, false
	}
	return codec.Time{Time: t, Set: true}, true
}

// fastManagedFields reads managedFields as the JSON decoder would when every entry is an object
// (or null) whose known fields are strings (valid UTF-8), a valid time and any fieldsV1.
func fastManagedFields(v any) ([]ManagedFieldsEntry, bool) {
	l, isList := v.([]any)
	if !isList {
		return nil, false
	}
	out := make([]ManagedFieldsEntry, len(l))
	for i, x := range l {
		if x == nil {
			continue
		}
		m, isMap := x.(map[string]any)
		if !isMap {
			return nil, false
		}
		e := &out[i]
		for k, fv := range m {
			if fv == nil {
				continue
			}
			var dst *string
			switch k {
			case "manager":
				dst = &e.Manager
			case "operation":
				dst = &e.Operation
			case "apiVersion":
				dst = &e.APIVersion
			case "fieldsType":
				dst = &e.FieldsType
			case "subresource":
				dst = &e.Subresource
			case "time":
				t, isTime := fastTime(fv)
				if !isTime {
					return nil, false
				}
				e.Time = &t
			case "fieldsV1":
				e.FieldsV1 = &rawJSON{value: fv}
			}
			if dst != nil {
				s, isStr := fv.(string)
				if !isStr || !utf8.ValidString(s) {
					return nil, false
				}
				*dst = s
			}
		}
	}
	return out, true
}
