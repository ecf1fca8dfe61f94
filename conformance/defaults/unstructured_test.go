package defaults

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// referenceUnstructured is what the apiserver's field manager does to the object a server-side
// apply merged (structuredMergeManager.Apply: toVersioned, the scheme's defaulter,
// toUnversioned): runtime.DefaultUnstructuredConverter reads the unstructured content into the
// versioned Go type (the scheme's unstructuredToTyped), then defaulting and the internal round
// trip as in reference.
func referenceUnstructured(gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, error) {
	sc := schemeFor(gvk.Group)
	typed, err := sc.New(kschema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(runtime.DeepCopyJSON(obj), typed); err != nil {
		return nil, err
	}
	sc.Default(typed)
	kgv := kschema.GroupVersion{Group: gvk.Group, Version: gvk.Version}
	internal, err := sc.ConvertToVersion(typed, kschema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, err
	}
	back, err := sc.ConvertToVersion(internal, kgv)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(back)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(out, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// numberValues are what a merged object can hold in an integer field: in range, beyond int32
// and int64, integral floats (within, beyond and at the edges of int64), fractions.
var numberValues = []any{int64(0), int64(3), int64(-1), int64(80), int64(math.MaxInt32), int64(math.MinInt32),
	int64(math.MaxInt32) + 1, int64(math.MinInt32) - 1, int64(4294967297), int64(4294967376), int64(math.MaxInt64),
	int64(math.MinInt64), int64(9007199254740993), 1.0, 8080.0, 4294967298.0, 2.5, -0.5, 1e3, 1e19, -1e19, 1e21, 1e30, -1e30,
	9223372036854775808.0, -9223372036854775808.0, 9007199254740993.0, math.Copysign(0, -1)}

// withNumbers replaces, with probability 1/p each, the integer values of v (of Go type t) by
// numberValues; IntOrString values too.
func withNumbers(r *rand.Rand, t reflect.Type, v any, p int) any {
	if t == tIntOrStr {
		if r.Intn(p) == 0 {
			return numberValues[r.Intn(len(numberValues))]
		}
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		return withNumbers(r, t.Elem(), v, p)
	case reflect.Int, reflect.Int32, reflect.Int64:
		if _, ok := v.(int64); ok && r.Intn(p) == 0 {
			return numberValues[r.Intn(len(numberValues))]
		}
	case reflect.Slice:
		if l, ok := v.([]any); ok {
			for i := range l {
				l[i] = withNumbers(r, t.Elem(), l[i], p)
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok && t.Key().Kind() == reflect.String {
			for _, k := range sortedKeys(m) {
				m[k] = withNumbers(r, t.Elem(), m[k], p)
			}
		}
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok {
			structNumbers(r, t, m, p)
		}
	}
	return v
}

func structNumbers(r *rand.Rand, t reflect.Type, m map[string]any, p int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			structNumbers(r, f.Type, m, p)
			continue
		}
		if x, ok := m[name]; ok {
			m[name] = withNumbers(r, f.Type, x, p)
		}
	}
}

// sortedKeys iterates a map's keys in order (the random choices stay reproducible).
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// numberError reports whether a writepath error is one of the converter's number errors, whose
// text must then be the reference's.
func numberError(detail string) bool {
	return strings.HasPrefix(detail, "cannot convert float64 to ") || strings.HasPrefix(detail, "json: cannot unmarshal ") ||
		strings.HasPrefix(detail, "unrecognized type: ")
}

// TestUnstructuredNumbers drives every served built-in kind with random objects whose integer
// and IntOrString fields hold numbers in and out of range, as floats and as integers, through
// the reference's unstructured converter and defaults.Builtin with Options.Unstructured: the same
// objects (int32 wrapping, float conversion), the same failures, and for the number errors
// the same words.
func TestUnstructuredNumbers(t *testing.T) {
	var kinds []schema.GroupVersionKind
	for _, k := range servedKinds(t) {
		if !pending[k.Group] {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	n := sampleSize()
	seed := int64(11)
	if v, err := strconv.ParseInt(os.Getenv("WRITEPATH_SEED"), 10, 64); err == nil {
		seed = v
	}
	g := &gen{r: rand.New(rand.NewSource(seed))}
	cases, bothErr, numberErrs, changed, fails := 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		gvk := kinds[i%len(kinds)]
		obj := g.object(gvk)
		typed, _ := schemeFor(gvk.Group).New(kschema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
		structNumbers(g.r, reflect.TypeOf(typed).Elem(), obj, 2)
		before := js(obj)
		now := time.Now()
		want, werr := referenceUnstructured(gvk, obj)
		for time.Now().Truncate(time.Second) != now.Truncate(time.Second) {
			now = time.Now()
			want, werr = referenceUnstructured(gvk, obj)
		}
		got, gerr := defaults.Builtin(gvk, obj, defaults.Options{Now: now, Unstructured: true})
		cases++
		if js(obj) != before {
			t.Fatalf("%v: input modified", gvk)
		}
		if werr != nil || gerr != nil {
			if (werr == nil) != (gerr == nil) {
				fails++
				if fails <= 5 {
					t.Errorf("%v: reference error %v, writepath error %v\ninput: %s", gvk, werr, gerr, before)
				}
				continue
			}
			bothErr++
			var fe *field.Error
			if errors.As(gerr, &fe) && numberError(fe.Detail) {
				numberErrs++
				if fe.Detail != werr.Error() {
					fails++
					if fails <= 5 {
						t.Errorf("%v: reference %q, writepath %q\ninput: %s", gvk, werr, fe.Detail, before)
					}
				}
			}
			continue
		}
		if js(want) != js(got) {
			fails++
			if fails <= 5 {
				t.Errorf("%v: differs\ninput: %s\n%s", gvk, before, diff(js(want), js(got)))
			}
			continue
		}
		if _, err := defaults.Builtin(gvk, obj, defaults.Options{Now: now}); err != nil {
			changed++ // the JSON decoder refuses what the converter accepted (wrapped, converted)
		}
	}
	t.Logf("%d cases, %d accepted only by the converter (wrapped or converted numbers), %d rejected by both (%d number errors, words compared), %d disagreements",
		cases, changed, bothErr, numberErrs, fails)
}
