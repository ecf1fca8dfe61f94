package fieldmanager

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/schemaconv"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/apply"
	wschema "github.com/writepath/writepath/schema"
)

// sameSchemaConverter converts between versions that share a schema (a CRD with conversion
// strategy None) by rewriting apiVersion; other versions are not registered.
type sameSchemaConverter struct{ known map[string]bool }

func (c sameSchemaConverter) Convert(in, out, context any) error {
	return fmt.Errorf("not implemented")
}
func (c sameSchemaConverter) ConvertFieldLabel(k8sschema.GroupVersionKind, string, string) (string, string, error) {
	return "", "", fmt.Errorf("not implemented")
}
func (c sameSchemaConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u := in.(*unstructured.Unstructured)
	gvk, ok := target.KindForGroupVersionKinds([]k8sschema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, runtime.NewNotRegisteredErrForKind("test", u.GroupVersionKind())
	}
	if !c.known[gvk.GroupVersion().String()] {
		return nil, runtime.NewNotRegisteredErrForKind("test", gvk)
	}
	out := u.DeepCopy()
	out.SetAPIVersion(gvk.GroupVersion().String())
	return out, nil
}

// TestMultiVersion drives a Widget served at example.com/v1 and /v2 (one schema) through both
// endpoints, with managers recorded at both versions and at a version no longer served (v0,
// dropped), against NewDefaultCRDFieldManager with a version-rewriting converter.
func TestMultiVersion(t *testing.T) {
	versions := []string{"v1", "v2"}
	models := widgetOpenAPIVersions(versions...)
	refTC, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		t.Fatal(err)
	}
	pt := (&typed.Parser{Schema: smdschema.Schema{Types: s.Types}}).Type("com.example.v1.Widget")
	ours := apply.Types{}
	refs := map[string]*reference{}
	conv := sameSchemaConverter{known: map[string]bool{"example.com/v1": true, "example.com/v2": true}}
	for _, v := range versions {
		gvk := k8sschema.GroupVersionKind{Group: "example.com", Version: v, Kind: "Widget"}
		ours[wschema.GroupVersionKind(gvk)] = pt
		refs[v] = newReferenceWith(refTC, conv, gvk, "", nil, true)
	}
	n := sequences() * 2
	ops, disagreements, mixed, errs := 0, 0, 0, 0
	for seq := 0; seq < n; seq++ {
		r := rand.New(rand.NewSource(int64(seq) + 99991))
		var live map[string]any
		for step := 0; step < opsPerSequence; step++ {
			v := versions[r.Intn(len(versions))]
			av := "example.com/" + v
			now := logicalBase.Add(time.Duration(seq*100+step+1) * time.Second)
			manager := managers[r.Intn(len(managers))]
			var liveV map[string]any
			if live != nil {
				liveV = deepCopy(live)
				liveV["apiVersion"] = av
			}
			var want, got outcome
			var desc string
			if r.Intn(10) < 6 || live == nil {
				config := genWidget(r)
				config["apiVersion"] = av
				config = roundTrip(config)
				force := r.Intn(4) == 0
				desc = fmt.Sprintf("apply@%s %s force=%v %s", v, manager, force, js(config))
				want = refs[v].apply(liveV, config, manager, force, now)
				res, err := apply.Apply(apply.Request{Live: liveV, Config: config, Kind: wschema.GroupVersionKind{Group: "example.com", Version: v, Kind: "Widget"},
					Manager: manager, Force: force, Now: now, Types: ours, Convert: apply.SameSchema("example.com/v1", "example.com/v2")})
				got = oursOutcome(res.Object, err)
			} else {
				newObj := deepCopy(liveV)
				mergeInto(newObj, genWidget(r))
				newObj["apiVersion"] = av
				if r.Intn(3) == 0 {
					md := newObj["metadata"].(map[string]any)
					entries, _ := md["managedFields"].([]any)
					md["managedFields"] = append(entries, map[string]any{"manager": "old", "operation": "Update", "apiVersion": "example.com/v0",
						"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:size": map[string]any{}}}})
				}
				newObj = roundTrip(newObj)
				desc = fmt.Sprintf("update@%s %s %s", v, manager, js(newObj))
				want = refs[v].update(liveV, newObj, manager, now)
				res, err := apply.Update(apply.UpdateRequest{Live: liveV, Object: newObj, Kind: wschema.GroupVersionKind{Group: "example.com", Version: v, Kind: "Widget"},
					Manager: manager, Now: now, Types: ours, Convert: apply.SameSchema("example.com/v1", "example.com/v2")})
				got = oursOutcome(res.Object, err)
			}
			ops++
			want.Msg, got.Msg = normMsg(want.Msg), normMsg(got.Msg)
			if !assert.Equal(t, js(want), js(got), "seed=%d step=%d live=%s\n%s", seq, step, js(liveV), desc) {
				disagreements++
				t.FailNow()
			}
			if want.Object != nil {
				live = want.Object
				mf := js(want.Object["metadata"])
				if strings.Contains(mf, `"apiVersion":"example.com/v1"`) && strings.Contains(mf, `"apiVersion":"example.com/v2"`) {
					mixed++
				}
			} else {
				errs++
			}
		}
	}
	t.Logf("%d operations over two versions (%d errors on both sides, %d results with managers at both versions), %d disagreements", ops, errs, mixed, disagreements)
}

var _ = os.Getenv
