package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	goyaml "sigs.k8s.io/yaml/goyaml.v2"
	goyaml3 "sigs.k8s.io/yaml/goyaml.v3"
)

// yamlToJSON converts one YAML document to JSON byte for byte like sigs.k8s.io/yaml's
// YAMLToJSON (strict: YAMLToJSONStrict) - the same go-yaml v2 parse, the same key
// stringification, the same encoding/json output - with one difference: two keys of one
// mapping that become the same JSON key (1 and "1", true and "true", 1.0 and 1) are an error.
// sigs.k8s.io/yaml keeps one of them at random (Go map iteration order), so no answer would be
// a faithful prediction.
func yamlToJSON(data []byte, strict bool) ([]byte, error) {
	var obj any
	unmarshal := goyaml.Unmarshal
	if strict {
		unmarshal = goyaml.UnmarshalStrict
	}
	if err := unmarshal(data, &obj); err != nil {
		return nil, err
	}
	conv, err := jsonable(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(conv)
}

// keyCollision reports two YAML keys that convert to the same JSON key.
type keyCollision struct {
	first, second any
	key           string
}

func (e *keyCollision) Error() string {
	return fmt.Sprintf("yaml: keys %s and %s of one map both become the JSON key %q; kube-apiserver keeps one of them at random",
		yamlKeyString(e.first), yamlKeyString(e.second), e.key)
}

func yamlKeyString(k any) string {
	if s, ok := k.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v (%T)", k, k)
}

type yamlEntry struct {
	key   any
	str   string
	ok    bool
	value any
}

// jsonable mirrors sigs.k8s.io/yaml's convertToJSONableObject without a JSON target.
func jsonable(v any) (any, error) {
	switch t := v.(type) {
	case map[any]any:
		// Visit keys in a fixed order so that the first error is the same on every run.
		entries := make([]yamlEntry, 0, len(t))
		for k, e := range t {
			s, ok := yamlKey(k)
			entries = append(entries, yamlEntry{key: k, str: s, ok: ok, value: e})
		}
		slices.SortFunc(entries, func(a, b yamlEntry) int {
			if a.ok != b.ok {
				if !a.ok {
					return -1
				}
				return 1
			}
			if c := strings.Compare(a.str, b.str); c != 0 {
				return c
			}
			return strings.Compare(fmt.Sprintf("%T", a.key), fmt.Sprintf("%T", b.key))
		})
		out := make(map[string]any, len(entries))
		for i, e := range entries {
			if !e.ok {
				return nil, fmt.Errorf("unsupported map key of type: %s, key: %+#v, value: %+#v",
					reflect.TypeOf(e.key), e.key, e.value)
			}
			if i > 0 && entries[i-1].str == e.str {
				return nil, &keyCollision{first: entries[i-1].key, second: e.key, key: e.str}
			}
			c, err := jsonable(e.value)
			if err != nil {
				return nil, err
			}
			out[e.str] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return v, nil
	}
}

// yamlKey stringifies a go-yaml map key the way sigs.k8s.io/yaml does.
func yamlKey(k any) (string, bool) {
	switch t := k.(type) {
	case string:
		return t, true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case float64:
		s := strconv.FormatFloat(t, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s, true
	case bool:
		if t {
			return "true", true
		}
		return "false", true
	default:
		return "", false
	}
}

// yamlDuplicatePath locates the duplicate key go-yaml reported at line (the line of the
// duplicate's value, 1-based within the document) and returns its field path in
// sigs.k8s.io/json's notation, or "" when it cannot be identified unambiguously (keys equal
// only after YAML 1.1 resolution, such as yes and true, or keys brought in by a merge).
func yamlDuplicatePath(data []byte, line int) string {
	var root goyaml3.Node
	if line <= 0 || goyaml3.Unmarshal(data, &root) != nil {
		return ""
	}
	var candidates []string
	var walk func(n *goyaml3.Node, path string, depth int)
	walk = func(n *goyaml3.Node, path string, depth int) {
		if n == nil || depth > DefaultMaxDepth {
			return
		}
		switch n.Kind {
		case goyaml3.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, depth)
			}
		case goyaml3.MappingNode:
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				child := k.Value
				if path != "" {
					child = path + "." + k.Value
				}
				if v.Line == line && seen[k.Value] {
					candidates = append(candidates, child)
				}
				seen[k.Value] = true
				walk(v, child, depth+1)
			}
		case goyaml3.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]", depth+1)
			}
		}
	}
	walk(&root, "", 0)
	if len(candidates) != 1 {
		return ""
	}
	return candidates[0]
}
