package replaydiff

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
)

// FirstDiff is the first difference between want and got under path ("" for the root), with
// values cut to width bytes of JSON; "" when they are equal.
func FirstDiff(path string, want, got any, width int) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s, want %s", orRoot(path), Short(got, width), Short(want, width))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, both := w[k]; !both {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inW:
				return fmt.Sprintf("%s.%s: unexpected %s", path, k, Short(gv, width))
			case !inG:
				return fmt.Sprintf("%s.%s: missing, want %s", path, k, Short(wv, width))
			}
			if d := FirstDiff(path+"."+k, wv, gv, width); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %s, want %s", orRoot(path), Short(got, width), Short(want, width))
		}
		for i := range w {
			if d := FirstDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], width); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Sprintf("%s: %s, want %s", orRoot(path), Short(got, width), Short(want, width))
	}
	return ""
}

// Short is v as JSON, cut to width bytes ("..." standing for the rest) unless
// WRITEPATH_REPLAY_FULL is set.
func Short(v any, width int) string {
	b, _ := json.Marshal(v)
	if len(b) > width && os.Getenv("WRITEPATH_REPLAY_FULL") == "" {
		return string(b[:width-3]) + "..."
	}
	return string(b)
}

func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}
