// Package fieldmanager checks writepath's apply package against the production field-manager
// chain of k8s.io/apimachinery (NewDefaultFieldManager) on random operation sequences.
package fieldmanager

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/apply"
	wschema "github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

var logicalBase = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// sequences is the number of random operation sequences: a fixed sample normally, >=100k
// operations with WRITEPATH_LONG=1.
func sequences() int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 2000 // x 8 operations x 8 scenarios = 128k operations
	}
	return 30
}

const opsPerSequence = 8

// ours runs the same operation through writepath.
type ours struct {
	gvk         wschema.GroupVersionKind
	subresource string
	types       apply.TypeConverter
	reset       map[fieldpath.APIVersion]fieldpath.Filter
}

func oursOutcome(obj map[string]any, err error) outcome {
	if err != nil {
		var se *status.Error
		if errors.As(err, &se) {
			var causes []string
			if se.Details != nil {
				for _, c := range se.Details.Causes {
					causes = append(causes, c.Field+"|"+c.Message)
				}
			}
			sort.Strings(causes)
			return outcome{Code: int(se.Code), Msg: se.Message, Causes: causes}
		}
		return outcome{Code: -1, Msg: "not a status error: " + err.Error()}
	}
	return outcome{Object: obj}
}

func (o *ours) apply(live, config map[string]any, manager string, force bool, now time.Time) outcome {
	r, err := apply.Apply(apply.Request{Live: live, Config: config, Kind: o.gvk, Manager: manager, Force: force,
		Subresource: o.subresource, Now: now, Types: o.types, ResetFields: o.reset,
		// the reference field manager is built with a no-op defaulter and creates start from an
		// empty Unstructured; conformance/defaults checks built-in defaulting against the scheme's,
		// and apply's recorded replays the typed zero object a real create starts from
		Default: apply.NoDefault, CreateFrom: emptyObject(config)})
	return oursOutcome(r.Object, err)
}

func (o *ours) update(live, newObj map[string]any, manager string, now time.Time) outcome {
	r, err := apply.Update(apply.UpdateRequest{Live: live, Object: newObj, Kind: o.gvk, Manager: manager,
		Subresource: o.subresource, Now: now, Types: o.types, ResetFields: o.reset, CreateFrom: emptyObject(newObj)})
	return oursOutcome(r.Object, err)
}

// emptyObject is what the reference's creater gives for obj's kind: {apiVersion, kind}.
func emptyObject(obj map[string]any) map[string]any {
	return map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
}

// scenario is one endpoint (kind, subresource, reset fields) both sides are built for.
type scenario struct {
	name        string
	gvk         k8sschema.GroupVersionKind
	subresource string
	reset       map[fieldpath.APIVersion]*fieldpath.Set
	gen         func(r *rand.Rand) map[string]any
	// crd builds the reference with NewDefaultCRDFieldManager and these type converters.
	crd      bool
	refTypes func() (refTC any, ourTC apply.TypeConverter)
	// managers is the pool of manager names (default: managers).
	managers []string
	ops      int
	// applies is how many operations in 10 are applies (default 6).
	applies int
}

func deploymentScenarios() []scenario {
	gvk := k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	return []scenario{
		{name: "deployment", gvk: gvk, gen: genDeployment},
		{name: "deployment-reset-status", gvk: gvk, gen: genDeployment,
			reset: map[fieldpath.APIVersion]*fieldpath.Set{"apps/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}},
		{name: "deployment-status", gvk: gvk, subresource: "status", gen: genDeployment,
			reset: map[fieldpath.APIVersion]*fieldpath.Set{"apps/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels"))}},
		{name: "configmap", gvk: k8sschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, gen: genConfigMap},
		{name: "configmap-many-managers", gvk: k8sschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, gen: genWideConfigMap,
			managers: manyManagers(), ops: 40, applies: 2},
		{name: "crd-widget", gvk: widgetGVK, gen: genWidget, crd: true, refTypes: func() (any, apply.TypeConverter) { return widgetTypes() }},
		{name: "crd-widget-status", gvk: widgetGVK, subresource: "status", gen: genWidget, crd: true,
			refTypes: func() (any, apply.TypeConverter) { return widgetTypes() },
			reset:    map[fieldpath.APIVersion]*fieldpath.Set{"example.com/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata"))}},
		{name: "crd-deduced", gvk: k8sschema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}, gen: genDeduced, crd: true,
			refTypes: func() (any, apply.TypeConverter) { return managedfields.NewDeducedTypeConverter(), apply.Deduced }},
	}
}

var managers = []string{"alice", "bob", "kubectl", "ctrl", "kube-controller-manager"}

func manyManagers() []string {
	var out []string
	for i := 0; i < 16; i++ {
		out = append(out, "m"+strconv.Itoa(i))
	}
	return append(out, "kubectl")
}

func TestDifferential(t *testing.T) {
	total, ops, errs := 0, 0, 0
	stats := map[string]int{}
	for _, sc := range deploymentScenarios() {
		refTC, ourTC := managedfields.TypeConverter(builtinTypeConverter), apply.Builtin
		if sc.refTypes != nil {
			rt, ot := sc.refTypes()
			refTC, ourTC = rt.(managedfields.TypeConverter), ot
		}
		ref := newReference(refTC, sc.gvk, sc.subresource, sc.reset, sc.crd)
		pool := sc.managers
		if pool == nil {
			pool = managers
		}
		nops := sc.ops
		if nops == 0 {
			nops = opsPerSequence
		}
		var filter map[fieldpath.APIVersion]fieldpath.Filter
		if sc.reset != nil {
			filter = fieldpath.NewExcludeFilterSetMap(sc.reset)
		}
		us := &ours{gvk: wschema.GroupVersionKind(sc.gvk), subresource: sc.subresource, types: ourTC, reset: filter}
		n := sequences() * opsPerSequence / nops
		for seq := 0; seq < n; seq++ {
			seed := int64(seq)*7919 + int64(len(sc.name))
			r := rand.New(rand.NewSource(seed))
			var refLive, ourLive map[string]any
			for step := 0; step < nops; step++ {
				now := logicalBase.Add(time.Duration(seq*100+step+1) * time.Second)
				manager := pool[r.Intn(len(pool))]
				var want, got outcome
				var desc string
				applies := sc.applies
				if applies == 0 {
					applies = 6
				}
				switch k := r.Intn(10); {
				case k < applies || refLive == nil && k < 8:
					config := sc.gen(r)
					mutateConfig(r, config, refLive)
					config = roundTrip(config)
					force := r.Intn(4) == 0
					desc = fmt.Sprintf("apply manager=%s force=%v config=%s", manager, force, js(config))
					before := deepCopy(config)
					want = ref.apply(refLive, config, manager, force, now)
					got = us.apply(ourLive, config, manager, force, now)
					require.Equal(t, before, config, "config mutated")
				default:
					newObj := roundTrip(updatedObject(r, sc, refLive))
					if r.Intn(8) == 0 {
						manager = ""
					}
					desc = fmt.Sprintf("update manager=%q object=%s", manager, js(newObj))
					want = ref.update(refLive, newObj, manager, now)
					got = us.update(ourLive, newObj, manager, now)
				}
				ops++
				if want.Object == nil {
					errs++
					stats[fmt.Sprintf("error %d", want.Code)]++
				} else {
					if n := strings.Count(js(want.Object["metadata"]), `"operation":"Update"`); n > stats["max updaters"] {
						stats["max updaters"] = n
					}
					for _, name := range []string{"ancient-changes", "before-first-apply"} {
						if strings.Contains(js(want.Object["metadata"]), `"manager":"`+name+`"`) {
							stats[name]++
						}
					}
				}
				want.Msg, got.Msg = normMsg(want.Msg), normMsg(got.Msg)
				if !assert.Equal(t, js(want), js(got), "%s seed=%d step=%d\nlive=%s\n%s", sc.name, seed, step, js(refLive), desc) {
					t.FailNow()
				}
				if want.Object != nil {
					refLive, ourLive = want.Object, got.Object
					if step == 0 && r.Intn(2) == 0 {
						// Stored objects get a uid (it changes how updates start tracking).
						md, _ := refLive["metadata"].(map[string]any)
						if md == nil {
							md = map[string]any{}
							refLive["metadata"] = md
						}
						md["uid"] = "uid-" + strconv.Itoa(seq)
						ourLive = deepCopy(refLive)
					}
				}
			}
			total++
		}
	}
	t.Logf("%d sequences, %d operations (%d errors on both sides), 0 disagreements; %v", total, ops, errs, stats)
}

// normMsg sorts the lines of SMD's multi-error messages: the apiserver lists them in map
// iteration order (random), writepath sorts them.
func normMsg(msg string) string {
	i := strings.Index(msg, "errors:\n")
	if i < 0 {
		return msg
	}
	lines := strings.Split(msg[i+len("errors:\n"):], "\n")
	sort.Strings(lines)
	return msg[:i] + "errors:\n" + strings.Join(lines, "\n")
}

// roundTrip gives a generated object the shape a decoded request body has.
func roundTrip(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(b, &out); err != nil {
		panic(err)
	}
	return out
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
