package fieldmanager

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	apiserverfm "k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// The reference: k8s.io/apimachinery's production field-manager chain (NewDefaultFieldManager)
// over unstructured objects, with client-go's apply-configuration type converter, plus the
// storage layer's IgnoreManagedFieldsTimestampsTransformer.

type fakeCreater struct{}

func (fakeCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(gvk.GroupVersion().String())
	u.SetKind(gvk.Kind)
	return u, nil
}

type identityConverter struct{}

func (identityConverter) Convert(in, out, context any) error { return errors.New("not implemented") }
func (identityConverter) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (identityConverter) ConvertFieldLabel(schema.GroupVersionKind, string, string) (string, string, error) {
	return "", "", errors.New("not implemented")
}

type noDefaulter struct{}

func (noDefaulter) Default(runtime.Object) {}

var builtinTypeConverter = applyconfigurations.NewTypeConverter(scheme.Scheme)

type reference struct {
	fm *managedfields.FieldManager
}

func newReference(tc managedfields.TypeConverter, gvk schema.GroupVersionKind, subresource string, reset map[fieldpath.APIVersion]*fieldpath.Set, crd bool) *reference {
	return newReferenceWith(tc, identityConverter{}, gvk, subresource, reset, crd)
}

func newReferenceWith(tc managedfields.TypeConverter, conv runtime.ObjectConvertor, gvk schema.GroupVersionKind, subresource string, reset map[fieldpath.APIVersion]*fieldpath.Set, crd bool) *reference {
	var filter map[fieldpath.APIVersion]fieldpath.Filter
	if reset != nil {
		filter = fieldpath.NewExcludeFilterSetMap(reset)
	}
	newFM := managedfields.NewDefaultFieldManager
	if crd {
		newFM = managedfields.NewDefaultCRDFieldManager
	}
	fm, err := newFM(tc, conv, noDefaulter{}, fakeCreater{}, gvk, gvk.GroupVersion(), subresource, filter)
	if err != nil {
		panic(err)
	}
	return &reference{fm: fm}
}

// outcome is what one operation produced, in a comparable form.
type outcome struct {
	Object map[string]any // nil on error
	Code   int
	Msg    string
	Causes []string // sorted "field|message"
}

func errOutcome(err error) outcome {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		var causes []string
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				causes = append(causes, c.Field+"|"+c.Message)
			}
		}
		sort.Strings(causes)
		return outcome{Code: int(st.Code), Msg: st.Message, Causes: causes}
	}
	return outcome{Code: 500, Msg: err.Error()}
}

// apply runs one apply through the reference; live nil means create.
func (r *reference) apply(live, config map[string]any, manager string, force bool, logical time.Time) outcome {
	liveObj := &unstructured.Unstructured{Object: deepCopy(live)}
	if live == nil {
		o, _ := fakeCreater{}.New(r.gvk(config))
		liveObj = o.(*unstructured.Unstructured)
	}
	out, err := r.fm.Apply(liveObj, &unstructured.Unstructured{Object: deepCopy(config)}, manager, force)
	if err != nil {
		return errOutcome(err)
	}
	return r.finish(live, out, logical)
}

func (r *reference) update(live, newObj map[string]any, manager string, logical time.Time) outcome {
	liveObj := &unstructured.Unstructured{Object: deepCopy(live)}
	if live == nil {
		o, _ := fakeCreater{}.New(r.gvk(newObj))
		liveObj = o.(*unstructured.Unstructured)
	}
	out := r.fm.UpdateNoErrors(liveObj, &unstructured.Unstructured{Object: deepCopy(newObj)}, manager)
	return r.finish(live, out, logical)
}

func (r *reference) gvk(obj map[string]any) schema.GroupVersionKind {
	return (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
}

// finish replaces the wall-clock times the chain wrote with the logical time of the step,
// re-sorts like the apiserver, then runs the storage layer's timestamp transformer.
func (r *reference) finish(live map[string]any, out runtime.Object, logical time.Time) outcome {
	acc, err := meta.Accessor(out)
	if err != nil {
		panic(err)
	}
	entries := acc.GetManagedFields()
	changed := false
	for i := range entries {
		if entries[i].Time != nil && entries[i].Time.Year() > 2025 {
			t := metav1.NewTime(logical)
			entries[i].Time = &t
			changed = true
		}
	}
	if changed {
		sort.SliceStable(entries, func(i, j int) bool { return lessEntry(entries[i], entries[j]) })
		acc.SetManagedFields(entries)
	}
	if live != nil {
		res, err := apiserverfm.IgnoreManagedFieldsTimestampsTransformer(context.Background(), out, &unstructured.Unstructured{Object: deepCopy(live)})
		if err != nil {
			panic(err)
		}
		out = res
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		panic(fmt.Sprintf("unexpected %T", out))
	}
	return outcome{Object: u.Object}
}

func lessEntry(p, q metav1.ManagedFieldsEntry) bool {
	if p.Operation != q.Operation {
		return p.Operation < q.Operation
	}
	var ps, qs int64
	if p.Time != nil {
		ps = p.Time.Unix()
	}
	if q.Time != nil {
		qs = q.Time.Unix()
	}
	if ps != qs {
		return ps < qs
	}
	if p.Manager != q.Manager {
		return p.Manager < q.Manager
	}
	if p.APIVersion != q.APIVersion {
		return p.APIVersion < q.APIVersion
	}
	return p.Subresource < q.Subresource
}

func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return runtime.DeepCopyJSON(m)
}
