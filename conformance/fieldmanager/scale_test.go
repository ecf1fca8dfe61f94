package fieldmanager

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/apply"
	wschema "github.com/writepath/writepath/schema"
)

var deploymentReplicas = managedfields.ResourcePathMappings{
	"apps/v1":      fieldpath.MakePathOrDie("spec", "replicas"),
	"apps/v1beta1": fieldpath.MakePathOrDie("spec", "replicas"),
	"apps/v1beta2": fieldpath.MakePathOrDie("spec", "replicas"),
}

// referenceScale is the Deployment ScaleREST flow: parent managedFields to the Scale
// (ScaleHandler.ToSubresource), the Scale field manager, and back (ToParent).
func referenceScale(t *testing.T, fm *managedfields.FieldManager, parent map[string]any, body map[string]any, isApply bool, manager string, force bool, logical time.Time) outcome {
	p := &unstructured.Unstructured{Object: deepCopy(parent)}
	h := managedfields.NewScaleHandler(p.GetManagedFields(), k8sschema.GroupVersion{Group: "apps", Version: "v1"}, deploymentReplicas)
	scaleEntries, err := h.ToSubresource()
	if err != nil {
		return errOutcome(err)
	}
	oldScale := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": map[string]any{"name": p.GetName(), "namespace": p.GetNamespace()}}}
	if uid := p.GetUID(); uid != "" {
		oldScale.SetUID(uid)
	}
	replicas, found, _ := unstructured.NestedInt64(p.Object, "spec", "replicas")
	if !found {
		replicas = 0
	}
	oldScale.Object["spec"] = map[string]any{"replicas": replicas}
	if scaleEntries != nil {
		oldScale.SetManagedFields(scaleEntries)
	}
	var newScale *unstructured.Unstructured
	if isApply {
		out, err := fm.Apply(oldScale, &unstructured.Unstructured{Object: deepCopy(body)}, manager, force)
		if err != nil {
			return errOutcome(err)
		}
		newScale = out.(*unstructured.Unstructured)
	} else {
		out := fm.UpdateNoErrors(oldScale, &unstructured.Unstructured{Object: deepCopy(body)}, manager)
		newScale = out.(*unstructured.Unstructured)
	}
	parentEntries, err := h.ToParent(newScale.GetManagedFields())
	require.NoError(t, err)
	if r, found, _ := unstructured.NestedFieldCopy(newScale.Object, "spec", "replicas"); found {
		require.NoError(t, unstructured.SetNestedField(p.Object, r, "spec", "replicas"))
	}
	acc, _ := meta.Accessor(p)
	acc.SetManagedFields(parentEntries)
	return (&reference{}).finish(parent, p, logical)
}

// TestScaleDifferential drives Deployments through applies to the main resource and updates and
// applies through /scale, against the reference flow of the Deployment ScaleREST.
func TestScaleDifferential(t *testing.T) {
	dep := k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	ref := newReference(builtinTypeConverter, dep, "", nil, false)
	scaleGVK := k8sschema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	// client-go's apply-configuration schemas have no autoscaling/v1 Scale: both sides type the
	// Scale with the deduced type here (the real apiserver's typed Scale is covered by the
	// recorded scenarios in testdata/apply/recorded).
	scaleFM, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), identityConverter{}, noDefaulter{}, fakeCreater{}, scaleGVK, scaleGVK.GroupVersion(), "scale", nil)
	require.NoError(t, err)
	paths := apply.ScaleReplicasPaths(wschema.GroupVersionKind(dep))
	n := sequences() * 2
	ops, scaleOps := 0, 0
	for seq := 0; seq < n; seq++ {
		r := rand.New(rand.NewSource(int64(seq) + 4242))
		var live map[string]any
		for step := 0; step < opsPerSequence; step++ {
			now := logicalBase.Add(time.Duration(seq*100+step+1) * time.Second)
			manager := pick(r, "alice", "bob", "horizontal-pod-autoscaler", "kubectl-scale")
			var want, got outcome
			var desc string
			switch k := r.Intn(3); {
			case k == 0 || live == nil:
				config := roundTrip(genDeployment(r))
				force := r.Intn(3) == 0
				desc = fmt.Sprintf("apply %s force=%v %s", manager, force, js(config))
				want = ref.apply(live, config, manager, force, now)
				res, err := apply.Apply(apply.Request{Live: live, Config: config, Manager: manager, Force: force, Now: now, Default: apply.NoDefault, CreateFrom: emptyObject(config)})
				got = oursOutcome(res.Object, err)
			case k == 1:
				scale, err := apply.ScaleOf(live, paths, nil)
				require.NoError(t, err)
				scale["spec"].(map[string]any)["replicas"] = int64(r.Intn(4))
				scale = roundTrip(scale)
				desc = fmt.Sprintf("scale update %s %s", manager, js(scale))
				want = referenceScale(t, scaleFM, live, scale, false, manager, false, now)
				res, err := apply.Scale(apply.ScaleRequest{Parent: live, Scale: scale, Manager: manager, Now: now, ReplicasPaths: paths, Types: apply.Deduced})
				got = oursOutcome(res.Object, err)
				scaleOps++
			default:
				config := map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "web", "namespace": "default"},
					"spec": map[string]any{"replicas": int64(r.Intn(4))}}
				config = roundTrip(config)
				force := r.Intn(3) == 0
				desc = fmt.Sprintf("scale apply %s force=%v %s", manager, force, js(config))
				want = referenceScale(t, scaleFM, live, config, true, manager, force, now)
				res, err := apply.Scale(apply.ScaleRequest{Parent: live, Scale: config, Apply: true, Manager: manager, Force: force, Now: now, ReplicasPaths: paths, Types: apply.Deduced})
				got = oursOutcome(res.Object, err)
				scaleOps++
			}
			ops++
			want.Msg, got.Msg = normMsg(want.Msg), normMsg(got.Msg)
			if !assert.Equal(t, js(want), js(got), "seed=%d step=%d live=%s\n%s", seq, step, js(live), desc) {
				t.FailNow()
			}
			if want.Object != nil {
				live = want.Object
			}
		}
	}
	t.Logf("%d operations (%d through /scale), 0 disagreements", ops, scaleOps)
}
