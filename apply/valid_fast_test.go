package apply

import (
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// builtinCorpus is every object of a built-in kind under ../testdata that the catalogue types.
func builtinCorpus(t *testing.T) []map[string]any {
	var out []map[string]any
	err := filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".json")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return nil // not one object
		}
		if _, err := builtinType(obj); err == nil {
			out = append(out, obj)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// mutate changes one random place of obj (in place): a value replaced by one of another kind,
// an unknown field added, or a field removed (a list item's key among them).
func mutate(r *rand.Rand, obj map[string]any) {
	type place struct {
		m map[string]any
		l []any
		k string
		i int
	}
	var places []place
	var maps []map[string]any
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			maps = append(maps, x)
			for k, e := range x {
				places = append(places, place{m: x, k: k})
				walk(e)
			}
		case []any:
			for i, e := range x {
				places = append(places, place{l: x, i: i})
				walk(e)
			}
		}
	}
	walk(obj)
	replacements := []func() any{
		func() any { return int64(1) },
		func() any { return 1.5 },
		func() any { return "s" },
		func() any { return true },
		func() any { return nil },
		func() any { return []any{"x"} },
		func() any { return []any{nil} },
		func() any { return []any{map[string]any{}} },
		func() any { return map[string]any{"x": "y"} },
		func() any { return map[string]any{} },
		func() any { return uint64(1) },
	}
	switch n := r.Intn(10); {
	case n < 6 && len(places) > 0:
		p := places[r.Intn(len(places))]
		v := replacements[r.Intn(len(replacements))]()
		if p.m != nil {
			p.m[p.k] = v
		} else {
			p.l[p.i] = v
		}
	case n < 8:
		m := maps[r.Intn(len(maps))]
		m["zz"+string(rune('a'+r.Intn(3)))] = "unknown"
	default:
		m := maps[r.Intn(len(maps))]
		for k := range m {
			delete(m, k)
			break
		}
	}
}

// TestValidNoErrorsMatchesSMD compares validNoErrors with TypedValue.Validate on built-in
// objects of testdata, random Deployments (duplicate list items included), the shapes of
// walkSchema and deduced objects, each as it is or with up to three random mutations: with
// AllowDuplicates the two agree exactly; without, validNoErrors never says valid where SMD
// reports an error.
func TestValidNoErrorsMatchesSMD(t *testing.T) {
	corpus := builtinCorpus(t)
	require.NotEmpty(t, corpus)
	parser, err := typed.NewParser(walkSchema)
	require.NoError(t, err)
	shapes := parser.Type("root")
	r := rand.New(rand.NewSource(7))
	cases := 4000
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 100000
	}
	valid, invalid := 0, 0
	for i := 0; i < cases; i++ {
		var pt typed.ParseableType
		var obj map[string]any
		switch i % 4 {
		case 0:
			obj = value.Clone(corpus[r.Intn(len(corpus))]).(map[string]any)
			pt, err = builtinType(obj)
			require.NoError(t, err)
		case 1:
			obj = adversarialDeployment(r, true)
			pt, err = builtinType(obj)
			require.NoError(t, err)
		case 2:
			pt, obj = shapes, randomWalkObject(r, true)
		default:
			pt, obj = typed.DeducedParseableType, adversarialDeployment(r, true)
		}
		for n := r.Intn(4); n > 0; n-- {
			mutate(r, obj)
		}
		_, smdErr := pt.FromUnstructured(obj, typed.AllowDuplicates)
		fast := validNoErrors(pt.Schema, pt.TypeRef, obj, true)
		if !assert.Equal(t, smdErr == nil, fast, "case %d: SMD says %v on %v", i, smdErr, obj) {
			return
		}
		if fast {
			valid++
		} else {
			invalid++
		}
		_, strictErr := pt.FromUnstructured(obj)
		if validNoErrors(pt.Schema, pt.TypeRef, obj, false) {
			require.NoError(t, strictErr, "case %d: %v", i, obj)
		}
	}
	t.Logf("%d corpus objects; %d cases valid, %d invalid", len(corpus), valid, invalid)
	assert.Greater(t, valid, cases/10)
	assert.Greater(t, invalid, cases/10)
}

// TestFromUnstructuredSameValue checks that fromUnstructured gives the value FromUnstructured
// gives, and an error when FromUnstructured gives one (SMD's own: its messages depend on map
// iteration order, it stops a map at its first unknown field).
func TestFromUnstructuredSameValue(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pt, err := k.SMDType()
	require.NoError(t, err)
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 500; i++ {
		obj := adversarialDeployment(r, true)
		if i%2 == 1 {
			mutate(r, obj)
		}
		for _, opts := range [][]typed.ValidationOptions{nil, {typed.AllowDuplicates}} {
			want, wantErr := pt.FromUnstructured(obj, opts...)
			got, gotErr := fromUnstructured(pt, obj, opts...)
			if wantErr != nil {
				assert.Error(t, gotErr)
				continue
			}
			require.NoError(t, gotErr)
			assert.Equal(t, want, got)
		}
	}
}
