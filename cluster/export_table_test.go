package cluster

import (
	"strings"
	"time"

	"github.com/writepath/writepath/schema"
)

// PrintTableForTest is the Table of a built-in object or list (by its apiVersion and kind) at
// now, with the default includeObject.
func PrintTableForTest(obj map[string]any, now time.Time) map[string]any {
	av, _ := obj["apiVersion"].(string)
	group, version, ok := strings.Cut(av, "/")
	if !ok {
		group, version = "", av
	}
	kind, _ := obj["kind"].(string)
	b, err := schema.Builtin(schema.GroupVersionKind{Group: group, Version: version, Kind: strings.TrimSuffix(kind, "List")})
	if err != nil {
		return nil
	}
	c, err := New(Options{Clock: NewFakeClock(now)})
	if err != nil {
		return nil
	}
	conv := &tableConverter{c: c, version: "v1"}
	conv.target.Resource = schema.GroupVersionResource{Group: group, Version: version, Resource: b.Resource}
	tbl, _ := conv.convert(obj)
	return tbl
}
