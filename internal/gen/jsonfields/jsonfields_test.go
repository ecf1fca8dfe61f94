package jsonfields

import (
	"encoding/json"
	"reflect"
	"testing"
)

type inner struct {
	A int `json:"a"`
	B int `json:"b"`
}

type Exported struct {
	C int `json:"c"`
	B int // untagged: its JSON name is "B", distinct from inner's "b"
}

type outer struct {
	inner
	Exported
	D int    `json:"d,string"`
	E string `json:"-"`
	F int    `json:",omitempty"`
	g int
}

func names(fs []Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// TestOfMatchesEncodingJSON: with today's rules the names are exactly the keys encoding/json
// writes for the same struct.
func TestOfMatchesEncodingJSON(t *testing.T) {
	b, err := json.Marshal(outer{inner: inner{A: 1, B: 2}, Exported: Exported{C: 3, B: 4}, D: 5, F: 6, g: 7})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	fs := Of(reflect.TypeFor[outer](), Rules{ExploreUnexportedEmbedded: true})
	if len(fs) != len(m) {
		t.Fatalf("Of = %v, encoding/json wrote %s", names(fs), b)
	}
	for _, f := range fs {
		if _, ok := m[f.Name]; !ok {
			t.Errorf("field %q not written by encoding/json (%s)", f.Name, b)
		}
		if f.Name == "d" && !f.Quoted {
			t.Errorf("d: ,string not seen")
		}
	}
	// a and b are promoted from the unexported embedded struct, c and B from the exported one.
	if want := []string{"a", "b", "c", "B", "d", "F"}; !reflect.DeepEqual(names(fs), want) {
		t.Errorf("Of = %v, want %v", names(fs), want)
	}
}

// TestOfOldRules: the older fork skips the unexported embedded struct altogether.
func TestOfOldRules(t *testing.T) {
	fs := Of(reflect.TypeFor[outer](), Rules{})
	if want := []string{"c", "B", "d", "F"}; !reflect.DeepEqual(names(fs), want) {
		t.Errorf("Of = %v, want %v", names(fs), want)
	}
	if got := fs[0].Index; !reflect.DeepEqual(got, []int{1, 0}) {
		t.Errorf("c's index = %v, want [1 0]", got)
	}
}
