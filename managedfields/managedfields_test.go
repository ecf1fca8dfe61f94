package managedfields_test

import (
	"bytes"
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

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/managedfields"
)

const goldenDir = "../testdata/managedfields"

// TestGolden runs every testdata/managedfields/*.yaml object through FromObject, Validate,
// Decode, Encode, WithEntries, Owners and WriteTable and compares the report with <case>.golden.
// UPDATE_GOLDEN=1 rewrites the goldens.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			obj := object(string(data))
			before := deepCopy(obj)
			got := report(obj)
			assert.Equal(t, before, obj, "input object changed")
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

func report(obj map[string]any) string {
	var b strings.Builder
	entries, found, err := managedfields.FromObject(obj)
	fmt.Fprintf(&b, "found: %v\n", found)
	if err != nil {
		fmt.Fprintf(&b, "FromObject error: %v\n", err)
		fmt.Fprintf(&b, "Lenient: %v\n", managedfields.Lenient(obj) == nil)
		return b.String()
	}
	for _, e := range managedfields.Validate(entries, field.NewPath("metadata", "managedFields")) {
		fmt.Fprintf(&b, "Validate: %v\n", e)
	}
	managed, err := managedfields.Decode(entries)
	if err != nil {
		fmt.Fprintf(&b, "Decode error: %v\n", err)
		return b.String()
	}
	encoded, err := managedfields.Encode(managed)
	if err != nil {
		fmt.Fprintf(&b, "Encode error: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "encoded: %s\n", managedfields.MarshalEntries(encoded))
	out, err := managedfields.WithEntries(obj, encoded)
	if err != nil {
		fmt.Fprintf(&b, "WithEntries error: %v\n", err)
		return b.String()
	}
	md, _ := out["metadata"].(map[string]any)
	_, has := md["managedFields"]
	fmt.Fprintf(&b, "metadata.managedFields present: %v\n", has)
	owners, err := managedfields.Owners(out)
	if err != nil {
		fmt.Fprintf(&b, "Owners error: %v\n", err)
		return b.String()
	}
	for _, fo := range owners {
		var names []string
		for _, o := range fo.Owners {
			names = append(names, o.Manager+"/"+string(o.Operation))
		}
		fmt.Fprintf(&b, "owner: %s %s\n", fo.Path, strings.Join(names, ","))
	}
	var tbl bytes.Buffer
	if err := managedfields.WriteTable(&tbl, out, ""); err != nil {
		fmt.Fprintf(&b, "table error: %v\n", err)
	}
	b.WriteString(tbl.String())
	return b.String()
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := map[string]any{}
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

func TestIdentifier(t *testing.T) {
	tests := []struct {
		entry managedfields.Entry
		want  string
	}{
		{managedfields.Entry{Manager: "kubectl", Operation: "Apply", APIVersion: "apps/v1"}, `{"manager":"kubectl","operation":"Apply"}`},
		{managedfields.Entry{Manager: "k", Operation: "Update", APIVersion: "v1", Subresource: "status"}, `{"manager":"k","operation":"Update","apiVersion":"v1","subresource":"status"}`},
		{managedfields.Entry{Manager: "<a&b>", Operation: "Update", APIVersion: "v1"}, `{"manager":"\u003ca\u0026b\u003e","operation":"Update","apiVersion":"v1"}`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, managedfields.Identifier(tt.entry), "%+v", tt.entry)
		back, err := managedfields.ParseIdentifier(tt.want)
		require.NoError(t, err)
		assert.Equal(t, tt.entry.Manager, back.Manager)
	}
}

func TestEncodeEmptyAndTimes(t *testing.T) {
	entries, err := managedfields.Encode(managedfields.Managed{})
	require.NoError(t, err)
	assert.Nil(t, entries)
	assert.Equal(t, "null", string(managedfields.MarshalEntries(nil)))

	ts := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("x", 3600))
	id := managedfields.Identifier(managedfields.Entry{Manager: "m", Operation: "Update", APIVersion: "v1"})
	m := managedfields.Managed{
		Fields: fieldpath.ManagedFields{id: fieldpath.NewVersionedSet(fieldpath.NewSet(fieldpath.MakePathOrDie("data", "a")), "v1", false)},
		Times:  map[string]*time.Time{id: &ts},
	}
	entries, err = managedfields.Encode(m)
	require.NoError(t, err)
	assert.Equal(t, `[{"manager":"m","operation":"Update","apiVersion":"v1","time":"2026-03-04T04:06:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]`, string(managedfields.MarshalEntries(entries)))
}

func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.yaml"))
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, y string) {
		obj, ok := tryObject(y)
		if !ok {
			return
		}
		before := deepCopy(obj)
		checkFastPaths(t, obj)
		entries, _, err := managedfields.FromObject(obj)
		if err != nil {
			return
		}
		_ = managedfields.Validate(entries, field.NewPath("metadata", "managedFields"))
		_, _ = managedfields.Owners(obj)
		m, err := managedfields.Decode(entries)
		if err == nil {
			enc, err := managedfields.Encode(m)
			require.NoError(t, err)
			// Round trip: decoding the encoding gives the same sets.
			m2, err := managedfields.Decode(enc)
			require.NoError(t, err)
			require.Equal(t, len(m.Fields), len(m2.Fields))
			for id, vs := range m.Fields {
				require.True(t, vs.Set().Equals(m2.Fields[id].Set()), id)
			}
			_, err = managedfields.WithEntries(obj, enc)
			require.NoError(t, err)
		}
		require.True(t, reflect.DeepEqual(before, obj), "input changed")
	})
}

// checkFastPaths asserts that DecodeObject equals Decode(Lenient(obj)) and that EncodeList
// equals the list WithEntries writes.
func checkFastPaths(t *testing.T, obj map[string]any) {
	slow, slowErr := managedfields.Decode(managedfields.Lenient(obj))
	fast, fastErr := managedfields.DecodeObject(obj)
	if slowErr != nil || fastErr != nil {
		require.Equal(t, fmt.Sprint(slowErr), fmt.Sprint(fastErr))
		return
	}
	require.Equal(t, len(slow.Fields), len(fast.Fields))
	for id, vs := range slow.Fields {
		fv, ok := fast.Fields[id]
		require.True(t, ok, id)
		require.True(t, vs.Set().Equals(fv.Set()), "%s: %v vs %v", id, vs.Set(), fv.Set())
		require.Equal(t, vs.APIVersion(), fv.APIVersion())
		require.Equal(t, vs.Applied(), fv.Applied())
		require.Equal(t, fmt.Sprint(slow.Times[id]), fmt.Sprint(fast.Times[id]))
	}
	enc, err := managedfields.Encode(slow)
	require.NoError(t, err)
	viaEntries, err := managedfields.WithEntries(map[string]any{}, enc)
	require.NoError(t, err)
	list, err := managedfields.EncodeList(slow)
	require.NoError(t, err)
	var want any
	if md, ok := viaEntries["metadata"].(map[string]any); ok {
		want = md["managedFields"]
	}
	if list == nil {
		require.Nil(t, want)
	} else {
		require.Equal(t, want, any(list))
	}
	// Encoding what DecodeObject returned (it copies unchanged canonical FieldsV1 maps) gives
	// the same list.
	fastList, err := managedfields.EncodeList(fast)
	require.NoError(t, err)
	if fastList == nil {
		require.Nil(t, want)
	} else {
		require.Equal(t, want, any(fastList))
	}
}

func TestFastPaths(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.yaml"))
	require.NoError(t, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		t.Run(filepath.Base(file), func(t *testing.T) { checkFastPaths(t, object(string(data))) })
	}
	// Sets whose keys need care: members with children, unknown prefixes, null values.
	checkFastPaths(t, object(`
metadata:
  managedFields:
  - manager: m
    operation: Update
    apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {"f:a": {".": {}, "f:b": {}}, "f:c": {"x:y": {}}, "f:d": null, "f:e": {"f:f": {"x:z": {}}}, "k:{\"name\":\"n\"}": {".": {}}, "v:\"s\"": {}, "i:3": {}}
  - manager: canonical
    operation: Apply
    apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {"f:a": {".": {}, "f:b": {}}, "f:c": {"k:{\"name\":\"n\",\"port\":1}": {".": {}, "f:x": {}}, "v:\"s\"": {}}}
  - manager: non-canonical-key
    operation: Update
    apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {"f:c": {"k:{\"port\":1,\"name\":\"n\"}": {}, "k:{ \"name\": \"m\"}": {}}}
`))
}

func TestRename(t *testing.T) {
	e := func(m string, op managedfields.Operation, f string) managedfields.Entry {
		return managedfields.Entry{Manager: m, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: []byte(f)}
	}
	in := []managedfields.Entry{e("old", "Apply", `{"f:data":{"f:a":{}}}`), e("ctrl", "Update", `{"f:data":{"f:b":{}}}`), e("new", "Apply", `{"f:data":{"f:c":{}}}`)}
	before := fmt.Sprint(in)
	out, err := managedfields.Rename(in, "old", "new", "")
	require.NoError(t, err)
	assert.Equal(t, `[{"manager":"ctrl","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:b":{}}}},{"manager":"new","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:c":{}}}}]`, string(managedfields.MarshalEntries(out)))
	assert.Equal(t, before, fmt.Sprint(in), "input changed")

	out, err = managedfields.Rename(in[:2], "old", "brand-new", "")
	require.NoError(t, err)
	assert.Equal(t, "brand-new", out[0].Manager)
	assert.Equal(t, "old", in[0].Manager)

	out, err = managedfields.Rename(in, "absent", "new", "")
	require.NoError(t, err)
	assert.Equal(t, managedfields.MarshalEntries(in), managedfields.MarshalEntries(out))
}
