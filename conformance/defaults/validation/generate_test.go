package validation

import (
	"math/rand"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The generator: mutate picks one position of a v1 object uniformly among every position its Go
// type has below the fields already set (each struct field, set or not; each list and map, to
// grow or empty; each element) and gives it a random value drawn toward the edges of validity
// (empty, malformed, out of range, an enumeration's neighbours, a valid value elsewhere). A
// value made for an unset struct or list is filled at random, a few levels deep, the same way.

// maxFill bounds how deep a freshly made value is filled.
const maxFill = 4

// skipFields are positions the apiserver sets itself or that would make every case the same
// error: type and object metadata plumbing, managed fields, status (validated by the status
// strategies, whose seeds set it).
var skipFields = map[string]bool{"TypeMeta": true, "ManagedFields": true, "SelfLink": true, "UID": true,
	"ResourceVersion": true, "CreationTimestamp": true, "DeletionTimestamp": true, "Generation": true}

var words = []string{
	"", "a", "abc", "x1", "-bad", "Bad_Name", "UPPER", "a/b", "a.b", "a b", "1", "0", "-1", "/abs/path", "rel/path", "../up",
	"key=value", "100m", "1Gi", "example.com/x", "kubernetes.io/x", "*", "$(VAR)", "ab..c", "tab\there", strings.Repeat("x", 64),
	strings.Repeat("y", 254), "127.0.0.1", "::1", "10.0.0.0/8", "http", "HTTP", "HTTPS", "nginx", "nginx ", " nginx",
	"Always", "Never", "IfNotPresent", "OnFailure", "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None", "File",
	"FallbackToLogsOnError", "TCP", "UDP", "SCTP", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal",
	"NoSchedule", "NoExecute", "PreferNoSchedule", "RuntimeDefault", "Localhost", "Unconfined", "linux", "windows",
	"DoNotSchedule", "ScheduleAnyway", "Honor", "Ignore", "RestartContainer", "NotRequired", "Recursive", "MountOption",
	"Bidirectional", "HostToContainer", "Enabled", "Disabled", "IfPossible", "Directory", "DirectoryOrCreate",
	"FileOrCreate", "Socket", "CharDevice", "BlockDevice", "Memory", "HugePages", "HugePages-2Mi", "PreemptLowerPriority",
	"Container", "Restart", "cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", "metadata.name",
	"metadata.labels['a']", "spec.nodeName", "status.podIP", "limits.cpu", "requests.memory", "SIGTERM", "SIGKILL",
	"ReadWriteOnce", "Filesystem", "Block", "v1", "apps/v1", "default", "kube-system", "ns1", "c", "c2", "vol", "v",
}

var quantities = []string{"0", "1", "2", "100m", "250m", "-1", "1Gi", "2Mi", "64Mi", "1.5", "1k", "0.1m", "1e3", "10000Ei", "3Ki"}

var ints = []int64{-1, 0, 1, 2, 3, 5, 10, 30, 80, 443, 1024, 65535, 65536, 2147483647, -2147483648, 1 << 40}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	timeType     = reflect.TypeOf(metav1.Time{})
	intstrType   = reflect.TypeOf(intstr.IntOrString{})
	rawExtType   = reflect.TypeOf(runtime.RawExtension{})
)

// position is one place mutate can change: set replaces the value there.
type position struct{ v reflect.Value }

// mutate changes obj (a pointer to a v1 struct) at one position.
func mutate(r *rand.Rand, obj runtime.Object) {
	var pos []position
	collect(reflect.ValueOf(obj).Elem(), &pos, 0)
	if len(pos) == 0 {
		return
	}
	p := pos[r.Intn(len(pos))]
	set(r, p.v)
}

// collect gathers the positions under v (addressable), descending into what is set.
func collect(v reflect.Value, pos *[]position, depth int) {
	if depth > 20 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if special(v.Type()) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || skipFields[f.Name] {
				continue
			}
			fv := v.Field(i)
			if f.Anonymous && fv.Kind() == reflect.Struct {
				collect(fv, pos, depth+1)
				continue
			}
			*pos = append(*pos, position{fv})
			collect(fv, pos, depth+1)
		}
	case reflect.Ptr:
		if !v.IsNil() {
			collect(v.Elem(), pos, depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// A []byte (a PEM or DER blob, a CA bundle) is one position, set whole: a position
			// per byte would make most mutations of a kind with a certificate request land in it.
			return
		}
		for i := 0; i < v.Len(); i++ {
			*pos = append(*pos, position{v.Index(i)})
			collect(v.Index(i), pos, depth+1)
		}
	case reflect.Map:
		// Map values are not addressable: the map itself is the position (set adds, replaces or
		// removes an entry).
	}
}

func special(t reflect.Type) bool {
	return t == quantityType || t == timeType || t == intstrType || t == rawExtType
}

// set gives v a random value toward the edges of validity.
func set(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Slice:
		switch r.Intn(4) {
		case 0:
			v.Set(reflect.Zero(v.Type()))
			return
		case 1:
			if v.Len() > 0 {
				// Duplicate an element: names and keys that must be unique.
				v.Set(reflect.Append(v, v.Index(r.Intn(v.Len()))))
				return
			}
		}
		v.Set(reflect.Append(v, fill(r, v.Type().Elem(), 0)))
		return
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		keys := v.MapKeys()
		if len(keys) > 0 && r.Intn(3) == 0 {
			v.SetMapIndex(keys[r.Intn(len(keys))], reflect.Value{})
			if v.Len() == 0 {
				// The v1 JSON handed to writepath cannot carry an empty map (omitempty): the
				// reference sees the nil map writepath sees.
				v.Set(reflect.Zero(v.Type()))
			}
			return
		}
		v.SetMapIndex(fill(r, v.Type().Key(), 0), fill(r, v.Type().Elem(), 0))
		return
	case reflect.Ptr:
		if !v.IsNil() && r.Intn(3) == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
	}
	v.Set(fill(r, v.Type(), 0))
}

// fill makes a random value of type t.
func fill(r *rand.Rand, t reflect.Type, depth int) reflect.Value {
	out := reflect.New(t).Elem()
	switch t {
	case quantityType:
		q, err := resource.ParseQuantity(pick(r, quantities))
		if err == nil {
			out.Set(reflect.ValueOf(q))
		}
		return out
	case timeType:
		out.Set(reflect.ValueOf(metav1.Unix(int64(r.Intn(2_000_000_000)), 0)))
		return out
	case intstrType:
		if r.Intn(2) == 0 {
			out.Set(reflect.ValueOf(intstr.FromInt32(int32(pick(r, ints)))))
		} else {
			out.Set(reflect.ValueOf(intstr.FromString(pick(r, words))))
		}
		return out
	case rawExtType:
		return out
	}
	switch t.Kind() {
	case reflect.String:
		out.SetString(pick(r, words))
	case reflect.Bool:
		out.SetBool(r.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := pick(r, ints)
		if out.OverflowInt(n) {
			n = int64(r.Intn(100)) - 1
		}
		out.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out.SetUint(uint64(r.Intn(300)))
	case reflect.Float32, reflect.Float64:
		out.SetFloat(float64(r.Intn(200)) - 50)
	case reflect.Ptr:
		if depth <= maxFill {
			out.Set(reflect.New(t.Elem()))
			out.Elem().Set(fill(r, t.Elem(), depth+1))
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			out.SetBytes([]byte(pick(r, words)))
			break
		}
		if depth <= maxFill {
			n := 1 + r.Intn(2)
			s := reflect.MakeSlice(t, 0, n)
			for i := 0; i < n; i++ {
				s = reflect.Append(s, fill(r, t.Elem(), depth+1))
			}
			out.Set(s)
		}
	case reflect.Map:
		if depth <= maxFill {
			m := reflect.MakeMap(t)
			m.SetMapIndex(fill(r, t.Key(), depth+1), fill(r, t.Elem(), depth+1))
			out.Set(m)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || skipFields[f.Name] {
				continue
			}
			if f.Anonymous || r.Intn(3) == 0 {
				out.Field(i).Set(fill(r, f.Type, depth+1))
			}
		}
	}
	return out
}

func pick[T any](r *rand.Rand, l []T) T { return l[r.Intn(len(l))] }
