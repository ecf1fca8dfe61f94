package apply_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
)

// scribble writes into every map and list of v, so that any container a result shares with an
// input shows up as a changed input.
func scribble(v any) {
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			scribble(c)
		}
		t["zz-scribbled"] = true
	case []any:
		for i, c := range t {
			scribble(c)
			t[i] = "zz-scribbled"
		}
		if cap(t) > len(t) {
			_ = append(t, "zz-scribbled") // writes into a shared backing array, if any
		}
	}
}

// TestResultsShareNothingWithInputs checks the no-aliasing invariant of Apply and Update: a
// result shares no map or list with the live object or the configuration, whatever path built
// it (merge, prune, defaulting, no-op, create, conflicts forced, atomic lists and empty maps,
// which structured-merge-diff carries over from its inputs as they are).
func TestResultsShareNothingWithInputs(t *testing.T) {
	live := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","uid":"u1","labels":{"a":"1"},
	  "managedFields":[
	    {"manager":"create","operation":"Update","apiVersion":"apps/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:image":{},"f:command":{},"f:volumeMounts":{}}},"f:volumes":{}}}}}},
	    {"manager":"alice","operation":"Apply","apiVersion":"apps/v1","time":"2026-01-01T00:01:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:image":{},"f:command":{}}}}}}}}]},
	  "spec":{"replicas":2,"selector":{"matchLabels":{"a":"1"}},"template":{"metadata":{"labels":{"a":"1"}},"spec":{
	    "containers":[{"name":"a","image":"x","command":["sh","-c"],"volumeMounts":[]}],
	    "volumes":[{"name":"v","emptyDir":{}}]}}},
	  "status":{"conditions":[{"type":"Available","status":"True"}]}}`
	configs := map[string]string{
		"changed image":    `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"a","image":"y","command":["sh","-c"]}]}}}}`,
		"no-op":            `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"a","image":"x","command":["sh","-c"]}]}}}}`,
		"pruned command":   `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`,
		"atomic and {}":    `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","annotations":{}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"a","image":"x","command":["a"],"args":[],"resources":{}}],"volumes":[{"name":"w","emptyDir":{}}]}}}}`,
		"other manager":    `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","labels":{"b":"2"}},"spec":{"minReadySeconds":1,"template":{"spec":{"containers":[{"name":"a","args":["q"]}]}}}}`,
		"create (no live)": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","labels":{"x":"y"}},"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x","command":["sh"]}],"volumes":[{"name":"w","emptyDir":{}}]}}}}`,
	}
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for name, cfg := range configs {
		for _, defaults := range []bool{false, true} {
			for _, manager := range []string{"alice", "bob"} {
				l, err := codec.DecodeObject([]byte(live))
				require.NoError(t, err)
				if name == "create (no live)" {
					l = nil
				}
				c, err := codec.DecodeObject([]byte(cfg))
				require.NoError(t, err)
				liveBefore, configBefore := deepCopy(l), deepCopy(c)
				req := apply.Request{Live: l, Config: c, Manager: manager, Force: true, Now: now}
				if !defaults {
					req.Default = apply.NoDefault
				}
				res, err := apply.Apply(req)
				require.NoError(t, err, name)
				scribble(res.Object)
				assert.True(t, reflect.DeepEqual(liveBefore, l), "%s (%s, defaults %v): Apply's result shares memory with the live object", name, manager, defaults)
				assert.True(t, reflect.DeepEqual(configBefore, c), "%s (%s, defaults %v): Apply's result shares memory with the configuration", name, manager, defaults)
				if l == nil {
					continue
				}
				ures, err := apply.Update(apply.UpdateRequest{Live: l, Object: c, Manager: manager, Now: now})
				require.NoError(t, err, name)
				scribble(ures.Object)
				assert.True(t, reflect.DeepEqual(liveBefore, l), "%s (%s): Update's result shares memory with the live object", name, manager)
				assert.True(t, reflect.DeepEqual(configBefore, c), "%s (%s): Update's result shares memory with the new object", name, manager)
			}
		}
	}
}
