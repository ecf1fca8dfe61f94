package apply_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

const goldenDir = "../testdata/apply"

// scenario is one testdata/apply/<case>.yaml: a live object (optional) and steps run in order,
// each on the result of the previous successful one.
type scenario struct {
	Live  map[string]any `json:"live"`
	Types string         `json:"types"` // "" (built-in) or "deduced"
	Steps []step         `json:"steps"`
}

type step struct {
	Op          string   `json:"op"`   // apply (default) or update
	Kind        string   `json:"kind"` // "apps/v1 Deployment"; default the body's
	Manager     string   `json:"manager"`
	UserAgent   string   `json:"userAgent"`
	Force       bool     `json:"force"`
	Subresource string   `json:"subresource"`
	Reset       []string `json:"reset"` // reset field names (top-level) for this endpoint
	// BuiltinResets uses the endpoint's ResetFields, ResetPaths, StrategyReset and
	// StrategyValidation.
	BuiltinResets bool           `json:"builtinResets"`
	Minute        int            `json:"minute"`
	Body          map[string]any `json:"body"`
	SetUID        string         `json:"setUID"` // set metadata.uid on the result (as storage does)
}

func runScenario(t *testing.T, sc scenario) string {
	var b strings.Builder
	live := sc.Live
	var types apply.TypeConverter = apply.Builtin
	if sc.Types == "deduced" {
		types = apply.Deduced
	}
	for i, st := range sc.Steps {
		now := time.Date(2026, 1, 1, 0, st.Minute, 0, 0, time.UTC)
		var gvk schema.GroupVersionKind
		if st.Kind != "" {
			parts := strings.Fields(st.Kind)
			var err error
			gvk, err = schema.FromAPIVersionAndKind(parts[0], parts[1])
			require.NoError(t, err)
		}
		var reset map[fieldpath.APIVersion]fieldpath.Filter
		if st.Reset != nil {
			av := gvk.GroupVersion().String()
			if gvk.Empty() {
				av, _ = st.Body["apiVersion"].(string)
			}
			s := fieldpath.NewSet()
			for _, f := range st.Reset {
				var parts []any
				for _, p := range strings.Split(f, ".") {
					parts = append(parts, p)
				}
				s.Insert(fieldpath.MakePathOrDie(parts...))
			}
			reset = map[fieldpath.APIVersion]fieldpath.Filter{fieldpath.APIVersion(av): fieldpath.NewExcludeSetFilter(s)}
		}
		var resetValues [][]string
		var strategyReset apply.ValueReset
		var validate apply.UpdateValidation
		if st.BuiltinResets {
			k := gvk
			if k.Empty() {
				av, _ := st.Body["apiVersion"].(string)
				kind, _ := st.Body["kind"].(string)
				var err error
				k, err = schema.FromAPIVersionAndKind(av, kind)
				require.NoError(t, err)
			}
			reset = apply.ResetFields(k, st.Subresource)
			resetValues = apply.ResetPaths(k, st.Subresource)
			strategyReset = apply.StrategyReset(k, st.Subresource)
			validate = apply.StrategyValidation(k, st.Subresource)
		}
		liveBefore := deepCopy(live)
		bodyBefore := deepCopy(st.Body)
		var obj map[string]any
		var noop bool
		var err error
		var fallback error
		switch st.Op {
		case "", "apply":
			var r apply.Result
			r, err = apply.Apply(apply.Request{Live: live, Config: st.Body, Kind: gvk, Manager: st.Manager, Force: st.Force,
				Subresource: st.Subresource, Now: now, Types: types, ResetFields: reset, ResetValues: resetValues, Reset: strategyReset,
				Validate: validate, Resource: status.GroupResource{Group: gvk.Group, Resource: "things"}})
			obj, noop = r.Object, r.NoOp
		case "update":
			var r apply.UpdateResult
			r, err = apply.Update(apply.UpdateRequest{Live: live, Object: st.Body, Kind: gvk, Manager: st.Manager, UserAgent: st.UserAgent,
				Subresource: st.Subresource, Now: now, Types: types, ResetFields: reset, ResetValues: resetValues, Reset: strategyReset, Validate: validate})
			obj, noop, fallback = r.Object, r.NoOp, r.Fallback
		default:
			t.Fatalf("unknown op %q", st.Op)
		}
		assert.Equal(t, liveBefore, live, "step %d changed the live object", i)
		assert.Equal(t, bodyBefore, st.Body, "step %d changed the body", i)
		fmt.Fprintf(&b, "== step %d: %s manager=%q force=%v subresource=%q\n", i, st.Op, st.Manager, st.Force, st.Subresource)
		if err != nil {
			var se *status.Error
			require.True(t, errors.As(err, &se), "not a status error: %v", err)
			fmt.Fprintf(&b, "error %d %s: %s\n", se.Code, se.Reason, se.Message)
			if se.Details != nil {
				for _, c := range se.Details.Causes {
					fmt.Fprintf(&b, "  cause %s %s: %s\n", c.Type, c.Field, c.Message)
				}
			}
			var ce *apply.ConflictError
			if errors.As(err, &ce) {
				req := apply.Request{Live: live, Config: st.Body, Manager: st.Manager}
				apply.Explain(req, ce).WriteTo(&b)
			}
			continue
		}
		if fallback != nil {
			fmt.Fprintf(&b, "fallback: %v\n", fallback)
		}
		entries, _, ferr := managedfields.FromObject(obj)
		require.NoError(t, ferr)
		fmt.Fprintf(&b, "noop: %v\nmanagedFields: %s\n", noop, managedfields.MarshalEntries(entries))
		md, _ := obj["metadata"].(map[string]any)
		rest := map[string]any{}
		for k, v := range obj {
			rest[k] = v
		}
		if md != nil {
			m2 := map[string]any{}
			for k, v := range md {
				if k != "managedFields" {
					m2[k] = v
				}
			}
			rest["metadata"] = m2
		}
		out, jerr := codec.EncodeJSON(rest)
		require.NoError(t, jerr)
		fmt.Fprintf(&b, "object: %s\n", out)
		live = obj
		if st.SetUID != "" {
			live = deepCopy(obj)
			live["metadata"].(map[string]any)["uid"] = st.SetUID
		}
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			obj, err := codec.DecodeObject(data)
			require.NoError(t, err)
			raw, err := json.Marshal(obj)
			require.NoError(t, err)
			var sc scenario
			require.NoError(t, json.Unmarshal(raw, &sc))
			// json.Unmarshal turns numbers into float64: re-decode bodies with ints preserved.
			sc.Live = reint(t, obj["live"])
			for i, s := range obj["steps"].([]any) {
				sc.Steps[i].Body = reint(t, s.(map[string]any)["body"])
			}
			got := runScenario(t, sc)
			golden := filepath.Join(goldenDir, name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, file)
		})
	}
}

func reint(t *testing.T, v any) map[string]any {
	m, _ := v.(map[string]any)
	return deepCopy(m)
}

func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = deepValue(v)
	}
	return out
}

func deepValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopy(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepValue(x)
		}
		return out
	}
	return v
}

var _ = reflect.DeepEqual
