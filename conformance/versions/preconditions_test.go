package versions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"

	wpschema "github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	wpversions "github.com/writepath/writepath/versions"
)

// wire renders an error as the Status JSON the apiserver sends.
func refWire(t *testing.T, err error) string {
	t.Helper()
	data, mErr := json.Marshal(responsewriters.ErrorToAPIStatus(err))
	require.NoError(t, mErr)
	return string(data)
}

func ourWire(t *testing.T, err error) string {
	t.Helper()
	var se *status.Error
	require.True(t, errors.As(err, &se), "%T: %v", err, err)
	data, mErr := json.Marshal(se)
	require.NoError(t, mErr)
	return string(data)
}

// strategyPicks are the resources the precondition tests draw from.
func strategyPicks() []wpversions.Strategy {
	var out []wpversions.Strategy
	for _, gr := range [][2]string{{"", "configmaps"}, {"apps", "deployments"}, {"", "services"}, {"", "nodes"},
		{"networking.k8s.io", "ingresses"}, {"apiextensions.k8s.io", "customresourcedefinitions"}} {
		s, ok := wpversions.BuiltinResource(wpschema.GroupVersionResource{Group: gr[0], Resource: gr[1]})
		if ok {
			out = append(out, s)
		}
	}
	return append(out, wpversions.CustomResource("stable.example.com", "crontabs", "CronTab", wpversions.CustomResourceOptions{}))
}

type precondCase struct {
	s         wpversions.Strategy
	obj       *unstructured.Unstructured
	uid, rv   *string
	namespace string
}

func drawPrecond(r *rand.Rand, picks []wpversions.Strategy) precondCase {
	s := picks[r.IntN(len(picks))]
	values := []string{"", "1", "42", "0042", "abc", "6b1f0e1c-0000-4000-8000-000000000001", "é", "x y"}
	pick := func() string { return values[r.IntN(len(values))] }
	ns := []string{"", "default", "kube-system"}[r.IntN(3)]
	if s.Resource == "nodes" || s.Resource == "customresourcedefinitions" {
		ns = ""
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(schema.GroupVersion{Group: s.Group, Version: "v1"}.String())
	u.SetKind(s.Kind)
	u.SetName([]string{"cm1", "web", "a.b-c"}[r.IntN(3)])
	u.SetNamespace(ns)
	if v := pick(); v != "" {
		u.SetUID(typesUID(v))
	}
	if v := pick(); v != "" {
		u.SetResourceVersion(v)
	}
	c := precondCase{s: s, obj: u, namespace: ns}
	if r.IntN(3) > 0 {
		v := pick()
		if r.IntN(2) == 0 {
			v = string(u.GetUID())
		}
		c.uid = &v
	}
	if r.IntN(3) > 0 {
		v := pick()
		if r.IntN(2) == 0 {
			v = u.GetResourceVersion()
		}
		c.rv = &v
	}
	return c
}

// TestStoragePreconditions compares CheckPreconditions with
// storage.Preconditions.Check wrapped by InterpretUpdateError, as the generic
// store does on update: the full Status JSON must be equal.
func TestStoragePreconditions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	picks := strategyPicks()
	n := sampleSize(3_000)
	failures := 0
	for i := 0; i < n; i++ {
		c := drawPrecond(r, picks)
		key := c.s.StorageKey(c.namespace, c.obj.GetName())
		refErr := (&storage.Preconditions{UID: uidPtr(c.uid), ResourceVersion: c.rv}).Check(key, c.obj)
		if refErr != nil {
			refErr = storeerr.InterpretUpdateError(refErr, schema.GroupResource{Group: c.s.Group, Resource: c.s.Resource}, c.obj.GetName())
		}
		ourErr := wpversions.CheckPreconditions(c.s, wpversions.Preconditions{UID: c.uid, ResourceVersion: c.rv}, c.obj.Object)
		if !assert.Equal(t, refErr == nil, ourErr == nil, "case %d: %v / %v", i, refErr, ourErr) {
			failures++
			continue
		}
		if refErr != nil && !assert.Equal(t, refWire(t, refErr), ourWire(t, ourErr), "case %d", i) {
			failures++
		}
	}
	t.Logf("compared %d storage precondition checks: %d disagreements", n, failures)
}

// fakeStrategy is the part of a REST strategy rest.BeforeDelete calls.
type fakeStrategy struct {
	gvk      schema.GroupVersionKind
	graceful bool
}

func (f fakeStrategy) ObjectKinds(runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return []schema.GroupVersionKind{f.gvk}, false, nil
}
func (f fakeStrategy) Recognizes(schema.GroupVersionKind) bool { return true }

type gracefulStrategy struct{ fakeStrategy }

func (gracefulStrategy) CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if options.GracePeriodSeconds == nil {
		p := int64(30)
		options.GracePeriodSeconds = &p
	}
	return true
}

// TestDeletePreconditions compares CheckDeletePreconditions with
// rest.BeforeDelete's early precondition check.
func TestDeletePreconditions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	picks := strategyPicks()
	n := sampleSize(3_000)
	failures := 0
	for i := 0; i < n; i++ {
		c := drawPrecond(r, picks)
		fs := fakeStrategy{gvk: c.obj.GroupVersionKind()}
		opts := &metav1.DeleteOptions{}
		if c.uid != nil || c.rv != nil {
			opts.Preconditions = &metav1.Preconditions{UID: uidPtr(c.uid), ResourceVersion: c.rv}
		}
		_, _, refErr := rest.BeforeDelete(fs, genericapirequest.NewContext(), c.obj.DeepCopy(), opts)
		ourErr := wpversions.CheckDeletePreconditions(c.s, wpversions.Preconditions{UID: c.uid, ResourceVersion: c.rv}, c.obj.Object)
		if !assert.Equal(t, refErr == nil, ourErr == nil, "case %d: %v / %v", i, refErr, ourErr) {
			failures++
			continue
		}
		if refErr != nil && !assert.Equal(t, refWire(t, refErr), ourWire(t, ourErr), "case %d", i) {
			failures++
		}
	}
	t.Logf("compared %d delete precondition checks: %d disagreements", n, failures)
}

// TestDeleteGeneration compares GenerationOnDelete with the bump rest.BeforeDelete
// makes for a graceful deletion (the first time deletionTimestamp is set).
func TestDeleteGeneration(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s, _ := wpversions.BuiltinResource(wpschema.GroupVersionResource{Resource: "pods"})
	n := sampleSize(2_000)
	failures := 0
	for i := 0; i < n; i++ {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod"}}
		u.SetName("p")
		u.SetGeneration([]int64{0, 1, 2, 7, 1 << 40}[r.IntN(5)])
		if r.IntN(3) == 0 {
			ts := metav1.Unix(1_700_000_000, 0)
			u.SetDeletionTimestamp(&ts)
			if r.IntN(2) == 0 {
				gp := int64(r.IntN(3))
				u.SetDeletionGracePeriodSeconds(&gp)
			}
		}
		ref := u.DeepCopy()
		gp := int64(30)
		_, _, err := rest.BeforeDelete(gracefulStrategy{fakeStrategy{gvk: u.GroupVersionKind()}}, genericapirequest.NewContext(), ref, &metav1.DeleteOptions{GracePeriodSeconds: &gp})
		require.NoError(t, err)
		g, err := wpversions.GenerationOnDelete(s, u.Object)
		require.NoError(t, err)
		if !assert.Equal(t, ref.GetGeneration(), g.New, "case %d: %v", i, u.Object["metadata"]) {
			failures++
		}
	}
	t.Logf("compared %d graceful deletions: %d disagreements", n, failures)
}

// TestUpdateErrors compares the errors CheckUpdate returns with the ones the
// generic store builds (registry.Store.Update) for the same situations.
func TestUpdateErrors(t *testing.T) {
	for _, s := range strategyPicks() {
		gr := schema.GroupResource{Group: s.Group, Resource: s.Resource}
		stored := map[string]any{"apiVersion": "v1", "kind": s.Kind, "metadata": map[string]any{"name": "web", "resourceVersion": "42"}}
		sent := func(rv string) map[string]any {
			return map[string]any{"apiVersion": "v1", "kind": s.Kind, "metadata": map[string]any{"name": "web", "resourceVersion": rv}}
		}
		_, err := wpversions.CheckUpdate(s, stored, sent("41"))
		assert.Equal(t, refWire(t, conflictRef(gr)), ourWire(t, err), s.Resource)
		_, err = wpversions.CheckUpdate(s, stored, sent(""))
		if s.AllowUnconditionalUpdate {
			assert.NoError(t, err)
		} else {
			assert.Equal(t, refWire(t, missingRVRef(gr)), ourWire(t, err), s.Resource)
		}
		_, err = wpversions.CheckUpdate(s, stored, sent("x1"))
		assert.Equal(t, refWire(t, parseRef("x1")), ourWire(t, err), s.Resource)
	}
}

func ExampleCheckPreconditions() {
	s, _ := wpversions.Builtin(wpschema.GroupVersionKind{Kind: "ConfigMap"})
	uid := "a"
	obj := map[string]any{"metadata": map[string]any{"name": "cm1", "namespace": "default", "uid": "b"}}
	fmt.Println(wpversions.CheckPreconditions(s, wpversions.Preconditions{UID: &uid}, obj))
	// Output: Operation cannot be fulfilled on configmaps "cm1": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/cm1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: a, UID in object meta: b
}
