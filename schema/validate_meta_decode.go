package schema

import (
	"encoding/json"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
)

// metaFromMap is decodeObjectMeta(metadata, false, "") without the JSON round trip for the
// metadata shapes the object model holds after a typed round trip: every field of the expected
// type and every string valid UTF-8. Any other shape takes the JSON round trip, so the result
// (and the error) is always the round trip's. The timestamps and managedFields, whose decoding
// is their own types', are decoded from JSON alone.
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
			if slow == nil {
				slow = map[string]any{}
			}
			slow[k] = v
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
