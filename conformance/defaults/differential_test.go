package defaults

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
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

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// reference is what the apiserver does to a request body of kind gvk: decode into the
// versioned Go type (the JSON serializer: case-sensitive, unknown fields dropped), run the
// scheme's defaulting functions, convert to the internal version (what the apiserver holds)
// and back, encode (encoding/json).
func reference(gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	sc := schemeFor(gvk.Group)
	typed, err := sc.New(kschema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
	if err != nil {
		return nil, err
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, typed); err != nil {
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

// servedKinds are the built-in kinds a default 1.37 apiserver serves that schema defaults.
func servedKinds(t *testing.T) []schema.GroupVersionKind {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		t.Fatal(err)
	}
	var out []schema.GroupVersionKind
	for _, k := range kinds {
		if !k.ServedByDefault || k.Resource == "" || !defaults.Handles(k.GVK) {
			continue
		}
		if _, err := schemeFor(k.GVK.Group).New(kschema.GroupVersionKind{Group: k.GVK.Group, Version: k.GVK.Version, Kind: k.GVK.Kind}); err != nil {
			continue
		}
		out = append(out, k.GVK)
	}
	return out
}

// gen makes random objects of a Go type, as JSON values: fields present or not, nulls, empty
// collections, zero values, and values drawn from vocabularies that hit the defaulting rules.
type gen struct {
	r     *rand.Rand
	depth int
}

var (
	words = []string{"", "a", "x", "None", "ClientIP", "ClusterIP", "NodePort", "LoadBalancer", "ExternalName",
		"Container", "Pod", "PersistentVolumeClaim", "TCP", "UDP", "Always", "Never", "OnFailure", "Cluster", "Local",
		"RollingUpdate", "Recreate", "OnDelete", "Parallel", "OrderedReady", "Filesystem", "Block", "Retain",
		"Delete", "Fail", "Ignore", "Exact", "Equivalent", "Allow", "Forbid", "Replace", "Opaque", "v1", "nginx",
		"nginx:latest", "nginx:1.25", "registry.k8s.io/pause:3.10", "busybox@sha256:" + strings.Repeat("a", 64),
		"Nginx", "localhost:5000/app", "example.com/app:latest", "10.0.0.1", "fd00::1", "/", "/healthz", "HTTP", "HTTPS",
		"kubernetes.io/metadata.name", "IfNotPresent", "Equal", "Exists", "NoSchedule", "NoExecute", "Active",
		"Pending", "ReadWriteOnce", "Prefix", "ImplementationSpecific", "Burstable", "FallbackToLogsOnError",
		"Ready", "True", "False", "Unknown", "RequestedToCapacityRatio", "Skip", "Default", "Terminate", "Background"}
	quantities = []string{"0", "1", "100m", "1000m", "0.5", "1.5", "1Gi", "1024Mi", "1536Mi", "1.5Gi", "1e3", "1E3", "1k",
		"1000", "1M", "2Ki", "1023", "1025", "+1", "01", "-1", "0.1n", "1n", "1u", "100Mi", "512Ki", "5e-3", "123456789012345678901",
		"1.000", "10G", "8Ei", "9Ei", "1000000000000000000000", "0.0001", "3.14159", " 2 "}
	resourceNames = []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu", "storage", "pods"}
	times         = []string{"2026-01-02T03:04:05Z", "2026-01-02T03:04:05+02:00", "2026-01-02T03:04:05.123Z"}
	microTimes    = []string{"2026-01-02T03:04:05.000000Z", "2026-01-02T03:04:05.123456+01:00"}
	durations     = []string{"1m", "90s", "1h0m0s", "0s", "1.5h"}
)

func (g *gen) pick(l []string) string { return l[g.r.Intn(len(l))] }

func (g *gen) value(t reflect.Type, key string) any {
	if g.r.Intn(40) == 0 {
		return nil
	}
	if g.r.Intn(400) == 0 {
		// Bad input: a value of the wrong JSON type, an unparsable quantity, time or duration.
		return []any{int64(7), "x", true, 1.5, "yesterday", "1Qi", "-", []any{}, map[string]any{}}[g.r.Intn(9)]
	}
	switch t {
	case tQuantity:
		if g.r.Intn(20) == 0 {
			return int64(g.r.Intn(5000))
		}
		return g.pick(quantities)
	case tTime:
		return g.pick(times)
	case tMicroTime:
		return g.pick(microTimes)
	case tDuration:
		return g.pick(durations)
	case tIntOrStr:
		if g.r.Intn(2) == 0 {
			return int64(g.r.Intn(3) * 80)
		}
		return g.pick([]string{"", "http", "80", "8080", "25%"})
	case tRawExt:
		return map[string]any{"apiVersion": "v1", "kind": "Status", "x": int64(1)}
	case tFieldsV1:
		return map[string]any{"f:metadata": map[string]any{}}
	case tJSON:
		return []any{int64(1), 1.5, "x", nil, true, []any{int64(1), "a"}, map[string]any{"k": 2.0}}[g.r.Intn(7)]
	case tPropsOrArray:
		switch g.r.Intn(4) {
		case 0:
			return []any{g.value(tProps, key), g.value(tProps, key)}
		case 1:
			return []any{}
		case 2:
			return true
		}
		return g.value(tProps, key)
	case tPropsOrBool:
		if g.r.Intn(2) == 0 {
			return g.r.Intn(2) == 0
		}
		return g.value(tProps, key)
	case tPropsOrString:
		switch g.r.Intn(3) {
		case 0:
			return []any{"a", "b"}
		case 1:
			return []any{}
		}
		return g.value(tProps, key)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.value(t.Elem(), key)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			b := make([]byte, g.r.Intn(5))
			g.r.Read(b)
			if g.r.Intn(10) == 0 {
				// encoding/json reads []byte from a list of numbers too.
				l := make([]any, len(b))
				for i, x := range b {
					l[i] = int64(x)
				}
				if g.r.Intn(4) == 0 {
					l = append(l, []any{int64(256), nil, "x", -1.0}[g.r.Intn(4)])
				}
				return l
			}
			return base64.StdEncoding.EncodeToString(b)
		}
		if g.depth > 9 {
			return []any{}
		}
		n := g.r.Intn(3)
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(t.Elem(), key)
		}
		return out
	case reflect.Map:
		if g.depth > 9 {
			return map[string]any{}
		}
		n := g.r.Intn(3)
		out := map[string]any{}
		for i := 0; i < n; i++ {
			k := g.pick([]string{"a", "b", "app"})
			if t.Elem() == tQuantity {
				k = g.pick(resourceNames)
			}
			out[k] = g.value(t.Elem(), k)
		}
		return out
	case reflect.String:
		return g.pick(words)
	case reflect.Bool:
		return g.r.Intn(2) == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(g.r.Intn(5)) - 1 + int64(g.r.Intn(2))*int64(g.r.Intn(100))
	case reflect.Float32, reflect.Float64:
		return float64(g.r.Intn(100)) / 4
	case reflect.Interface:
		return "x"
	case reflect.Struct:
		if g.depth > 9 {
			return map[string]any{}
		}
		g.depth++
		defer func() { g.depth-- }()
		out := map[string]any{}
		g.fields(t, out)
		return out
	}
	return nil
}

func (g *gen) fields(t reflect.Type, out map[string]any) {
	// Union-like structs (VolumeSource, ProbeHandler) get few members.
	p := 3
	if t.NumField() > 12 {
		p = 8
	}
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
			g.fields(f.Type, out)
			continue
		}
		if g.r.Intn(p) != 0 {
			continue
		}
		out[name] = g.value(f.Type, name)
	}
}

func (g *gen) object(gvk schema.GroupVersionKind) map[string]any {
	typed, _ := schemeFor(gvk.Group).New(kschema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
	t := reflect.TypeOf(typed).Elem()
	out := map[string]any{}
	g.fields(t, out)
	// A spec and status more often than the 1/3 chance; metadata with a name.
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if (name == "spec" || name == "template") && g.r.Intn(4) != 0 {
			out[name] = g.value(f.Type, name)
		}
	}
	out["apiVersion"] = gvk.GroupVersion().String()
	out["kind"] = gvk.Kind
	md := map[string]any{"name": g.pick([]string{"n", "", "kube-system"})}
	if g.r.Intn(3) == 0 {
		md["labels"] = map[string]any{"app": "a"}
	}
	if g.r.Intn(5) == 0 {
		md["creationTimestamp"] = g.pick(times)
	}
	out["metadata"] = md
	return out
}

func js(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

func sampleSize() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		if n, err := strconv.Atoi(os.Getenv("WRITEPATH_LONG")); err == nil && n > 1 {
			return n
		}
		return 100000
	}
	return 2000
}

// pending lists the groups whose defaulting schema does not implement yet.
var pending = map[string]bool{}

// TestDifferential drives every served built-in kind with random objects through the
// reference (decode, scheme defaulting, encode) and defaults.Builtin.
func TestDifferential(t *testing.T) {
	var kinds []schema.GroupVersionKind
	for _, k := range servedKinds(t) {
		if !pending[k.Group] {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	t.Logf("%d kinds", len(kinds))
	n := sampleSize()
	seed := int64(9)
	if v, err := strconv.ParseInt(os.Getenv("WRITEPATH_SEED"), 10, 64); err == nil {
		seed = v
	}
	g := &gen{r: rand.New(rand.NewSource(seed))}
	cases, bothErr, fails := 0, 0, 0
	perKind := map[string]int{}
	for i := 0; i < n; i++ {
		gvk := kinds[i%len(kinds)]
		obj := g.object(gvk)
		before := js(obj)
		// DeviceTaint.timeAdded reads the clock: the reference runs again until it stayed
		// within one second.
		now := time.Now()
		want, werr := reference(gvk, obj)
		for time.Now().Truncate(time.Second) != now.Truncate(time.Second) {
			now = time.Now()
			want, werr = reference(gvk, obj)
		}
		got, gerr := defaults.Builtin(gvk, obj, defaults.Options{Now: now})
		cases++
		if js(obj) != before {
			t.Fatalf("%v: input modified", gvk)
		}
		if werr != nil || gerr != nil {
			if (werr == nil) != (gerr == nil) {
				fails++
				perKind[gvk.String()]++
				if fails <= 5 {
					t.Errorf("%v: reference error %v, writepath error %v\ninput: %s", gvk, werr, gerr, before)
				}
			} else {
				bothErr++
			}
			continue
		}
		if js(want) != js(got) {
			fails++
			perKind[gvk.String()]++
			if fails <= 5 {
				t.Errorf("%v: differs\ninput: %s\n%s", gvk, before, diff(js(want), js(got)))
			}
		}
	}
	t.Logf("%d cases, %d rejected by both, %d disagreements %v", cases, bothErr, fails, perKind)
}

func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("line %d\n ref: %s\n got: %s", i, x, y))
			if len(out) > 6 {
				break
			}
		}
	}
	return strings.Join(out, "\n") + "\nreference:\n" + a
}
