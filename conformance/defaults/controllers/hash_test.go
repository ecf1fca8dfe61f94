package controllers

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/utils/dump"
	"sigs.k8s.io/randfill"

	wpd "github.com/writepath/writepath/controllers/deployment"
)

// The pod-template-hash differential: kube-controller-manager's controller.ComputeHash over the
// typed template its informer holds, against writepath's ComputeHash over the template as the
// apiserver stores it. A case is a template as a client sends it; both sides see it through the
// path of a real cluster:
//
//	request JSON -> typed (the apiserver's decode) -> stored JSON (what writepath holds and
//	serves) -> protobuf (etcd) -> typed -> protobuf (the watch to the informer) -> typed
//
// so that the quantity strings are canonical, empty lists and maps come back nil and times lose
// their fraction exactly as the controller sees them. Random templates fill every field of
// core/v1.PodTemplateSpec (every volume source, probe handler, affinity term, ...) with randfill;
// the edge cases name the forms that decide the dump.

// quantityForms are resource quantities of every form ParseQuantity distinguishes: int64 fast
// path with and without the cached string, binary suffixes (canonical or not), fractions, exponents,
// negatives, values past int64 and past 2^63 binary, sub-nano rounding, many digits (inf.Dec).
var quantityForms = []string{
	"0", "1", "100m", "0.5", "1.5", "1e3", "1E3", "1e-3", "12e6", "1k", "1000", "1000m", "1M", "1G", "1T", "1P", "1E",
	"100E", "1Ki", "1Mi", "1Gi", "8Gi", "1.5Gi", "0.5Gi", "1024Mi", "1Ti", "1Pi", "1Ei", "8Ei", "16Ei", "1n", "1u",
	"0.1n", "1.000000001", "-1", "-100m", "-1.5Gi", "+1", ".5", "5.", "123456789012345678901234567890",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "0.000000000000000000001", "1e30",
	"1e-30", "12345678901234567890123m", "999999999999999999", "1000000000000000000", "0.0", "00100", "2.5e3",
	"3.000Mi", "7Ki", "1023", "1025Ki", "4096", "250m", "1.0", "10Gi", "64Mi", "128974848", "129e6", "129M", "123Mi",
}

func randomQuantity(r *rand.Rand) resource.Quantity {
	if r.IntN(3) == 0 {
		// A random value in a random form.
		sufs := []string{"", "m", "k", "M", "G", "Ki", "Mi", "Gi", "n", "u", "e3", "E-2", "e9"}
		var s string
		switch r.IntN(3) {
		case 0:
			s = fmt.Sprint(r.Int64N(1 << uint(r.IntN(62)+1)))
		case 1:
			s = fmt.Sprintf("%d.%d", r.IntN(10000), r.IntN(1000))
		default:
			s = fmt.Sprint(r.Uint64()) + fmt.Sprint(r.Uint64())
		}
		if r.IntN(5) == 0 {
			s = "-" + s
		}
		if q, err := resource.ParseQuantity(s + sufs[r.IntN(len(sufs))]); err == nil {
			return q
		}
	}
	return resource.MustParse(quantityForms[r.IntN(len(quantityForms))])
}

// localIsUTCFile reports whether this process's time.Local is what writepath models
// kube-controller-manager's to be (TZ unset, /etc/localtime the UTC zoneinfo, as on the reference
// control plane), initialising it first as the controller's logging does. Elsewhere the
// non-zero times of a template hash differently in the reference itself, and are left out.
var localIsUTCFile = sync.OnceValue(func() bool {
	_ = time.Local.String()
	const want = "(time.Time){wall:(uint64)0 ext:(int64)62135596800 loc:(*time.Location){name:(string)Local " +
		"zone:([]time.zone)[{name:(string)UTC offset:(int)0 isDST:(bool)false}] tx:([]time.zoneTrans)" +
		"[{when:(int64)-9223372036854775808 index:(uint8)0 isstd:(bool)false isutc:(bool)false}] " +
		"extend:(string)UTC0 cacheStart:(int64)-9223372036854775808 cacheEnd:(int64)9223372036854775807 " +
		"cacheZone:(*time.zone){name:(string)UTC offset:(int)0 isDST:(bool)false}}}"
	return dump.ForHash(time.Unix(0, 0).Local()) == want
})

func newHashFiller(seed uint64) *randfill.Filler {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b9))
	return randfill.NewWithSeed(int64(seed)).NilChance(0.35).NumElements(0, 3).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) { *q = randomQuantity(r) },
		func(t *metav1.Time, c randfill.Continue) {
			if r.IntN(4) == 0 || !localIsUTCFile() {
				*t = metav1.Time{}
				return
			}
			*t = metav1.NewTime(time.Unix(r.Int64N(5e9)-2e9, r.Int64N(1e9)))
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if r.IntN(2) == 0 {
				*v = intstr.FromInt32(int32(r.Uint32()))
				return
			}
			*v = intstr.FromString([]string{"", "http", "8080", "50%", c.String(0)}[r.IntN(5)])
		},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			f.Raw = []byte(`{"f:metadata":{"f:labels":{"f:` + fmt.Sprint(r.IntN(100)) + `":{}}}}`)
		},
		// The apiserver keeps managedFields' times and operations as given; a random
		// ManagedFieldsEntry is fine, but its APIVersion and FieldsType are free strings too.
	)
}

// throughCluster returns what the controller's informer holds for a template sent as in, and
// the stored JSON writepath holds for it.
func throughCluster(t *testing.T, in v1.PodTemplateSpec) (v1.PodTemplateSpec, map[string]any) {
	t.Helper()
	req, err := json.Marshal(in)
	require.NoError(t, err)
	var decoded v1.PodTemplateSpec
	require.NoError(t, json.Unmarshal(req, &decoded))
	stored := toMap(decoded)
	typed := decoded
	for range 2 { // etcd, then the watch
		pb, err := typed.Marshal()
		require.NoError(t, err)
		typed = v1.PodTemplateSpec{}
		require.NoError(t, typed.Unmarshal(pb))
	}
	return typed, stored
}

// checkHash compares both hashes of one case (and their dumps when they differ).
func checkHash(t *testing.T, name string, in v1.PodTemplateSpec, collision *int32) bool {
	t.Helper()
	informer, stored := throughCluster(t, in)
	// The controller hashes a copy of the Deployment's template (sync.go getNewReplicaSet).
	tmpl := informer.DeepCopy()
	want := controller.ComputeHash(tmpl, collision)
	var cc *int64
	if collision != nil {
		c := int64(*collision)
		cc = &c
	}
	got := wpd.ComputeHash(stored, cc)
	if got == want {
		return true
	}
	ours, err := wpd.TemplateDump(stored)
	require.NoError(t, err)
	theirs := dump.ForHash(*tmpl)
	i := 0
	for i < len(ours) && i < len(theirs) && ours[i] == theirs[i] {
		i++
	}
	from := max(0, i-200)
	t.Errorf("%s: hash %s, controller %s; dumps differ at byte %d:\nours:   ...%s\ntheirs: ...%s", name, got, want, i,
		ours[from:min(len(ours), i+200)], theirs[from:min(len(theirs), i+200)])
	return false
}

func TestComputeHashAgainstController(t *testing.T) {
	n := sampleSize(2000, 200000)
	fails := 0
	for i := range n {
		f := newHashFiller(uint64(i) + 1)
		var in v1.PodTemplateSpec
		f.Fill(&in)
		var cc *int32
		if i%3 == 0 {
			c := int32(i)
			cc = &c
		}
		if !checkHash(t, fmt.Sprintf("random case %d", i), in, cc) {
			if fails++; fails >= 5 {
				t.Fatalf("stopping after %d disagreements in %d cases", fails, i+1)
			}
		}
	}
	t.Logf("%d random templates, %d disagreements", n, fails)
}

func TestComputeHashEdgeCases(t *testing.T) {
	base := func() v1.PodTemplateSpec {
		return v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "nginx"}}}}
	}
	cases := map[string]func(*v1.PodTemplateSpec){
		"plain":                func(*v1.PodTemplateSpec) {},
		"empty":                func(p *v1.PodTemplateSpec) { *p = v1.PodTemplateSpec{} },
		"empty labels":         func(p *v1.PodTemplateSpec) { p.Labels = map[string]string{} },
		"nil containers":       func(p *v1.PodTemplateSpec) { p.Spec.Containers = nil },
		"empty containers":     func(p *v1.PodTemplateSpec) { p.Spec.Containers = []v1.Container{} },
		"empty command":        func(p *v1.PodTemplateSpec) { p.Spec.Containers[0].Command = []string{} },
		"empty string pointer": func(p *v1.PodTemplateSpec) { s := ""; p.Spec.RuntimeClassName = &s },
		"false bool pointer":   func(p *v1.PodTemplateSpec) { b := false; p.Spec.HostUsers = &b },
		"hash label":           func(p *v1.PodTemplateSpec) { p.Labels["pod-template-hash"] = "abc" },
		"sorted keys": func(p *v1.PodTemplateSpec) {
			p.Annotations = map[string]string{"b": "1", "a": "2", "A": "3", "aa": "", "": "x"}
		},
		"creation timestamp":   func(p *v1.PodTemplateSpec) { p.CreationTimestamp = metav1.Unix(1704164645, 0) },
		"old timestamp":        func(p *v1.PodTemplateSpec) { p.CreationTimestamp = metav1.Unix(-5e9, 0) },
		"timestamp with nanos": func(p *v1.PodTemplateSpec) { p.CreationTimestamp = metav1.NewTime(time.Unix(1704164645, 999999999)) },
		"deletion timestamp":   func(p *v1.PodTemplateSpec) { tm := metav1.Unix(1704164645, 0); p.DeletionTimestamp = &tm },
		"probe int port":       func(p *v1.PodTemplateSpec) { p.Spec.Containers[0].LivenessProbe = httpProbe(intstr.FromInt32(8080)) },
		"probe named port": func(p *v1.PodTemplateSpec) {
			p.Spec.Containers[0].ReadinessProbe = httpProbe(intstr.FromString("http"))
		},
		"probe empty port": func(p *v1.PodTemplateSpec) { p.Spec.Containers[0].StartupProbe = httpProbe(intstr.FromString("")) },
		"tcp probe zero port": func(p *v1.PodTemplateSpec) {
			p.Spec.Containers[0].LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{}}}
		},
		"lifecycle": func(p *v1.PodTemplateSpec) {
			p.Spec.Containers[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 5}}}
		},
		"empty dir": func(p *v1.PodTemplateSpec) {
			p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
		},
		"empty dir size": func(p *v1.PodTemplateSpec) {
			q := resource.MustParse("1Gi")
			p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: &q}}}}
		},
		"managed fields": func(p *v1.PodTemplateSpec) {
			p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)}}}
		},
		"node selector": func(p *v1.PodTemplateSpec) { p.Spec.NodeSelector = map[string]string{"k": "v"} },
	}
	for _, q := range quantityForms {
		cases["quantity "+q] = func(p *v1.PodTemplateSpec) {
			p.Spec.Containers[0].Resources = v1.ResourceRequirements{
				Limits:   v1.ResourceList{"cpu": resource.MustParse(q), "memory": resource.MustParse(q)},
				Requests: v1.ResourceList{"cpu": resource.MustParse(q)}}
			p.Spec.Overhead = v1.ResourceList{"cpu": resource.MustParse(q)}
		}
	}
	// Every volume source, each set to a value randfill fills.
	vs := v1.VolumeSource{}
	newHashFiller(7).NilChance(0).Fill(&vs)
	for _, name := range volumeSourceFields() {
		cases["volume "+name] = func(p *v1.PodTemplateSpec) {
			one := oneVolumeSource(vs, name)
			p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: one}}
		}
	}
	if !localIsUTCFile() {
		t.Logf("time.Local is not the UTC zoneinfo: the timestamp cases are left out")
		for name := range cases {
			if strings.Contains(name, "timestamp") {
				delete(cases, name)
			}
		}
	}
	for name, mutate := range cases {
		for _, cc := range []*int32{nil, ptr[int32](0), ptr[int32](3), ptr[int32](-1)} {
			in := base()
			mutate(&in)
			label := name
			if cc != nil {
				label += fmt.Sprintf(" collisionCount %d", *cc)
			}
			checkHash(t, label, in, cc)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func httpProbe(port intstr.IntOrString) *v1.Probe {
	return &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Port: port}}, PeriodSeconds: 10}
}

// volumeSourceFields are VolumeSource's field names, from its JSON form.
func volumeSourceFields() []string {
	var vs v1.VolumeSource
	newHashFiller(1).NilChance(0).Fill(&vs)
	var m map[string]any
	b, _ := json.Marshal(vs)
	_ = json.Unmarshal(b, &m)
	var names []string
	for k := range m {
		names = append(names, k)
	}
	return names
}

// oneVolumeSource is vs with only the named source set.
func oneVolumeSource(vs v1.VolumeSource, name string) v1.VolumeSource {
	var m map[string]any
	b, _ := json.Marshal(vs)
	_ = json.Unmarshal(b, &m)
	one, _ := json.Marshal(map[string]any{name: m[name]})
	var out v1.VolumeSource
	if err := json.Unmarshal(one, &out); err != nil {
		panic(err)
	}
	return out
}
