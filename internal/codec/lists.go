package codec

import (
	"fmt"
	"maps"
	"strings"
)

// FlattenLists expands List documents the way kubectl -f does (cli-runtime's
// FlattenListVisitor over unstructured objects): a document with a top-level "items" key is a
// list and is replaced by its items, recursively; other documents pass through. An item that
// has neither apiVersion nor kind inherits the list's apiVersion and the list's kind without
// its "List" suffix (apimachinery's UnstructuredList decoding; a null item becomes an object
// holding just those two); items of nested lists are passed through as they are. "items": null
// is an empty list. An item that is not an object, or "items" that is not a list, is a
// KindNotObject error.
//
// The input is not modified. Unchanged documents and items are returned as they are (shared);
// an item that inherits apiVersion and kind is a shallow copy with those two keys set.
func FlattenLists(docs []map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(docs))
	for i, doc := range docs {
		items, isList, err := listItems(doc, i+1, false)
		if err != nil {
			return nil, err
		}
		if !isList {
			out = append(out, doc)
			continue
		}
		apiVersion, _ := doc["apiVersion"].(string)
		kind, _ := doc["kind"].(string)
		itemKind := strings.TrimSuffix(kind, "List")
		queue := make([]map[string]any, 0, len(items))
		for _, item := range items {
			if !nonEmptyString(item, "kind") && !nonEmptyString(item, "apiVersion") {
				c := maps.Clone(item)
				c["kind"] = itemKind
				c["apiVersion"] = apiVersion
				item = c
			}
			queue = append(queue, item)
		}
		for j := 0; j < len(queue); j++ {
			nested, nestedList, err := listItems(queue[j], i+1, true)
			if err != nil {
				return nil, err
			}
			if !nestedList {
				out = append(out, queue[j])
				continue
			}
			queue = append(queue, nested...)
		}
	}
	return out, nil
}

func nonEmptyString(m map[string]any, key string) bool {
	s, _ := m[key].(string)
	return s != ""
}

// listItems returns the items of a list document. A null item of a top-level list decodes
// as an empty object (UnstructuredList decoding); in a nested list it is an error
// (Unstructured.EachListItem).
func listItems(doc map[string]any, docIndex int, nested bool) ([]map[string]any, bool, error) {
	raw, ok := doc["items"]
	if !ok {
		return nil, false, nil
	}
	if raw == nil {
		return nil, true, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, false, &Error{Kind: KindNotObject, Document: docIndex, Path: "items",
			Detail: fmt.Sprintf("json: cannot unmarshal %s into Go struct field decodeList.items of type []json.RawMessage", jsonKind(raw))}
	}
	items := make([]map[string]any, len(list))
	for i, it := range list {
		m, ok := it.(map[string]any)
		if it == nil && !nested {
			m, ok = map[string]any{}, true
		}
		if !ok {
			return nil, false, &Error{Kind: KindNotObject, Document: docIndex, Path: fmt.Sprintf("items[%d]", i),
				Detail: fmt.Sprintf("json: cannot unmarshal %s into Go value of type map[string]interface {}", jsonKind(it))}
		}
		items[i] = m
	}
	return items, true, nil
}
