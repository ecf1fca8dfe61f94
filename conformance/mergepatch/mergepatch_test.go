// Package mergepatch compares writepath's JSON merge patch with the code
// kube-apiserver 1.37 runs for application/merge-patch+json
// (gopkg.in/evanphx/json-patch.v4 MergePatch as jsonPatcher.applyJSPatch calls
// it) and with the creation functions kubectl uses (json-patch.v4
// CreateMergePatch, apimachinery's jsonmergepatch.CreateThreeWayJSONMergePatch).
package mergepatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/merge"
	wschema "github.com/writepath/writepath/schema"
)

type outcome struct {
	Object   any
	Warnings []string
	Code     int
	Message  string
}

// reference is the apiserver's merge-patch path: body check, strict
// pre-decode (fieldValidation Warn or Strict), MergePatch, result decoding.
func reference(doc map[string]any, patchJSON []byte, validation string) outcome {
	if !json.Valid(patchJSON) {
		return outcome{Code: 400, Message: "invalid JSON patch"}
	}
	var warnings []string
	if validation != "Ignore" {
		v := map[string]any{}
		strict, err := kjson.UnmarshalStrict(patchJSON, &v)
		if err != nil {
			st := apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			return outcome{Code: 400, Message: st.Error()}
		}
		for _, e := range strict {
			warnings = append(warnings, e.Error())
		}
	}
	docJS, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	patched, err := jsonpatch.MergePatch(docJS, patchJSON)
	if err == jsonpatch.ErrBadJSONPatch {
		st := apierrors.NewBadRequest(err.Error())
		return outcome{Code: 400, Message: st.Error()}
	}
	if err != nil {
		return outcome{Code: 500, Message: err.Error()}
	}
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patched, &v); err != nil {
		return outcome{Code: 422, Message: "decode: " + err.Error()}
	}
	if _, ok := v.(map[string]any); !ok {
		return outcome{Code: 422, Message: "not an object: " + string(patched)}
	}
	if validation == "Strict" && len(warnings) > 0 {
		return outcome{Code: 422, Message: "strict: " + string(patched) + ": " + strings.Join(warnings, ", ")}
	}
	if validation != "Warn" {
		warnings = nil
	}
	return outcome{Object: v, Warnings: warnings}
}

func ours(doc map[string]any, patchJSON []byte, validation string) outcome {
	res, err := merge.ApplyMergePatch(doc, patchJSON, merge.Options{FieldValidation: wschema.FieldValidation(validation)})
	if err == nil {
		return outcome{Object: res.Object, Warnings: res.Warnings}
	}
	var me *merge.Error
	if !errors.As(err, &me) {
		return outcome{Code: -1, Message: err.Error()}
	}
	o := outcome{Code: me.StatusCode(), Message: me.Error()}
	if o.Code == 422 && strings.Contains(o.Message, "couldn't get version/kind") {
		// ` "" is invalid: patch: Invalid value: "<json>": couldn't get ...`
		start := strings.Index(o.Message, `Invalid value: "`) + len(`Invalid value: "`)
		end := strings.Index(o.Message, `": couldn't get version/kind`)
		var s string
		require.NoError(nil2t{}, json.Unmarshal([]byte(`"`+o.Message[start:end]+`"`), &s))
		o.Message = "not an object: " + s
	}
	if o.Code == 422 && strings.Contains(o.Message, "strict decoding error: ") {
		start := strings.Index(o.Message, `Invalid value: "`) + len(`Invalid value: "`)
		end := strings.Index(o.Message, `": strict decoding error: `)
		var s string
		require.NoError(nil2t{}, json.Unmarshal([]byte(`"`+o.Message[start:end]+`"`), &s))
		o.Message = "strict: " + s + ": " + o.Message[end+len(`": strict decoding error: `):]
	}
	return o
}

// nil2t lets require run outside a test (it panics on failure).
type nil2t struct{}

func (nil2t) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (nil2t) FailNow()                          { panic("FailNow") }

func decodeJSON(t testing.TB, b []byte) any {
	var v any
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(b, &v))
	return v
}

func TestCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "jsoncons-net-rfc7396", "rfc7396-test-cases.json"))
	require.NoError(t, err)
	var groups []struct {
		Given json.RawMessage `json:"given"`
		Cases []struct {
			Patch  json.RawMessage `json:"patch"`
			Result json.RawMessage `json:"result"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(data, &groups))
	var deviations []string
	ran, skipped := 0, 0
	for gi, g := range groups {
		doc, ok := decodeJSON(t, g.Given).(map[string]any)
		wrapped := !ok
		if wrapped {
			// The apiserver only patches objects: run the case one level
			// down, as {"doc": given} patched by {"doc": patch}.
			doc = map[string]any{"doc": decodeJSON(t, g.Given)}
			skipped++
		}
		for ci, c := range g.Cases {
			name := fmt.Sprintf("rfc7396-test-cases.json#%d.%d given %s patch %s", gi, ci, compact(g.Given), compact(c.Patch))
			if wrapped {
				c.Patch = []byte(`{"doc":` + string(c.Patch) + `}`)
				c.Result = []byte(`{"doc":` + string(c.Result) + `}`)
				name += ` (wrapped in {"doc": ...})`
			}
			for _, validation := range []string{"Ignore", "Warn", "Strict"} {
				ran++
				want := reference(doc, c.Patch, validation)
				assert.Equal(t, want, ours(doc, c.Patch, validation), "%s (%s)", name, validation)
				if validation != "Warn" {
					continue
				}
				exp := decodeJSON(t, c.Result)
				if want.Code != 0 {
					deviations = append(deviations, fmt.Sprintf("%s\n  RFC: %s\n  apiserver (default fieldValidation): %d %s", name, compact(c.Result), want.Code, want.Message))
				} else if !reflect.DeepEqual(exp, want.Object) {
					deviations = append(deviations, fmt.Sprintf("%s\n  RFC: %s\n  apiserver: %s", name, compact(c.Result), mustJSON(want.Object)))
				}
			}
		}
	}
	t.Logf("corpus: %d runs (3 field validations each), %d groups skipped (document not an object), %d apiserver departures from RFC 7386", ran, skipped, len(deviations))
	text := strings.Join(deviations, "\n") + "\n"
	golden := filepath.Join("testdata", "deviations.txt")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(text), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), text)
}

func compact(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	return mustJSON(v)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var keys = []string{"a", "b", "c", "apiVersion", "kind", "metadata", "name", ""}

func randomScalar(rng *rand.Rand) any {
	return []any{nil, true, false, int64(rng.Intn(4)), 2.5, "x", "a<b", "", int64(1) << 60}[rng.Intn(9)]
}

func randomValue(rng *rand.Rand, depth int) any {
	if depth > 0 {
		switch rng.Intn(4) {
		case 0:
			m := map[string]any{}
			for i := rng.Intn(4); i > 0; i-- {
				m[keys[rng.Intn(len(keys))]] = randomValue(rng, depth-1)
			}
			return m
		case 1:
			s := []any{}
			for i := rng.Intn(3); i > 0; i-- {
				s = append(s, randomValue(rng, depth-1))
			}
			return s
		}
	}
	return randomScalar(rng)
}

func randomObject(rng *rand.Rand) map[string]any {
	m := map[string]any{}
	for i := rng.Intn(5); i > 0; i-- {
		m[keys[rng.Intn(len(keys))]] = randomValue(rng, 3)
	}
	return m
}

// mutate returns a changed copy of v.
func mutate(rng *rand.Rand, v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := map[string]any{}
		ks := make([]string, 0, len(t))
		for k := range t {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			e := t[k]
			if rng.Intn(5) != 0 {
				m[k] = mutate(rng, e)
			}
		}
		if rng.Intn(3) == 0 {
			m[keys[rng.Intn(len(keys))]] = randomValue(rng, 2)
		}
		return m
	case []any:
		if rng.Intn(3) == 0 {
			return randomValue(rng, 2)
		}
		return t
	}
	if rng.Intn(3) == 0 {
		return randomValue(rng, 1)
	}
	return v
}

func samples() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100000
	}
	return 3000
}

func TestRandomApply(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n := samples()
	codes := map[int]int{}
	for i := 0; i < n; i++ {
		doc := randomObject(rng)
		var p []byte
		switch rng.Intn(12) {
		case 0:
			p = []byte(mustJSON(randomValue(rng, 2)))
		case 1:
			p = []byte(`{"a":1,"a":null}`)
		default:
			p = []byte(mustJSON(mutate(rng, randomObject(rng))))
		}
		validation := []string{"Ignore", "Warn", "Strict"}[rng.Intn(3)]
		before := mustJSON(doc)
		want := reference(doc, p, validation)
		got := ours(doc, p, validation)
		codes[want.Code]++
		require.Equal(t, want, got, "case %d doc %s patch %s validation %s", i, before, p, validation)
		require.Equal(t, before, mustJSON(doc), "input mutated")
	}
	t.Logf("apply: %d cases, 0 disagreements; outcomes by code %v", n, codes)
}

func TestRandomCreate(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	n := samples()
	for i := 0; i < n; i++ {
		a := randomObject(rng)
		b := mutate(rng, a).(map[string]any)
		aj, bj := []byte(mustJSON(a)), []byte(mustJSON(b))
		want, werr := jsonpatch.CreateMergePatch(aj, bj)
		got, gerr := merge.CreateMergePatch(a, b)
		require.Equal(t, werr == nil, gerr == nil, "case %d: %v / %v", i, werr, gerr)
		require.Equal(t, string(want), string(got), "case %d original %s modified %s", i, aj, bj)
	}
	t.Logf("create two-way: %d cases, 0 disagreements", n)
}

func TestRandomThreeWay(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	n := samples()
	conflicts, preconds := 0, 0
	for i := 0; i < n; i++ {
		original := randomObject(rng)
		modified := mutate(rng, original).(map[string]any)
		current := mutate(rng, original).(map[string]any)
		if rng.Intn(4) == 0 {
			current = mutate(rng, modified).(map[string]any)
		}
		oj, mj, cj := []byte(mustJSON(original)), []byte(mustJSON(modified)), []byte(mustJSON(current))
		if rng.Intn(10) == 0 {
			oj = nil
			original = nil
		}
		var refPre []mergepatch.PreconditionFunc
		var ourPre []merge.Precondition
		if rng.Intn(2) == 0 {
			refPre = []mergepatch.PreconditionFunc{mergepatch.RequireKeyUnchanged("apiVersion"), mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name")}
			ourPre = []merge.Precondition{merge.RequireKeyUnchanged("apiVersion"), merge.RequireKeyUnchanged("kind"), merge.RequireMetadataKeyUnchanged("name")}
		}
		want, werr := jsonmergepatch.CreateThreeWayJSONMergePatch(oj, mj, cj, refPre...)
		got, gerr := merge.CreateThreeWayMergePatch(original, modified, current, ourPre...)
		if werr != nil {
			require.Error(t, gerr, "case %d", i)
			require.Equal(t, werr.Error(), gerr.Error(), "case %d", i)
			if mergepatch.IsConflict(werr) {
				conflicts++
				var ce *merge.ConflictError
				require.True(t, errors.As(gerr, &ce))
			} else {
				preconds++
			}
			continue
		}
		require.NoError(t, gerr, "case %d original %s modified %s current %s", i, oj, mj, cj)
		require.Equal(t, string(want), string(got), "case %d original %s modified %s current %s", i, oj, mj, cj)
	}
	t.Logf("create three-way: %d cases, 0 disagreements (%d conflicts, %d precondition failures)", n, conflicts, preconds)
}

// FuzzDifferential: any object, patch and field validation give the
// apiserver's outcome.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"c":[1]}`), []byte(`{"a":{"b":null,"d":{"e":null}},"c":[{"x":null}]}`), uint8(0))
	f.Add([]byte(`{"a":1}`), []byte(`[{"a":null}]`), uint8(2))
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte, v uint8) {
		var doc map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(docJSON, &doc) != nil || doc == nil {
			return
		}
		if _, err := json.Marshal(doc); err != nil {
			return
		}
		validation := []string{"Ignore", "Warn", "Strict"}[int(v)%3]
		want := reference(doc, patchJSON, validation)
		got := ours(doc, patchJSON, validation)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("doc %s patch %s (%s):\nreference %+v\nwritepath %+v", docJSON, patchJSON, validation, want, got)
		}
	})
}
