package admission

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	wadmission "github.com/writepath/writepath/admission"
	wfield "github.com/writepath/writepath/field"
	wregistry "github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// genMeta generates the metadata of a namespaced (ConfigMap) or
// cluster-scoped (ClusterRole) object.
func genMeta(r *rand.Rand, namespaced bool) map[string]any {
	md := map[string]any{}
	if namespaced {
		if ns := pick(r, "ns-a", "ns-a", "ns-a", "", "Bad_NS"); ns != "" {
			md["namespace"] = ns
		}
	} else if r.IntN(8) == 0 {
		md["namespace"] = "ns-a"
	}
	// Always set: the chain leaves an update without one to the store's
	// check (Builtins.Concurrency), as the apiserver does.
	md["resourceVersion"] = "1"
	if n := pick(r, "cm1", "", "Bad_Name", "a.b-c", strings.Repeat("x", 254), "-x"); n != "" {
		md["name"] = n
	}
	if g := pick(r, "", "", "web-", "Web-", "x."); g != "" {
		md["generateName"] = g
	}
	if r.IntN(3) == 0 {
		md["generation"] = pick(r, int64(1), int64(-1), int64(3))
	}
	if r.IntN(2) == 0 {
		l := map[string]any{}
		for _, k := range some(r, 3, "app", "a/b/c", "example.com/x", "/x", "Bad Key", strings.Repeat("k", 64)) {
			l[k] = pick(r, "v", "bad value!", "", strings.Repeat("v", 64), "-v")
		}
		md["labels"] = l
	}
	if r.IntN(2) == 0 {
		a := map[string]any{}
		for _, k := range some(r, 2, "note", "example.com/Note", "bad key!") {
			a[k] = "x"
		}
		if r.IntN(6) == 0 {
			a["big"] = strings.Repeat("y", 256*1024)
		}
		md["annotations"] = a
	}
	if r.IntN(2) == 0 {
		md["finalizers"] = anyList(some(r, 3, "kubernetes", "orphan", "foregroundDeletion", "custom", "example.com/f", "Bad/f!"))
	}
	if r.IntN(3) == 0 {
		var refs []any
		for i := 0; i < 1+r.IntN(3); i++ {
			ref := map[string]any{}
			for _, k := range some(r, 4, "apiVersion", "kind", "name", "uid") {
				ref[k] = map[string]string{"apiVersion": pick(r, "v1", "apps/v1", "a/b/c", "/v1"), "kind": pick(r, "Deployment", "Event"),
					"name": pick(r, "web", "db"), "uid": "u1"}[k]
			}
			if r.IntN(2) == 0 {
				ref["controller"] = pick(r, true, true, false)
			}
			if r.IntN(3) == 0 {
				ref["blockOwnerDeletion"] = pick(r, true, false)
			}
			refs = append(refs, ref)
		}
		md["ownerReferences"] = refs
	}
	if r.IntN(4) == 0 {
		md["uid"] = pick(r, "u1", "u2")
	}
	if r.IntN(4) == 0 {
		md["deletionTimestamp"] = pick(r, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
	}
	if r.IntN(4) == 0 {
		md["creationTimestamp"] = pick(r, "2025-01-01T00:00:00Z", "2025-06-01T12:00:00Z")
	}
	if r.IntN(5) == 0 {
		md["deletionGracePeriodSeconds"] = pick(r, int64(0), int64(30))
	}
	if r.IntN(5) == 0 {
		var mf []any
		for i := 0; i < 1+r.IntN(2); i++ {
			e := map[string]any{"apiVersion": "v1", "manager": pick(r, "kubectl", "", strings.Repeat("m", 129), "bad\x01name"),
				"operation": pick(r, "Apply", "Update", "", "Patch")}
			if ft := pick(r, "FieldsV1", "", "FieldsV2"); ft != "" {
				e["fieldsType"] = ft
			}
			if r.IntN(4) == 0 {
				e["subresource"] = pick(r, "status", strings.Repeat("s", 257))
			}
			mf = append(mf, e)
		}
		md["managedFields"] = mf
	}
	return md
}

func anyList(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// refMetaErrors is apimachinery's ObjectMeta validation as strings, sorted
// (label and annotation maps are walked in Go map order).
func refMetaErrors(t testing.TB, md, old map[string]any, namespaced bool) []string {
	var om, oom metav1.ObjectMeta
	fromMap(t, md, &om)
	var errs field.ErrorList
	if old == nil {
		errs = validation.ValidateObjectMetaAccessor(&om, namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	} else {
		fromMap(t, old, &oom)
		// rest.ValidateUpdate's validateCommonFields runs both on update.
		errs = validation.ValidateObjectMetaAccessor(&om, namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
		errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(&om, &oom, field.NewPath("metadata"))...)
	}
	// The status error's aggregate drops repeated messages.
	seen := map[string]bool{}
	var out []string
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e.Error())
		}
	}
	sort.Strings(out)
	return out
}

// TestObjectMetaValidation compares the registry's ObjectMeta step
// (registry.ValidateObjectMeta, the chain's Validate) with
// apimachinery's ValidateObjectMetaAccessor (create) and, on update,
// ValidateObjectMetaAccessor and ValidateObjectMetaAccessorUpdate (as
// rest.ValidateUpdate's validateCommonFields runs them) on generated metadata
// of namespaced and cluster-scoped kinds.
func TestObjectMetaValidation(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 4))
	n := sampleSize(500)
	chain, err := wadmission.New(wadmission.Config{Validate: wregistry.ValidateObjectMeta})
	require.NoError(t, err)
	invalid := 0
	for i := 0; i < n; i++ {
		namespaced := r.IntN(4) != 0
		md := genMeta(r, namespaced)
		var old map[string]any
		op := wadmission.Create
		if r.IntN(2) == 0 {
			op = wadmission.Update
			old = genMeta(r, namespaced)
		}
		want := refMetaErrors(t, md, old, namespaced)
		req := wadmission.Request{Operation: op, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "ns-a"}
		apiVersion := "v1"
		if !namespaced {
			apiVersion = "rbac.authorization.k8s.io/v1"
			req.Kind = schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}
			req.Resource = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
			req.Namespace = ""
		}
		req.Object = map[string]any{"apiVersion": apiVersion, "kind": req.Kind.Kind, "metadata": md}
		if old != nil {
			req.OldObject = map[string]any{"apiVersion": apiVersion, "kind": req.Kind.Kind, "metadata": old}
		}
		_, err := chain.Admit(context.Background(), req)
		var got []string
		if err != nil {
			var se *status.Error
			require.ErrorAs(t, err, &se)
			var fe *wfield.Error
			for _, e := range flatten(err) {
				if errors.As(e, &fe) {
					got = append(got, fe.Error())
				}
			}
			invalid++
		}
		sort.Strings(got)
		b, _ := json.Marshal(map[string]any{"new": md, "old": old})
		if !assert.Equal(t, want, got, "case %d: %s", i, b) {
			return
		}
	}
	t.Logf("%d cases (%d invalid), 0 disagreements", n, invalid)
}

// flatten lists the field errors under a status error.
func flatten(err error) []error {
	var out []error
	var walk func(e error)
	walk = func(e error) {
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, c := range x.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }:
			if _, ok := e.(*wfield.Error); ok {
				out = append(out, e)
				return
			}
			if c := x.Unwrap(); c != nil {
				walk(c)
			}
		default:
			out = append(out, e)
		}
	}
	walk(err)
	return out
}
