// Package limitranger compares writepath's LimitRanger admission plugin (registry, through
// registry.Handle) with kube-apiserver 1.37's (k8s.io/kubernetes plugin/pkg/admission/limitranger,
// its Admit and Validate called as the admission chain calls them, feature gates at their 1.37
// defaults) on a seeded random sample of LimitRanges × Pods and PersistentVolumeClaims.
//
// The reference's request path is rebuilt around the plugin as kube-apiserver runs a create: the
// body decoded into the v1 type and defaulted, converted to the internal type, LimitRanger's
// Admit, rest.BeforeCreate (the strategy's PrepareForCreate and Validate: a 422), LimitRanger's
// Validate (a 403). The LimitRanges are ones the apiserver stores (defaulted, valid), given to
// both sides as the same JSON. Compared: the status code, the message (a 403's violations as a
// set: the plugin lists those of one bound in Go map order) and, on success, every container's
// and init container's resources and the kubernetes.io/limit-ranger annotation.
package limitranger

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"

	"github.com/writepath/writepath/registry"
)

const ns = "demo"

// sampleSize is 2,000 cases, 100,000 with WRITEPATH_LONG=1, WRITEPATH_CASES=n otherwise.
func sampleSize() int {
	if n, err := strconv.Atoi(os.Getenv("WRITEPATH_CASES")); err == nil && n > 0 {
		return n
	}
	if os.Getenv("WRITEPATH_LONG") == "1" {
		return 100000
	}
	return 2000
}

// Quantities by kind of resource, in several spellings, the large ones beyond 2^63/1000 where
// the plugin compares whole units. Pods with pod-level resources, and the LimitRanges beside
// them, take no large ones: the Pod strategy's PrepareForCreate sums the containers' into
// pod-level defaults, which kube-apiserver holds exactly in memory while writepath writes them
// out and reads them back capped at 2^63-1 as a binary-SI string (a difference of
// schema/validation's DefaultPodLevelResources, not of the plugin; a 40,000-case run without
// this restriction showed 2 such rows).
var (
	cpuPool     = []string{"0", "1m", "10m", "50m", "100m", "0.1", "250m", "0.5", "500m", "1", "1.5", "2", "2500m", "4", "1k", "1e3"}
	memPool     = []string{"0", "1", "1Ki", "1Mi", "16Mi", "64Mi", "100M", "128Mi", "0.5Gi", "1Gi", "1G", "1e9", "2Gi", "1.5Gi", "4Gi"}
	bigPool     = []string{"9223372036854775807", "8Ei", "1E", "9.3e18", "1P", "9223372036854775k"}
	ratioPool   = []string{"1", "1500m", "1.5", "2", "4", "10", "1e3"}
	intPool     = []string{"0", "1", "2", "3"}
	resourceSet = []string{"cpu", "memory", "ephemeral-storage", "example.com/dongle"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.Intn(len(xs))] }

func quantityFor(r *rand.Rand, name string, big bool) string {
	if big && r.Intn(25) == 0 {
		return pick(r, bigPool)
	}
	switch name {
	case "cpu":
		return pick(r, cpuPool)
	case "example.com/dongle":
		return pick(r, intPool)
	}
	return pick(r, memPool)
}

// sortedQuantities are n quantities for name in increasing order.
func sortedQuantities(r *rand.Rand, name string, n int, big bool) []string {
	qs := make([]string, n)
	for i := range qs {
		qs[i] = quantityFor(r, name, big)
	}
	sort.Slice(qs, func(i, j int) bool {
		a, b := resource.MustParse(qs[i]), resource.MustParse(qs[j])
		return a.Cmp(b) < 0
	})
	return qs
}

// genItem is one LimitRangeItem: mostly ordered bounds (min <= defaultRequest <= default <=
// max, which validation asks), sometimes not.
func genItem(r *rand.Rand, big bool) corev1.LimitRangeItem {
	types := []corev1.LimitType{corev1.LimitTypeContainer, corev1.LimitTypeContainer, corev1.LimitTypePod, corev1.LimitTypePersistentVolumeClaim}
	it := corev1.LimitRangeItem{Type: types[r.Intn(len(types))]}
	names := resourceSet
	if it.Type == corev1.LimitTypePersistentVolumeClaim {
		names = []string{"storage", "storage", "cpu"}
	}
	set := func(l *corev1.ResourceList, name, q string) {
		if *l == nil {
			*l = corev1.ResourceList{}
		}
		(*l)[corev1.ResourceName(name)] = resource.MustParse(q)
	}
	for n := 1 + r.Intn(2); n > 0; n-- {
		name := names[r.Intn(len(names))]
		qs := sortedQuantities(r, name, 4, big)
		if r.Intn(8) == 0 {
			r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
		}
		if r.Intn(2) == 0 {
			set(&it.Min, name, qs[0])
		}
		if r.Intn(2) == 0 {
			set(&it.Max, name, qs[3])
		}
		if it.Type == corev1.LimitTypeContainer || r.Intn(10) == 0 {
			if r.Intn(2) == 0 {
				set(&it.DefaultRequest, name, qs[1])
			}
			if r.Intn(2) == 0 {
				set(&it.Default, name, qs[2])
			}
		}
		if it.Type != corev1.LimitTypePersistentVolumeClaim && r.Intn(3) == 0 {
			set(&it.MaxLimitRequestRatio, name, pick(r, ratioPool))
		}
	}
	return it
}

// storedLimitRange is a LimitRange as kube-apiserver stores it (defaulted, valid), or nil when
// it refuses the create.
func storedLimitRange(t *testing.T, r *rand.Rand, name string, big bool) *corev1.LimitRange {
	lr := &corev1.LimitRange{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + kschemaSafe(name)), ResourceVersion: "1"}}
	for n := 1 + r.Intn(2); n > 0; n-- {
		lr.Spec.Limits = append(lr.Spec.Limits, genItem(r, big))
	}
	legacyscheme.Scheme.Default(lr)
	var in api.LimitRange
	require.NoError(t, legacyscheme.Scheme.Convert(lr, &in, nil))
	rest.FillObjectMetaSystemFields(&in)
	if err := rest.BeforeCreate(limitrange.Strategy, ctxFor("limitranges"), &in); err != nil {
		return nil
	}
	out := &corev1.LimitRange{}
	require.NoError(t, legacyscheme.Scheme.Convert(&in, out, nil))
	out.TypeMeta = lr.TypeMeta
	out.ObjectMeta = lr.ObjectMeta
	return out
}

func kschemaSafe(s string) string { return strings.ReplaceAll(s, "/", "-") }

// ctxFor is the context the apiserver gives a create's strategy: the namespace, the user and
// the request info (declarative validation reads the version from it).
func ctxFor(resource string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters", "system:authenticated"}})
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "create",
		APIVersion: "v1", Namespace: ns, Resource: resource})
}

func requirements(r *rand.Rand, pool []string, big bool) corev1.ResourceRequirements {
	var rr corev1.ResourceRequirements
	for _, name := range pool {
		if r.Intn(3) != 0 {
			continue
		}
		qs := sortedQuantities(r, name, 2, big)
		if name == "example.com/dongle" {
			qs[1] = qs[0]
		}
		switch r.Intn(4) {
		case 0:
			rr.Requests = addQ(rr.Requests, name, qs[0])
		case 1:
			rr.Limits = addQ(rr.Limits, name, qs[1])
		default:
			rr.Requests = addQ(rr.Requests, name, qs[0])
			rr.Limits = addQ(rr.Limits, name, qs[1])
		}
	}
	return rr
}

func addQ(l corev1.ResourceList, name, q string) corev1.ResourceList {
	if l == nil {
		l = corev1.ResourceList{}
	}
	l[corev1.ResourceName(name)] = resource.MustParse(q)
	return l
}

func genPod(r *rand.Rand) *corev1.Pod {
	f := false
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{AutomountServiceAccountToken: &f}}
	podLevel := r.Intn(5) == 0
	for i := 1 + r.Intn(3); i > 0; i-- {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: fmt.Sprintf("c%d", len(p.Spec.Containers)), Image: "x", Resources: requirements(r, resourceSet, !podLevel)})
	}
	for i := r.Intn(3); i > 0; i-- {
		c := corev1.Container{Name: fmt.Sprintf("i%d", len(p.Spec.InitContainers)), Image: "x", Resources: requirements(r, resourceSet, !podLevel)}
		if r.Intn(2) == 0 {
			always := corev1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
	if podLevel {
		rr := requirements(r, []string{"cpu", "memory", "cpu", "memory"}, false)
		p.Spec.Resources = &rr
	}
	return p
}

func genClaim(r *rand.Rand) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}
	if r.Intn(8) != 0 {
		c.Spec.Resources.Requests = corev1.ResourceList{"storage": resource.MustParse(quantityFor(r, "storage", true))}
	}
	if r.Intn(4) == 0 {
		c.Spec.Resources.Limits = corev1.ResourceList{"storage": resource.MustParse(quantityFor(r, "storage", true))}
	}
	return c
}

// answer is one side's outcome: the status code and message, and on success the object.
type answer struct {
	code    int
	message string
	obj     map[string]any
}

// reference runs the create through the reference plugin.
func reference(t *testing.T, ranges []*corev1.LimitRange, obj runtime.Object, resource, kind string) answer {
	legacyscheme.Scheme.Default(obj)
	var internal runtime.Object
	var strategy rest.RESTCreateStrategy
	switch o := obj.(type) {
	case *corev1.Pod:
		internal, strategy = &api.Pod{}, pod.Strategy
		require.NoError(t, legacyscheme.Scheme.Convert(o, internal, nil))
	case *corev1.PersistentVolumeClaim:
		internal, strategy = &api.PersistentVolumeClaim{}, persistentvolumeclaim.Strategy
		require.NoError(t, legacyscheme.Scheme.Convert(o, internal, nil))
	}
	meta, err := apimeta.Accessor(internal)
	require.NoError(t, err)
	meta.SetNamespace(ns)
	rest.FillObjectMetaSystemFields(meta)
	attrs := admission.NewAttributesRecord(internal, nil, api.Kind(kind).WithVersion(""), ns, nameOf(internal),
		api.Resource(resource).WithVersion(""), "", admission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "admin"})
	if len(ranges) > 1 {
		// The plugin's loop (runLimitFunc) over its lister's list, which is in no defined
		// order, done here in name order, as writepath visits them.
		actions := &limitranger.DefaultLimitRangerActions{}
		loop := func(fn func(*corev1.LimitRange, string, runtime.Object) error) error {
			if !actions.SupportsAttributes(attrs) {
				return nil
			}
			for _, lr := range ranges {
				if err := fn(lr, resource, internal); err != nil {
					return admission.NewForbidden(attrs, err)
				}
			}
			return nil
		}
		if err := loop(actions.MutateLimit); err != nil {
			return asAnswer(err)
		}
		if err := rest.BeforeCreate(strategy, ctxFor(resource), internal); err != nil {
			return asAnswer(err)
		}
		if err := loop(actions.ValidateLimit); err != nil {
			return asAnswer(err)
		}
	} else {
		plugin := newPlugin(t, ranges)
		if err := plugin.Admit(context.Background(), attrs, nil); err != nil {
			return asAnswer(err)
		}
		if err := rest.BeforeCreate(strategy, ctxFor(resource), internal); err != nil {
			return asAnswer(err)
		}
		if err := plugin.Validate(context.Background(), attrs, nil); err != nil {
			return asAnswer(err)
		}
	}
	var v1obj runtime.Object
	switch internal.(type) {
	case *api.Pod:
		v1obj = &corev1.Pod{}
	default:
		v1obj = &corev1.PersistentVolumeClaim{}
	}
	require.NoError(t, legacyscheme.Scheme.Convert(internal, v1obj, nil))
	b, err := json.Marshal(v1obj)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return answer{code: 201, obj: m}
}

func nameOf(o runtime.Object) string {
	switch t := o.(type) {
	case *api.Pod:
		return t.Name
	case *api.PersistentVolumeClaim:
		return t.Name
	}
	return ""
}

func asAnswer(err error) answer {
	var st apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		st = s
		return answer{code: int(st.Status().Code), message: st.Status().Message}
	}
	return answer{code: 500, message: err.Error()}
}

// newPlugin is the reference plugin over an informer holding ranges.
func newPlugin(t *testing.T, ranges []*corev1.LimitRange) *limitranger.LimitRanger {
	client := fake.NewSimpleClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	for _, lr := range ranges {
		require.NoError(t, f.Core().V1().LimitRanges().Informer().GetIndexer().Add(lr))
	}
	p, err := limitranger.NewLimitRanger(&limitranger.DefaultLimitRangerActions{})
	require.NoError(t, err)
	p.SetExternalKubeInformerFactory(f)
	p.SetExternalKubeClientSet(client)
	require.NoError(t, p.ValidateInitialization())
	// The lister must list every range: the live lookup the plugin does on an empty cache goes
	// to the fake client, which holds none (both answer "none" then).
	got, err := f.Core().V1().LimitRanges().Lister().LimitRanges(ns).List(labels.Everything())
	require.NoError(t, err)
	require.Len(t, got, len(ranges))
	return p
}

// writepath runs the create through registry.Handle over a world holding ranges.
func writepath(t *testing.T, ranges []*corev1.LimitRange, obj runtime.Object, resource string) answer {
	var objs []map[string]any
	for _, lr := range ranges {
		objs = append(objs, toMap(t, lr))
	}
	w, err := registry.NewStatic(objs, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	body, err := json.Marshal(obj)
	require.NoError(t, err)
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST",
		Path: "/api/v1/namespaces/" + ns + "/" + resource, ContentType: "application/json", Body: body})
	require.NoError(t, err)
	a := answer{code: resp.Code}
	if resp.Code >= 300 {
		a.message, _ = resp.Object["message"].(string)
	} else {
		a.obj = resp.Object
	}
	return a
}

func toMap(t *testing.T, o any) map[string]any {
	b, err := json.Marshal(o)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// violation starts one of the plugin's messages; fieldError one of a 422's causes.
var (
	violation  = regexp.MustCompile(`, (minimum |maximum |[a-z0-9./-]+ max limit to request ratio )`)
	fieldError = regexp.MustCompile(`, ((spec|metadata)\.[^ ]*: )`)
)

// messageSet is a 403's or 422's message as its prefix and its parts, sorted: the plugin lists
// the violations of one bound in Go map order, and Pod validation some of its errors (the
// pod-level resources') too.
func messageSet(msg string) string {
	sep, split := " is forbidden: ", violation
	i := strings.Index(msg, sep)
	if i < 0 {
		sep, split = " is invalid: ", fieldError
		if i = strings.Index(msg, sep); i < 0 {
			return msg
		}
	}
	prefix, rest := msg[:i], msg[i+len(sep):]
	bracket := strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]")
	if bracket {
		rest = rest[1 : len(rest)-1]
	}
	var parts []string
	for {
		loc := split.FindStringIndex(rest)
		if loc == nil {
			parts = append(parts, rest)
			break
		}
		parts = append(parts, rest[:loc[0]])
		rest = rest[loc[0]+2:]
	}
	sort.Strings(parts)
	return fmt.Sprintf("%s%s%v %q", prefix, sep, bracket, parts)
}

// compared is what the comparison looks at of a created object: each container's and init
// container's resources (empty lists dropped) and the plugin's annotation; a claim's spec.
func compared(obj map[string]any, claim bool) any {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	out := map[string]any{"annotation": ann["kubernetes.io/limit-ranger"]}
	for _, key := range []string{"containers", "initContainers"} {
		cs, _ := spec[key].([]any)
		var rs []any
		for _, c := range cs {
			res, _ := c.(map[string]any)["resources"].(map[string]any)
			clean := map[string]any{}
			for k, v := range res {
				if m, ok := v.(map[string]any); ok && len(m) == 0 {
					continue
				}
				clean[k] = v
			}
			rs = append(rs, clean)
		}
		out[key] = rs
	}
	if claim {
		out["resources"] = spec["resources"]
	}
	return out
}

func TestLimitRangerDifferential(t *testing.T) {
	n := sampleSize()
	r := rand.New(rand.NewSource(17))
	counts := map[string]int{}
	disagreements := 0
	for i := 0; i < n; i++ {
		var obj, refObj runtime.Object // refObj: obj decoded from its JSON, as the apiserver reads it
		res, kind := "pods", "Pod"
		claim := r.Intn(5) == 0
		big := true
		if claim {
			c := genClaim(r)
			obj, refObj = c, &corev1.PersistentVolumeClaim{}
			res, kind = "persistentvolumeclaims", "PersistentVolumeClaim"
		} else {
			p := genPod(r)
			obj, refObj = p, &corev1.Pod{}
			big = p.Spec.Resources == nil
		}
		var ranges []*corev1.LimitRange
		for j, m := 0, 1+r.Intn(2); j < m; j++ {
			for try := 0; try < 20; try++ {
				if lr := storedLimitRange(t, r, fmt.Sprintf("lr%d", j), big); lr != nil {
					ranges = append(ranges, lr)
					break
				}
			}
		}
		require.NoError(t, json.Unmarshal([]byte(mustJSON(obj)), refObj))
		// The plugin's informer holds the LimitRanges as decoded from storage.
		var refRanges []*corev1.LimitRange
		for _, lr := range ranges {
			var d corev1.LimitRange
			require.NoError(t, json.Unmarshal([]byte(mustJSON(lr)), &d))
			refRanges = append(refRanges, &d)
		}
		want := reference(t, refRanges, refObj, res, kind)
		got := writepath(t, ranges, obj, res)
		counts[fmt.Sprintf("%s %d", kind, want.code)]++
		same := got.code == want.code
		switch {
		case !same:
		case want.code >= 300:
			same = messageSet(got.message) == messageSet(want.message)
		default:
			same = reflect.DeepEqual(normalise(compared(got.obj, claim)), normalise(compared(want.obj, claim)))
		}
		if !same {
			disagreements++
			if disagreements <= 10 {
				t.Errorf("case %d: %s\nranges: %s\nreference: %d %s %v\nwritepath: %d %s %v", i, mustJSON(obj), mustJSON(ranges),
					want.code, want.message, compared(want.obj, claim), got.code, got.message, compared(got.obj, claim))
			}
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	t.Logf("%d cases (%s), %d disagreements", n, strings.Join(parts, ", "), disagreements)
}

func normalise(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
