// Package jsonpatch compares writepath's JSON Patch with the code path
// kube-apiserver 1.37 runs for application/json-patch+json:
// gopkg.in/evanphx/json-patch.v4 with the apiserver's limits, its error
// wrapping and the decoding of the result.
package jsonpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	jsonpatchv5 "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/patch"
	wschema "github.com/writepath/writepath/schema"
)

func init() {
	// The apiserver sets this global at start-up (server/config.go,
	// JSONPatchMaxCopyBytes = 3 MiB); the reference must run the same way.
	atomic.StoreInt64(&jsonpatch.AccumulatedCopySizeLimit, 3*1024*1024)
}

// outcome is what a client observes.
type outcome struct {
	Object  any
	Code    int
	Message string
	// Cause is the JSON Patch library's error text (not sent by the server for
	// a 422, compared to prove the same failure).
	Cause string
}

const maxOps = 10000

// reference runs kube-apiserver's jsonPatcher.applyJSPatch with
// fieldValidation=Ignore, then decodes the result as the unstructured decoder
// does (integers preserved).
func reference(doc map[string]any, patchJSON []byte) (out outcome) {
	if !json.Valid(patchJSON) {
		return outcome{Code: 400, Message: "invalid JSON patch"}
	}
	docJS, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	p, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		st := apierrors.NewBadRequest(err.Error())
		return outcome{Code: int(st.Status().Code), Message: st.Error(), Cause: err.Error()}
	}
	if len(p) > maxOps {
		st := apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxOps, len(p)))
		return outcome{Code: int(st.Status().Code), Message: st.Error()}
	}
	defer func() {
		if r := recover(); r != nil {
			out = outcome{Code: 500, Message: "panic"}
		}
	}()
	patched, err := p.Apply(docJS)
	if err != nil {
		st := apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		return outcome{Code: int(st.Status().Code), Message: st.Error(), Cause: err.Error()}
	}
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patched, &v); err != nil {
		return outcome{Code: 422, Message: "decode: " + err.Error()}
	}
	if _, ok := v.(map[string]any); !ok {
		return outcome{Code: 422, Message: "not an object: " + string(patched)}
	}
	return outcome{Object: v}
}

func ours(doc map[string]any, patchJSON []byte) outcome {
	res, err := patch.ApplyJSONPatch(doc, patchJSON, patch.Options{FieldValidation: wschema.FieldValidationIgnore})
	if err == nil {
		return outcome{Object: res.Object}
	}
	var pe *patch.Error
	if !errors.As(err, &pe) {
		return outcome{Code: -1, Message: err.Error()}
	}
	out := outcome{Code: pe.StatusCode(), Message: pe.Error()}
	if pe.Cause != nil {
		out.Cause = pe.Cause.Error()
	}
	switch {
	case out.Code == 500:
		out = outcome{Code: 500, Message: "panic"}
	case out.Code == 422 && strings.Contains(out.Message, "couldn't get version/kind"):
		out = outcome{Code: 422, Message: "not an object"}
	}
	return out
}

func normalize(o outcome) outcome {
	if o.Code == 422 && strings.HasPrefix(o.Message, "not an object") {
		o.Message = "not an object"
	}
	return o
}

func decodeObj(t testing.TB, data []byte) map[string]any {
	var v map[string]any
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(data, &v))
	return v
}

func deepCopyJSON(t testing.TB, v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return decodeObj(t, b)
}

type corpusCase struct {
	Comment  string          `json:"comment"`
	Doc      json.RawMessage `json:"doc"`
	Patch    json.RawMessage `json:"patch"`
	Expected json.RawMessage `json:"expected"`
	Error    string          `json:"error"`
	Disabled bool            `json:"disabled"`
}

// TestCorpus runs json-patch-tests (tests.json and spec_tests.json) and the
// RFC 6902 appendix examples through both, and records every case where the
// apiserver departs from the RFC expectation in testdata/deviations.txt.
func TestCorpus(t *testing.T) {
	var cases []corpusCase
	for _, f := range []string{"tests.json", "spec_tests.json"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "json-patch-tests", f))
		require.NoError(t, err)
		var cs []corpusCase
		require.NoError(t, json.Unmarshal(data, &cs))
		for i := range cs {
			cs[i].Comment = fmt.Sprintf("%s#%d: %s", f, i, cs[i].Comment)
		}
		cases = append(cases, cs...)
	}
	{
		data, err := os.ReadFile(filepath.Join("testdata", "quirks.json"))
		require.NoError(t, err)
		var cs []corpusCase
		require.NoError(t, json.Unmarshal(data, &cs))
		for i := range cs {
			cs[i].Comment = fmt.Sprintf("quirks.json#%d: %s", i, cs[i].Comment)
		}
		cases = append(cases, cs...)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "jsoncons-net-rfc7396", "rfc6902-examples.json"))
	require.NoError(t, err)
	var groups []struct {
		Given json.RawMessage `json:"given"`
		Cases []struct {
			Comment string          `json:"comment"`
			Patch   json.RawMessage `json:"patch"`
			Result  json.RawMessage `json:"result"`
			Error   string          `json:"error"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(data, &groups))
	for gi, g := range groups {
		for ci, c := range g.Cases {
			cases = append(cases, corpusCase{Comment: fmt.Sprintf("rfc6902-examples.json#%d.%d: %s", gi, ci, c.Comment),
				Doc: g.Given, Patch: c.Patch, Expected: c.Result, Error: c.Error})
		}
	}

	var deviations []string
	ran, skipped := 0, 0
	for _, c := range cases {
		if c.Doc == nil || c.Patch == nil || c.Disabled {
			continue
		}
		var doc map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(c.Doc, &doc); err != nil || doc == nil {
			// The apiserver only ever patches objects: run the case on the
			// document wrapped as {"doc": ...} with every pointer prefixed,
			// unless an operation targets the whole document.
			var ok bool
			if c, ok = wrap(t, c); !ok {
				skipped++
				continue
			}
			require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(c.Doc, &doc))
		}
		ran++
		in := deepCopyJSON(t, doc)
		want := normalize(reference(doc, c.Patch))
		got := normalize(ours(in, c.Patch))
		assert.Equal(t, want, got, "case %s patch %s", c.Comment, c.Patch)
		assert.Equal(t, doc, in, "input mutated: %s", c.Comment)

		// Does the apiserver agree with the RFC expectation?
		rfcError := c.Error != ""
		switch {
		case rfcError && want.Code == 0:
			deviations = append(deviations, fmt.Sprintf("%s\n  RFC: error %q\n  apiserver: succeeds", c.Comment, c.Error))
		case !rfcError && want.Code != 0:
			deviations = append(deviations, fmt.Sprintf("%s\n  RFC: succeeds\n  apiserver: %d %s (%s)", c.Comment, want.Code, want.Message, want.Cause))
		case !rfcError:
			var exp any
			if c.Expected != nil {
				require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(c.Expected, &exp))
			}
			if c.Expected != nil && !reflect.DeepEqual(exp, want.Object) {
				g, _ := json.Marshal(want.Object)
				deviations = append(deviations, fmt.Sprintf("%s\n  RFC: %s\n  apiserver: %s", c.Comment, compactJSON(c.Expected), g))
			}
		}
	}
	t.Logf("corpus: %d cases run, %d skipped (document not an object), %d apiserver departures from the RFC", ran, skipped, len(deviations))
	golden := filepath.Join("testdata", "deviations.txt")
	text := strings.Join(deviations, "\n") + "\n"
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(text), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), text)
}

// wrap rewrites a case on a non-object document into one on {"doc": document}.
func wrap(t *testing.T, c corpusCase) (corpusCase, bool) {
	var ops []map[string]json.RawMessage
	if err := json.Unmarshal(c.Patch, &ops); err != nil {
		return c, false
	}
	for _, op := range ops {
		for _, m := range []string{"path", "from"} {
			raw, ok := op[m]
			if !ok {
				continue
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil || s == "" {
				return c, false
			}
			if strings.HasPrefix(s, "/") {
				op[m], _ = json.Marshal("/doc" + s)
			}
		}
	}
	var err error
	c.Patch, err = json.Marshal(ops)
	require.NoError(t, err)
	c.Doc = []byte(`{"doc":` + string(c.Doc) + `}`)
	if c.Expected != nil {
		c.Expected = []byte(`{"doc":` + string(c.Expected) + `}`)
	}
	c.Comment += " (wrapped in {\"doc\": ...})"
	return c, true
}

func compactJSON(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestRandom compares both on random documents and patches built to reach the
// library's corners (null values, missing members, negative and zero-padded
// indices, empty keys, escapes, copies of nulls, whole-document operations).
func TestRandom(t *testing.T) {
	n := 3000
	if os.Getenv("WRITEPATH_LONG") != "" {
		n = 100000
	}
	rng := rand.New(rand.NewSource(4))
	disagreements, nondeterministic := 0, 0
	codes := map[int]int{}
	for i := 0; i < n; i++ {
		doc := randomDoc(rng)
		p := randomPatch(rng, doc)
		in := deepCopyJSON(t, doc)
		want := normalize(reference(doc, p))
		got := normalize(ours(in, p))
		codes[want.Code]++
		if !reflect.DeepEqual(want, got) {
			// The library walks Go maps in random order when it compares
			// objects ("test"): with one member unequal and another that makes
			// it panic, either can come first. Accept any answer it gives.
			for try := 0; try < 300 && !reflect.DeepEqual(want, got); try++ {
				want = normalize(reference(doc, p))
			}
			if reflect.DeepEqual(want, got) {
				nondeterministic++
			}
		}
		if !assert.Equal(t, want, got, "case %d doc %s patch %s", i, mustJSON(doc), p) {
			disagreements++
			if disagreements > 10 {
				t.FailNow()
			}
		}
		assert.Equal(t, doc, in, "input mutated")
	}
	t.Logf("random: %d cases, %d disagreements; outcomes by status code: %v; %d where the reference's answer depends on map order", n, disagreements, codes, nondeterministic)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var keys = []string{"a", "b", "", "~", "/", "a/b", "m~n", "0", "01", "-", "<"}

func randomScalar(rng *rand.Rand) any {
	switch rng.Intn(7) {
	case 0:
		return nil
	case 1:
		return rng.Intn(2) == 0
	case 2:
		return int64(rng.Intn(5))
	case 3:
		return 1.5
	case 4:
		return "x"
	case 5:
		return "a<b"
	default:
		return "A"
	}
}

func randomValue(rng *rand.Rand, depth int) any {
	if depth <= 0 {
		return randomScalar(rng)
	}
	switch rng.Intn(4) {
	case 0:
		m := map[string]any{}
		for j := rng.Intn(4); j > 0; j-- {
			m[keys[rng.Intn(len(keys))]] = randomValue(rng, depth-1)
		}
		return m
	case 1:
		s := []any{}
		for j := rng.Intn(4); j > 0; j-- {
			s = append(s, randomValue(rng, depth-1))
		}
		return s
	default:
		return randomScalar(rng)
	}
}

func randomDoc(rng *rand.Rand) map[string]any {
	m := map[string]any{}
	for j := rng.Intn(5); j > 0; j-- {
		m[keys[rng.Intn(len(keys))]] = randomValue(rng, 3)
	}
	return m
}

// paths lists the JSON pointers of every value of v.
func paths(v any, prefix string, out *[]string) {
	*out = append(*out, prefix)
	switch t := v.(type) {
	case map[string]any:
		ks := make([]string, 0, len(t))
		for k := range t {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			paths(t[k], prefix+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k), out)
		}
	case []any:
		for i, e := range t {
			paths(e, fmt.Sprintf("%s/%d", prefix, i), out)
		}
	}
}

func randomPointer(rng *rand.Rand, existing []string) string {
	base := existing[rng.Intn(len(existing))]
	switch rng.Intn(16) {
	case 0:
		return base + "/-"
	case 1:
		return base + "/" + []string{"-1", "-2", "00", "01", "1", "0", "+1", "9", "x", "", "~0", "~1", "~"}[rng.Intn(13)]
	case 2:
		return base + "/" + keys[rng.Intn(len(keys))]
	case 3:
		return []string{"", "/", "a", "//", "/a/", "#/a"}[rng.Intn(6)]
	default:
		return base
	}
}

func randomPatch(rng *rand.Rand, doc map[string]any) []byte {
	var existing []string
	paths(doc, "", &existing)
	var ops []string
	for j := rng.Intn(3) + 1; j > 0; j-- {
		kinds := []string{"add", "remove", "replace", "move", "copy", "test"}
		op := kinds[rng.Intn(len(kinds))]
		members := []string{}
		switch rng.Intn(20) {
		case 0:
			members = append(members, `"op":null`)
		case 1:
			members = append(members, `"op":"bogus"`)
		case 2:
		default:
			members = append(members, `"op":`+mustJSON(op))
		}
		switch rng.Intn(20) {
		case 0:
		case 1:
			members = append(members, `"path":null`)
		case 2:
			members = append(members, `"path":1`)
		default:
			members = append(members, `"path":`+mustJSON(randomPointer(rng, existing)))
		}
		if op == "move" || op == "copy" || rng.Intn(10) == 0 {
			switch rng.Intn(15) {
			case 0:
			case 1:
				members = append(members, `"from":null`)
			default:
				members = append(members, `"from":`+mustJSON(randomPointer(rng, existing)))
			}
		}
		switch {
		case rng.Intn(10) == 0:
			// no value
		case rng.Intn(8) == 0:
			members = append(members, `"value":null`)
		case op == "test" && rng.Intn(2) == 0:
			// test against the current value, sometimes spelled differently
			var cur any = doc
			members = append(members, `"value":`+respell(rng, mustJSON(pick(rng, cur))))
		default:
			members = append(members, `"value":`+respell(rng, mustJSON(randomValue(rng, 2))))
		}
		if rng.Intn(15) == 0 {
			members = append(members, `"extra":1`)
		}
		rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
		if rng.Intn(30) == 0 {
			ops = append(ops, "null")
			continue
		}
		ops = append(ops, "{"+strings.Join(members, ",")+"}")
	}
	return []byte("[" + strings.Join(ops, ", ") + "]")
}

// pick returns a random sub-value of v.
func pick(rng *rand.Rand, v any) any {
	for rng.Intn(3) != 0 {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				return v
			}
			ks := make([]string, 0, len(t))
			for k := range t {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			v = t[ks[rng.Intn(len(ks))]]
		case []any:
			if len(t) == 0 {
				return v
			}
			v = t[rng.Intn(len(t))]
		default:
			return v
		}
	}
	return v
}

// respell rewrites some JSON text without changing its value: spaces, a
// \u-escaped letter, a number written as 1.0.
func respell(rng *rand.Rand, s string) string {
	switch rng.Intn(6) {
	case 0:
		return strings.ReplaceAll(s, ",", " , ")
	case 1:
		return strings.Replace(s, `"A"`, `"\u0041"`, 1)
	case 2:
		return strings.Replace(s, `"a\u003cb"`, `"a<b"`, 1)
	case 3:
		return strings.Replace(s, "1", "1.0", 1)
	}
	return s
}

// TestLimits checks the operation limit and the copy limit against the
// reference.
func TestLimits(t *testing.T) {
	doc := map[string]any{"a": "x"}
	ops := make([]string, 10001)
	for i := range ops {
		ops[i] = `{"op":"test","path":"/a","value":"x"}`
	}
	p := []byte("[" + strings.Join(ops, ",") + "]")
	assert.Equal(t, reference(doc, p), ours(doc, p))
	assert.Equal(t, reference(doc, []byte("["+strings.Join(ops[:10000], ",")+"]")), ours(doc, []byte("["+strings.Join(ops[:10000], ",")+"]")))

	big := strings.Repeat("x", 1<<20)
	bomb := []byte(`[{"op":"add","path":"/a","value":"` + big + `"},` +
		`{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"},{"op":"copy","from":"/a","path":"/d"}]`)
	want := reference(doc, bomb)
	assert.Equal(t, want, ours(doc, bomb))
	assert.Contains(t, want.Cause, "exceeding the limit 3145728")
}

// FuzzDifferential: any object and patch give the reference's outcome.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,2,null]},"":"x"}`), []byte(`[{"op":"add","path":"/a/b/-1","value":1}]`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"op":"add","path":"/b","value":null},{"op":"copy","from":"/b","path":"/c"},{"op":"test","path":"/c","value":{}}]`))
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte) {
		var doc map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(docJSON, &doc) != nil || doc == nil {
			return
		}
		if _, err := json.Marshal(doc); err != nil {
			return
		}
		in := deepCopyJSON(t, doc)
		want := normalize(reference(doc, patchJSON))
		got := normalize(ours(in, patchJSON))
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("doc %s patch %s:\nreference %+v\nwritepath %+v", docJSON, patchJSON, want, got)
		}
	})
}

// TestV5Divergence records where github.com/evanphx/json-patch/v5, configured
// through ApplyOptions as close to the apiserver as it allows (negative
// indices on, the 3 MiB copy limit, HTML escaping), still answers differently
// from the apiserver's v4: the reason writepath does not delegate to v5.
func TestV5Divergence(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "quirks.json"))
	require.NoError(t, err)
	var cases []corpusCase
	require.NoError(t, json.Unmarshal(data, &cases))
	var lines []string
	for i, c := range cases {
		doc := decodeObj(t, c.Doc)
		want := normalize(reference(doc, c.Patch))
		got := v5outcome(t, doc, c.Patch)
		if !reflect.DeepEqual(want.Object, got.Object) || (want.Code == 0) != (got.Code == 0) || want.Cause != got.Cause {
			lines = append(lines, fmt.Sprintf("quirks.json#%d: %s\n  apiserver (v4): %s\n  v5 with options: %s", i, c.Comment, describe(want), describe(got)))
		}
	}
	text := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "v5-divergence.txt")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(golden, []byte(text), 0o644))
	}
	wantText, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(wantText), text)
	assert.NotEmpty(t, lines)
}

func describe(o outcome) string {
	if o.Code == 0 {
		return mustJSON(o.Object)
	}
	if o.Cause != "" {
		return fmt.Sprintf("%d (%s)", o.Code, o.Cause)
	}
	return fmt.Sprintf("%d %s", o.Code, o.Message)
}

func v5outcome(t *testing.T, doc map[string]any, patchJSON []byte) (out outcome) {
	docJS, err := json.Marshal(doc)
	require.NoError(t, err)
	defer func() {
		if r := recover(); r != nil {
			out = outcome{Code: 500, Message: "panic"}
		}
	}()
	p, err := jsonpatchv5.DecodePatch(patchJSON)
	if err != nil {
		return outcome{Code: 400, Message: err.Error(), Cause: err.Error()}
	}
	o := jsonpatchv5.NewApplyOptions()
	o.SupportNegativeIndices = true
	o.AccumulatedCopySizeLimit = 3 * 1024 * 1024
	o.EscapeHTML = true
	patched, err := p.ApplyWithOptions(docJS, o)
	if err != nil {
		return outcome{Code: 422, Message: "the server rejected our request due to an error in our request", Cause: err.Error()}
	}
	var v any
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(patched, &v))
	return outcome{Object: v}
}
