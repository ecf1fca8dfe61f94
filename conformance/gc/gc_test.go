// Package gc compares the deletion rules of github.com/writepath/writepath/gc with the
// k8s.io/apiserver and k8s.io/apimachinery functions kube-apiserver runs: DeleteOptions
// validation (ValidateDeleteOptions and the 422 it becomes), rest.BeforeDelete (preconditions,
// graceful deletion of a pod-like strategy, shortening, pending deletions, generation) and the
// finalizer rules of an update (ValidateObjectMetaAccessorUpdate). The controllers' behaviour is
// checked against recordings of a real cluster in the gc package itself (testdata/gc).
package gc

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/status"
)

func sampleSize(n int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100_000
	}
	return n
}

// strategy is a RESTDeleteStrategy for unstructured objects; graceful makes it a
// RESTGracefulDeleteStrategy with the pod strategy's CheckGracefulDelete.
type strategy struct{ graceful bool }

func (strategy) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return []schema.GroupVersionKind{obj.GetObjectKind().GroupVersionKind()}, false, nil
}
func (strategy) Recognizes(schema.GroupVersionKind) bool { return true }

type gracefulStrategy struct{ strategy }

// CheckGracefulDelete is the pod strategy's (pkg/registry/core/pod/strategy.go) on
// unstructured pods.
func (gracefulStrategy) CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if options == nil {
		return false
	}
	u := obj.(*unstructured.Unstructured)
	period := int64(0)
	if options.GracePeriodSeconds != nil {
		period = *options.GracePeriodSeconds
	} else if g, ok, _ := unstructured.NestedInt64(u.Object, "spec", "terminationGracePeriodSeconds"); ok {
		period = g
	}
	if n, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName"); n == "" {
		period = 0
	}
	if p, _, _ := unstructured.NestedString(u.Object, "status", "phase"); p == "Failed" || p == "Succeeded" {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	options.GracePeriodSeconds = &period
	return true
}

var policies = []string{"Foreground", "Background", "Orphan", "Sideways", ""}

type sample struct {
	obj  map[string]any
	opts gc.DeleteOptions
	ref  metav1.DeleteOptions
}

func randomSample(r *rand.Rand, now time.Time) sample {
	md := map[string]any{"name": fmt.Sprintf("o%d", r.Intn(3)), "namespace": "ns", "uid": fmt.Sprintf("u%d", r.Intn(3)),
		"resourceVersion": fmt.Sprint(r.Intn(3) + 1)}
	if r.Intn(2) == 0 {
		md["generation"] = int64(r.Intn(3))
	}
	spec := map[string]any{"terminationGracePeriodSeconds": int64(r.Intn(40) - 5)}
	if r.Intn(2) == 0 {
		spec["nodeName"] = "n1"
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
	if r.Intn(5) == 0 {
		obj["status"] = map[string]any{"phase": []string{"Succeeded", "Failed", "Running"}[r.Intn(3)]}
	}
	if r.Intn(3) == 0 {
		grace := int64(r.Intn(60))
		md["deletionGracePeriodSeconds"] = grace
		md["deletionTimestamp"] = now.Add(time.Duration(r.Intn(90)-30) * time.Second).UTC().Format(time.RFC3339)
	}
	var s sample
	s.obj = obj
	if p := policies[r.Intn(len(policies))]; p != "" {
		pp := gc.Propagation(p)
		s.opts.PropagationPolicy = &pp
		rp := metav1.DeletionPropagation(p)
		s.ref.PropagationPolicy = &rp
	}
	if r.Intn(4) == 0 {
		b := r.Intn(2) == 0
		s.opts.OrphanDependents, s.ref.OrphanDependents = &b, &b
	}
	if r.Intn(2) == 0 {
		g := int64(r.Intn(70) - 5)
		s.opts.GracePeriodSeconds = &g
		g2 := g
		s.ref.GracePeriodSeconds = &g2
	}
	if r.Intn(4) == 0 {
		d := []string{[]string{"All", "Some"}[r.Intn(2)]}
		s.opts.DryRun, s.ref.DryRun = d, d
	}
	if r.Intn(3) == 0 {
		s.opts.Preconditions, s.ref.Preconditions = &gc.Preconditions{}, &metav1.Preconditions{}
		if r.Intn(2) == 0 {
			u := fmt.Sprintf("u%d", r.Intn(3))
			s.opts.Preconditions.UID = &u
			uid := types.UID(u)
			s.ref.Preconditions.UID = &uid
		}
		if r.Intn(2) == 0 {
			v := fmt.Sprint(r.Intn(3) + 1)
			s.opts.Preconditions.ResourceVersion = &v
			s.ref.Preconditions.ResourceVersion = &v
		}
	}
	return s
}

// TestDeleteAgainstBeforeDelete runs random pod DELETEs through gc.Delete and through the
// handler's ValidateDeleteOptions then rest.BeforeDelete, and compares the errors (code and
// message) and the graceful-deletion fields BeforeDelete writes.
func TestDeleteAgainstBeforeDelete(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	n := sampleSize(5000)
	compared := 0
	for i := 0; i < n; i++ {
		// BeforeDelete reads the clock itself: keep samples whose reference run stayed within
		// one second, and give gc.Delete an instant of that second.
		before := time.Now().UTC()
		s := randomSample(r, before.Truncate(time.Second))
		want, graceful, pending, wantErr := reference(s, before)
		now := time.Now().UTC()
		if !now.Truncate(time.Second).Equal(before.Truncate(time.Second)) || now.Equal(now.Truncate(time.Second)) {
			i--
			continue
		}
		o := s.opts
		o.Now = now
		got, gotErr := gc.Delete(s.obj, o)
		name := fmt.Sprintf("sample %d: %v %+v", i, s.obj["metadata"], s.ref)
		if wantErr != nil {
			var se *status.Error
			if assert.True(t, errors.As(gotErr, &se), "%s: want error %v, got %v", name, wantErr, gotErr) {
				assert.Equal(t, int(wantErr.ErrStatus.Code), se.StatusCode(), name)
				assert.Equal(t, wantErr.ErrStatus.Message, se.Message, name)
			}
			compared++
			continue
		}
		require.NoError(t, gotErr, name)
		compared++
		if pending {
			assert.False(t, got.Changed, "%s: a pending graceful deletion changes nothing", name)
			continue
		}
		if !graceful {
			continue // finalizers and immediate deletion: covered by the recorded scenarios
		}
		obj := got.Object
		if got.Removed {
			obj = got.Written
		}
		if len(s.opts.DryRun) > 0 {
			obj = got.Response
		}
		require.NotNil(t, obj, name)
		gm := obj["metadata"].(map[string]any)
		assert.Equal(t, want.GetDeletionTimestamp().UTC().Format(time.RFC3339), gm["deletionTimestamp"], "%s: deletionTimestamp", name)
		assert.Equal(t, *want.GetDeletionGracePeriodSeconds(), gm["deletionGracePeriodSeconds"], "%s: deletionGracePeriodSeconds", name)
		wantGen := want.GetGeneration()
		gotGen, _ := gm["generation"].(int64)
		assert.Equal(t, wantGen, gotGen, "%s: generation", name)
	}
	t.Logf("compared %d DELETEs", compared)
}

// reference runs what kube-apiserver runs before storage: the handler's validation, then
// rest.BeforeDelete with the pod-like strategy.
func reference(s sample, now time.Time) (*unstructured.Unstructured, bool, bool, *apierrors.StatusError) {
	opts := s.ref.DeepCopy()
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, false, false, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(s.obj)}
	graceful, pending, err := rest.BeforeDelete(gracefulStrategy{}, context.Background(), u, opts)
	if err != nil {
		var se *apierrors.StatusError
		if errors.As(err, &se) {
			return nil, false, false, se
		}
		panic(err)
	}
	return u, graceful, pending, nil
}

// TestFinalizerUpdatesAgainstValidation compares gc.Update's refusals with
// ValidateObjectMetaAccessorUpdate on random finalizer changes.
func TestFinalizerUpdatesAgainstValidation(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	names := []string{"a.example.com/x", "b.example.com/y", "orphan", "foregroundDeletion", "z"}
	pick := func() []any {
		var out []any
		seen := map[string]bool{}
		for j := r.Intn(4); j > 0; j-- {
			f := names[r.Intn(len(names))]
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
		return out
	}
	n := sampleSize(5000)
	for i := 0; i < n; i++ {
		oldMD := map[string]any{"name": "cm", "namespace": "ns", "uid": "u", "resourceVersion": "5"}
		if fs := pick(); len(fs) > 0 {
			oldMD["finalizers"] = fs
		}
		if r.Intn(2) == 0 {
			oldMD["deletionTimestamp"] = "2026-11-29T11:00:00Z"
			oldMD["deletionGracePeriodSeconds"] = int64(0)
		}
		newMD := map[string]any{"name": "cm", "namespace": "ns", "uid": "u", "resourceVersion": "5"}
		if fs := pick(); len(fs) > 0 {
			newMD["finalizers"] = fs
		}
		old := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": oldMD}
		upd := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": newMD}
		_, gotErr := gc.Update(old, upd, nil)

		ou := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(old)}
		nu := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(upd)}
		// rest.BeforeUpdate carries these over before validating.
		nu.SetDeletionTimestamp(ou.GetDeletionTimestamp())
		nu.SetDeletionGracePeriodSeconds(ou.GetDeletionGracePeriodSeconds())
		errs := apivalidation.ValidateObjectMetaAccessorUpdate(nu, ou, field.NewPath("metadata"))
		name := fmt.Sprintf("sample %d: %v -> %v", i, oldMD, newMD)
		if len(errs) == 0 {
			assert.NoError(t, gotErr, name)
			continue
		}
		want := apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "cm", errs)
		var se *status.Error
		if assert.True(t, errors.As(gotErr, &se), "%s: want %v", name, want) {
			assert.Equal(t, want.ErrStatus.Message, se.Message, name)
		}
	}
}
