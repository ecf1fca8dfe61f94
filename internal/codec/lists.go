package codec

import (
	"fmt"
	"maps"
	"strings"
)

// FlattenLists expands List documents exactly as kubectl -f does with unstructured objects
// (apimachinery's UnstructuredJSONScheme, then cli-runtime's FlattenListVisitor):
//
//   - a document with a top-level "items" key is a list and is replaced by its items; other
//     documents pass through;
//   - "items" must be a list or null (an empty list), and each item an object or null;
//   - an item with neither apiVersion nor kind (as non-empty strings) inherits the list's
//     apiVersion and the list's kind without its "List" suffix; a null item becomes an object
//     holding just those two;
//   - an item that is itself a list (its "items" is a list) is an error, as it is for kubectl
//     (meta.ExtractList cannot read an unstructured object's items); an item whose "items" is
//     anything else is an ordinary object.
//
// Errors are KindNotObject with kubectl's words. The input is not modified: unchanged
// documents and items are returned as they are (shared); an item that inherits apiVersion and
// kind is a shallow copy with those two keys set.
func FlattenLists(docs []map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(docs))
	for i, doc := range docs {
		raw, isList := doc["items"]
		if !isList {
			out = append(out, doc)
			continue
		}
		var list []any
		switch t := raw.(type) {
		case nil:
		case []any:
			list = t
		default:
			return nil, &Error{Kind: KindNotObject, Document: i + 1, Path: "items",
				Detail: fmt.Sprintf("json: cannot unmarshal %s into Go struct field decodeList.items of type []json.RawMessage", JSONKind(raw))}
		}
		apiVersion, _ := doc["apiVersion"].(string)
		kind, _ := doc["kind"].(string)
		itemKind := strings.TrimSuffix(kind, "List")
		// Decoding the list reads every item before flattening looks at any of them, so a
		// malformed item anywhere wins over a nested list.
		items := make([]map[string]any, len(list))
		for j, it := range list {
			item, ok := it.(map[string]any)
			if it == nil {
				item, ok = map[string]any{}, true
			}
			if !ok {
				return nil, &Error{Kind: KindNotObject, Document: i + 1, Path: fmt.Sprintf("items[%d]", j),
					Detail: fmt.Sprintf("json: cannot unmarshal %s into Go value of type map[string]interface {}", JSONKind(it))}
			}
			if !nonEmptyString(item, "kind") && !nonEmptyString(item, "apiVersion") {
				c := maps.Clone(item)
				c["kind"] = itemKind
				c["apiVersion"] = apiVersion
				item = c
			}
			items[j] = item
		}
		for j, item := range items {
			if _, nested := item["items"].([]any); nested {
				return nil, &Error{Kind: KindNotObject, Document: i + 1, Path: fmt.Sprintf("items[%d].items", j),
					Detail: "*unstructured.Unstructured is not a list: no Items field in this object"}
			}
		}
		out = append(out, items...)
	}
	return out, nil
}

func nonEmptyString(m map[string]any, key string) bool {
	s, _ := m[key].(string)
	return s != ""
}
