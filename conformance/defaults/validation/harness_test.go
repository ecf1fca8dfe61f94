// Package validation compares writepath's schema/validation with the REST strategies of
// k8s.io/kubernetes v1.37.2 (feature gates at their defaults) on random objects of each kind:
// a valid object mutated one field at a time toward invalid values, at every path the kind's Go
// type has (generate_test.go). Each case runs through the apiserver's steps on the reference
// side — the v1 object defaulted by legacyscheme, converted to the internal type, the
// strategy's PrepareForCreate or PrepareForUpdate, then its Validate or ValidateUpdate and the
// declarative validation (rest.ValidateCreate/ValidateUpdate without the generic ObjectMeta
// block, which the registry runs itself) and WarningsOnCreate or WarningsOnUpdate — and the
// prepared object, back at v1, is what writepath validates. Error lists must be equal: type,
// field, bad value (as printed), detail and order; warnings too.
//
// A kind joins by adding a harnessKind to kinds (kinds_test.go) with its seeds.
package validation

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/operation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	kfield "k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// harnessKind is one kind under test.
type harnessKind struct {
	gvk      kschema.GroupVersionKind
	resource string // plural, for the request info declarative validation reads
	// seed returns a valid v1 object (before defaults) of the kind.
	seed func(r *rand.Rand) runtime.Object
	// create is the kind's strategy; updates maps a subresource ("" for the main resource) to its
	// update strategy.
	create  rest.RESTCreateStrategy
	updates map[string]rest.RESTUpdateStrategy
	// complete says every rule of the kind is modelled: any disagreement fails the test. A kind
	// still being modelled reports its counts only.
	complete bool
	// podSpec is where a workload's pod spec sits ("spec.template.spec."): a case whose lists
	// differ only in errors under it is counted apart (podSpecOnly), as the pod spec's own
	// agreement is the Pod rows'; the workload's rules must agree.
	podSpec string
	// prepare says writepath models the strategy's PrepareForCreate/PrepareForUpdate effects
	// (validation.PrepareForCreate/PrepareForUpdate): the object it prepares from the defaulted
	// request must be the reference's prepared one (generation and status aside, which the
	// registry sets for every kind); a difference counts as a disagreement.
	prepare bool
	// unordered, when set, marks the error lines the reference writes in Go map order (a range
	// over a set): each run of consecutive such lines is compared as a set.
	unordered func(line string) bool
	// stored, when set, changes the internal stored object of an update after its create: what
	// a controller writes later (a claim's status once bound, ...).
	stored func(r *rand.Rand, obj runtime.Object)
	// normalize, when set, rewrites each error line of both sides before they are compared:
	// the parts of a message that are not deterministic on the reference side (an address).
	normalize func(line string) string
	// name, when set, names the kind's subtest and rows instead of its Kind (two groups with a
	// kind of the same name: Event and Event.events.k8s.io).
	name string
	// now, when set, is the request's time writepath's updates are validated at: the time of the
	// fake clock the kind's reference strategy reads (a PodCertificateRequest's /status).
	now time.Time
	// namespace, when set, is the namespace of a namespaced kind's objects ("validation-pod"
	// otherwise); options, when set, adds to writepath's validation options (the namespace the
	// reference strategy reads, for writepath's Options.Namespace).
	namespace string
	options   func(o *validation.Options, obj map[string]any)
	// next, when set, changes the v1 update object before its mutation (a status the update
	// writes anew).
	next func(r *rand.Rand, obj runtime.Object)
	// updatesOnly skips the create operation (a row for a subresource of a kind whose create
	// another row covers).
	updatesOnly bool
}

// optionsFor are writepath's validation options for a write of sub of obj, a k object.
func (k harnessKind) optionsFor(sub string, obj map[string]any) validation.Options {
	opts := wpOptions(sub)
	if k.options != nil {
		k.options(&opts, obj)
	}
	return opts
}

// label is the kind's name in subtests, rows and messages.
func (k harnessKind) label() string {
	if k.name != "" {
		return k.name
	}
	return k.gvk.Kind
}

// caseCount is the number of cases per kind and operation: a fixed small sample by default,
// >=100,000 with WRITEPATH_LONG=1, WRITEPATH_CASES=n otherwise. WRITEPATH_SHOW="Kind op"
// (e.g. "Pod create") prints the first disagreements of a kind that is not complete.
func caseCount() int {
	if os.Getenv("WRITEPATH_LONG") == "1" {
		return 100_000
	}
	if n, err := strconv.Atoi(os.Getenv("WRITEPATH_CASES")); err == nil && n > 0 {
		return n
	}
	return 150
}

// harnessUser is the user ctxFor puts in the request.
var harnessUser = validation.User{Name: "writepath", Groups: []string{"system:authenticated"}}

// ctxFor is the context the apiserver hands a strategy: the request's namespace, user and
// request info (declarative validation reads the version and subresource from it).
func ctxFor(k harnessKind, namespace, verb, sub string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: harnessUser.Name, Groups: harnessUser.Groups})
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIGroup: k.gvk.Group, APIVersion: k.gvk.Version,
		Namespace: namespace, Resource: k.resource, Subresource: sub, Name: "x",
	})
	return ctx
}

func toInternal(t testing.TB, obj runtime.Object) runtime.Object {
	legacyscheme.Scheme.Default(obj)
	gvk := obj.GetObjectKind().GroupVersionKind()
	in, err := legacyscheme.Scheme.ConvertToVersion(obj, kschema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	require.NoError(t, err)
	return in
}

func toV1Map(t testing.TB, k harnessKind, in runtime.Object) map[string]any {
	out, err := legacyscheme.Scheme.ConvertToVersion(in, k.gvk.GroupVersion())
	require.NoError(t, err)
	data, err := json.Marshal(out)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(data, &m))
	m["apiVersion"], m["kind"] = k.gvk.GroupVersion().String(), k.gvk.Kind
	return m
}

// refCreate is rest.ValidateCreate without the generic ObjectMeta block: the strategy's
// Validate then the declarative validation.
func refCreate(ctx context.Context, s rest.RESTCreateStrategy, obj runtime.Object) (errs kfield.ErrorList, panicked any) {
	defer func() { panicked = recover() }()
	errs = s.Validate(ctx, obj)
	if dv, ok := s.(rest.DeclarativeValidationStrategy); ok {
		errs = dv.ValidateDeclaratively(ctx, obj, nil, errs, operation.Create, dv.DeclarativeValidationConfig(ctx, obj, nil))
	}
	return errs, nil
}

func refUpdate(ctx context.Context, s rest.RESTUpdateStrategy, obj, old runtime.Object) (errs kfield.ErrorList, panicked any) {
	defer func() { panicked = recover() }()
	errs = s.ValidateUpdate(ctx, obj, old)
	if dv, ok := s.(rest.DeclarativeValidationStrategy); ok {
		errs = dv.ValidateDeclaratively(ctx, obj, old, errs, operation.Update, dv.DeclarativeValidationConfig(ctx, obj, old))
	}
	return errs, nil
}

// refWarnings runs a strategy's WarningsOnCreate or WarningsOnUpdate. A panic there is a
// reference bug (the apiserver's panic filter answers the request 500): the case counts among
// the row's reference panics, as one of Validate does. Seen at 100,000 StatefulSet creates: a
// projected clusterTrustBundle source with neither name nor signerName, which validation lets
// through with the ClusterTrustBundleProjection gate off, dereferences the nil signerName in
// warningsForOverlappingVirtualPaths (pkg/api/pod/warnings.go).
func refWarnings(f func() []string) (w []string, panicked any) {
	defer func() { panicked = recover() }()
	return f(), nil
}

// errLine is a field error as a client sees it in a 422 cause: reason, field and message.
func refLines(errs kfield.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
	}
	return out
}

func ourLines(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
	}
	return out
}

// tally counts one kind and operation.
type tally struct {
	cases, invalid, disagreements, refPanics, podSpecOnly int
	prepareDiffs                                          int            // prepared objects that differ (kinds with prepare)
	shapes                                                map[string]int // disagreeing first lines, digits folded
}

func (c *tally) note(t *testing.T, k harnessKind, op string, i int, input, old map[string]any, ref, got []string, refW, gotW []string) {
	c.cases++
	if len(ref) > 0 {
		c.invalid++
	}
	if k.unordered != nil {
		ref, got = sortRuns(ref, k.unordered), sortRuns(got, k.unordered)
	}
	if k.normalize != nil {
		ref, got = normalized(ref, k.normalize), normalized(got, k.normalize)
	}
	if equalLines(ref, got) && equalLines(refW, gotW) {
		return
	}
	if k.podSpec != "" && equalLines(outside(ref, k.podSpec), outside(got, k.podSpec)) && equalLines(refW, gotW) {
		c.podSpecOnly++
		return
	}
	c.disagreements++
	if c.shapes == nil {
		c.shapes = map[string]int{}
	}
	c.shapes[shape(ref, got)]++
	if (k.complete || os.Getenv("WRITEPATH_SHOW") == k.label()+" "+op) && c.disagreements <= 5 {
		t.Errorf("%s %s case %d: disagreement\nobject: %s\nold: %s\nreference: %q\nwritepath: %q\nreference warnings: %q\nwritepath warnings: %q",
			k.label(), op, i, js(input), js(old), ref, got, refW, gotW)
	}
}

// notePrepare compares writepath's prepared object with the reference's, generation and status
// aside.
func (c *tally) notePrepare(t *testing.T, k harnessKind, op string, i int, unprepared, old, ref, got map[string]any) {
	strip := func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for key, v := range m {
			out[key] = v
		}
		delete(out, "status")
		md := make(map[string]any)
		for key, v := range out["metadata"].(map[string]any) {
			md[key] = v
		}
		delete(md, "generation")
		out["metadata"] = md
		return out
	}
	if js(strip(ref)) == js(strip(got)) {
		return
	}
	c.prepareDiffs++
	if c.prepareDiffs <= 3 {
		t.Errorf("%s %s case %d: prepared objects differ\nrequest: %s\nold: %s\nreference: %s\nwritepath: %s", k.label(), op, i, js(unprepared), js(old), js(ref), js(got))
	}
}

func normalized(lines []string, f func(string) string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = f(l)
	}
	return out
}

// sortRuns returns lines with each run of consecutive lines that match sorted.
func sortRuns(lines []string, match func(string) bool) []string {
	out := append([]string(nil), lines...)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && match(out[j]) {
			j++
		}
		sort.Strings(out[i:j])
		if j == i {
			j++
		}
		i = j
	}
	return out
}

// outside drops the lines about fields under prefix.
func outside(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if i := strings.IndexByte(l, ' '); i >= 0 && strings.HasPrefix(l[i+1:], prefix) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// shape names the first line on which two lists differ, with indexes folded.
func shape(ref, got []string) string {
	for i := 0; i < len(ref) || i < len(got); i++ {
		var a, b string
		if i < len(ref) {
			a = ref[i]
		}
		if i < len(got) {
			b = got[i]
		}
		if a != b {
			return foldIndexes("ref=" + firstWords(a) + " | wp=" + firstWords(b))
		}
	}
	return "warnings"
}

func firstWords(s string) string {
	if i := strings.Index(s, ": "); i >= 0 {
		rest := s[i+2:]
		if j := strings.Index(rest, ":"); j >= 0 {
			rest = rest[:j]
		}
		return s[:i] + ": " + rest
	}
	return s
}

func foldIndexes(s string) string {
	var b strings.Builder
	inBracket := false
	for _, r := range s {
		switch {
		case r == '[':
			inBracket = true
			b.WriteString("[*")
		case r == ']':
			inBracket = false
			b.WriteRune(r)
		case inBracket:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// equalLines compares two error lists, line by line (the diff of the internal pod specs that
// ends "pod updates may not change fields other than ..." included).
func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if slices.Equal(a, b) {
		return true
	}
	// The apiserver lists the errors of a ResourceList (requests, limits, overhead) in Go map
	// order, which is random; writepath in key order. Such lists are compared as multisets.
	mapOrdered := false
	for _, l := range a {
		if strings.Contains(l, "resources.requests") || strings.Contains(l, "resources.limits") || strings.Contains(l, ".overhead") {
			mapOrdered = true
		}
	}
	if !mapOrdered {
		return false
	}
	sa, sb := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(sa)
	sort.Strings(sb)
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	return true
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// runKind runs create, update and each update subresource of k on n cases each.
func runKind(t *testing.T, k harnessKind, n int) map[string]*tally {
	r := rand.New(rand.NewSource(37))
	gvk := schema.GroupVersionKind{Group: k.gvk.Group, Version: k.gvk.Version, Kind: k.gvk.Kind}
	tallies := map[string]*tally{}
	if !k.updatesOnly {
		tallies["create"] = &tally{}
	}
	namespace := "validation-pod"
	if k.namespace != "" {
		namespace = k.namespace
	}
	if !k.create.NamespaceScoped() {
		namespace = "" // a cluster-scoped kind: the request has no namespace
	}
	for i := 0; i < n && !k.updatesOnly; i++ {
		// Create: a seed mutated at one path.
		obj := k.seed(r)
		mutate(r, obj)
		setNamespace(obj, namespace)
		in := toInternal(t, obj)
		setCreateUID(in)
		ctx := ctxFor(k, namespace, "create", "")
		unprepared := toV1Map(t, k, in)
		k.create.PrepareForCreate(ctx, in)
		input := toV1Map(t, k, in)
		if k.prepare {
			tallies["create"].notePrepare(t, k, "create", i, unprepared, nil, input, validation.PrepareForCreate(gvk, unprepared, validation.Options{User: &harnessUser}))
		}
		refErrs, p := refCreate(ctx, k.create, in)
		if p != nil {
			tallies["create"].refPanics++
			continue
		}
		var refW []string
		if len(refErrs) == 0 {
			if refW, p = refWarnings(func() []string { return k.create.WarningsOnCreate(ctx, in) }); p != nil {
				tallies["create"].refPanics++
				continue
			}
		}
		got := validation.Validate(gvk, input, k.optionsFor("", input))
		var gotW []string
		if len(got) == 0 {
			gotW = validation.Warnings(gvk, input, nil, k.optionsFor("", input))
		}
		tallies["create"].note(t, k, "create", i, input, nil, refLines(refErrs), ourLines(got), refW, gotW)
	}
	for _, sub := range sortedSubs(k.updates) {
		op := "update"
		if sub != "" {
			op = "update/" + sub
		}
		c := &tally{}
		tallies[op] = c
		s := k.updates[sub]
		for i := 0; i < n; i++ {
			// The stored object: a valid seed, created.
			base := k.seed(r)
			setNamespace(base, namespace)
			stored := toInternal(t, base)
			setCreateUID(stored)
			cctx := ctxFor(k, namespace, "create", "")
			k.create.PrepareForCreate(cctx, stored)
			if k.stored != nil {
				k.stored(r, stored)
			}
			setStored(stored)
			storedMap := toV1Map(t, k, stored)
			// The update: the stored object at v1, mutated at one path.
			next, err := legacyscheme.Scheme.ConvertToVersion(stored.DeepCopyObject(), k.gvk.GroupVersion())
			require.NoError(t, err)
			if k.next != nil {
				k.next(r, next)
			}
			mutate(r, next)
			in := toInternal(t, next)
			ctx := ctxFor(k, namespace, "update", sub)
			unprepared := toV1Map(t, k, in)
			s.PrepareForUpdate(ctx, in, stored)
			input := toV1Map(t, k, in)
			if k.prepare {
				c.notePrepare(t, k, op, i, unprepared, storedMap, input, validation.PrepareForUpdate(gvk, unprepared, storedMap, validation.Options{Subresource: sub}))
			}
			refErrs, p := refUpdate(ctx, s, in, stored)
			if p != nil {
				c.refPanics++
				continue
			}
			var refW []string
			if len(refErrs) == 0 {
				if refW, p = refWarnings(func() []string { return s.WarningsOnUpdate(ctx, in, stored) }); p != nil {
					c.refPanics++
					continue
				}
			}
			opts := k.optionsFor(sub, input)
			opts.Now = k.now
			got := validation.ValidateUpdate(gvk, input, storedMap, opts)
			var gotW []string
			if len(got) == 0 {
				gotW = validation.Warnings(gvk, input, storedMap, opts)
			}
			c.note(t, k, op, i, input, storedMap, refLines(refErrs), ourLines(got), refW, gotW)
		}
	}
	return tallies
}

// wpOptions are writepath's validation options for a write of sub: the admission expression
// compiler registry passes.
func wpOptions(sub string) validation.Options {
	return validation.Options{Subresource: sub, Expressions: admission.ExpressionCompiler{}}
}

func sortedSubs(m map[string]rest.RESTUpdateStrategy) []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func setNamespace(obj runtime.Object, ns string) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetNamespace(ns)
		if m.GetName() == "" {
			m.SetName("x")
		}
	}
}

// setCreateUID is what the store's FillObjectMetaSystemFields gives an object before the
// strategy's PrepareForCreate: its uid (the Job strategy generates its selector from it).
func setCreateUID(obj runtime.Object) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetUID("7d6f2c1e-0000-4000-8000-000000000001")
	}
}

// setStored gives a created object what storage adds: a uid, a resourceVersion, a creation
// time.
func setStored(obj runtime.Object) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetUID("7d6f2c1e-0000-4000-8000-000000000001")
		m.SetResourceVersion("1")
		m.SetCreationTimestamp(metav1.Unix(1_700_000_000, 0))
	}
}

// TestAgreement runs every kind and prints the agreement table (the README's).
func TestAgreement(t *testing.T) {
	n := caseCount()
	var rows []string
	for _, k := range kinds() {
		k := k
		t.Run(k.label(), func(t *testing.T) {
			tallies := runKind(t, k, n)
			ops := make([]string, 0, len(tallies))
			for op := range tallies {
				ops = append(ops, op)
			}
			sort.Strings(ops)
			for _, op := range ops {
				c := tallies[op]
				rows = append(rows, fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %d |", k.label(), op, c.cases, c.invalid, c.disagreements+c.prepareDiffs, c.podSpecOnly, c.refPanics))
				if c.disagreements > 0 {
					t.Logf("%s %s: %d disagreements; by first differing line: %s", k.label(), op, c.disagreements, topShapes(c.shapes, 12))
				}
			}
		})
	}
	t.Logf("\n| kind | operation | cases | invalid (reference) | disagreements | differing only in the pod spec | reference panics |\n|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

func topShapes(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range m {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || (l[i].v == l[j].v && l[i].k < l[j].k) })
	var b strings.Builder
	for i, x := range l {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "\n  %5d %s", x.v, x.k)
	}
	return b.String()
}
