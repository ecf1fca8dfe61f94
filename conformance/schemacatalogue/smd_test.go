package schemacatalogue

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsapply "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoapply "k8s.io/client-go/applyconfigurations"
	aggregatorapply "k8s.io/kube-aggregator/pkg/client/applyconfiguration"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/schema"
)

// referenceConverter returns the apply-configuration type converter of the module that owns the
// kind's group: what a client (and, with the same schemas, the apiserver's field manager) uses.
func referenceConverters(scheme *runtime.Scheme) func(group string) managedfields.TypeConverter {
	clientGo := clientgoapply.NewTypeConverter(scheme)
	apiext := apiextensionsapply.NewTypeConverter(scheme)
	aggregator := aggregatorapply.NewTypeConverter(scheme)
	return func(group string) managedfields.TypeConverter {
		switch group {
		case "apiextensions.k8s.io":
			return apiext
		case "apiregistration.k8s.io":
			return aggregator
		}
		return clientGo
	}
}

// filler makes random objects whose list keys collide often (few distinct strings and ports), so
// that merges exercise keyed, set and atomic lists.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.4).NumElements(0, 3).MaxDepth(12).Funcs(
		func(s *string, c randfill.Continue) { *s = []string{"a", "b", "c", ""}[c.Intn(4)] },
		func(p *corev1.Protocol, c randfill.Continue) { *p = []corev1.Protocol{"TCP", "UDP", ""}[c.Intn(3)] },
		func(i *int32, c randfill.Continue) { *i = int32(c.Intn(3)) },
		func(i *int64, c randfill.Continue) { *i = int64(c.Intn(3)) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(int64(c.Intn(100)), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(int32(c.Intn(3)))
			} else {
				*v = intstr.FromString([]string{"a", "10%"}[c.Intn(2)])
			}
		},
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(int64(c.Intn(1000000)), 0) },
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(metav1.Unix(int64(c.Intn(1000000)), 0).Time)
		},
		func(r *runtime.RawExtension, c randfill.Continue) { *r = runtime.RawExtension{Raw: []byte(`{"x":1}`)} },
		func(j *apiextensionsv1.JSON, c randfill.Continue) { *j = apiextensionsv1.JSON{Raw: []byte(`1`)} },
		func(j *apiextensionsv1beta1.JSON, c randfill.Continue) {
			*j = apiextensionsv1beta1.JSON{Raw: []byte(`"s"`)}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) { *f = metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)} },
	)
}

// sampleSize is the number of random objects per kind: a fixed seeded sample normally, and
// enough for >=100k compared cases under WRITEPATH_LONG=1.
func sampleSize() int {
	if n, err := strconv.Atoi(os.Getenv("SCHEMACATALOGUE_SAMPLE")); err == nil && n > 0 {
		return n // for investigating a disagreement of the long run on fewer cases
	}
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 1100
	}
	return 3
}

type smdCase struct {
	// ref is the reference from the Go struct (the apiserver's path for built-ins), refU from the
	// unstructured form (writepath's input form) through the same reference schema.
	mine, ref, refU *typed.TypedValue
}

// TestSMDTypesAgainstTypeConverters converts random objects of every built-in kind with writepath's
// SMD type (from unstructured, as writepath works) and with the reference type converter (from the
// Go struct, as the apiserver's field manager works), then compares: conversion errors, field
// sets, and for every pair of objects of a kind the merge result's field set and value and the
// comparison (added, removed, modified) — which is where list keys and atomicity show.
func TestSMDTypesAgainstTypeConverters(t *testing.T) {
	scheme := newScheme(t)
	converter := referenceConverters(scheme)
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	n := sampleSize()
	cases, disagreements, skipped, representation := 0, []string{}, []string{}, []string{}
	disagree := func(format string, args ...any) {
		if len(disagreements) < 50 {
			disagreements = append(disagreements, fmt.Sprintf(format, args...))
		}
	}
	for ki, k := range kinds {
		if k.SMDTypeName() == "" || k.GVK == (schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}) {
			continue // no reference converter has Scale (TestSMDTypesAgainstServedOpenAPI checks it)
		}
		if only := os.Getenv("SCHEMACATALOGUE_KINDS"); only != "" && !strings.Contains(","+only+",", ","+k.GVK.Kind+",") {
			continue // investigating some kinds only (same seeds as the full run)
		}
		typ, err := k.SMDType()
		require.NoError(t, err)
		tc := converter(k.GVK.Group)
		f := filler(int64(ki) + 1)
		rnd := rand.New(rand.NewSource(int64(ki)))
		var ok []smdCase
		if probe, err := scheme.New(refGVK(k.GVK)); err == nil {
			probe.GetObjectKind().SetGroupVersionKind(refGVK(k.GVK))
			if _, err := tc.ObjectToTyped(probe); err != nil && strings.Contains(err.Error(), "no type found matching") {
				// The create-only review kinds, Binding and TokenRequest: no apply-configuration
				// schema has them; TestSMDTypesAgainstServedOpenAPI checks them.
				skipped = append(skipped, k.GVK.String())
				continue
			}
		}
		for i := 0; i < n; i++ {
			obj, err := scheme.New(refGVK(k.GVK))
			require.NoError(t, err)
			f.Fill(obj)
			obj.GetObjectKind().SetGroupVersionKind(refGVK(k.GVK))
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			require.NoError(t, err, "%s", k.GVK)
			cases++
			// Strict conversion (what apply does to a request body): the same errors. Their order
			// follows field order for a Go struct but map order for unstructured input, so they
			// are compared as sets of lines.
			_, refErr := tc.ObjectToTyped(obj)
			_, mineErr := typ.FromUnstructured(u)
			if (refErr == nil) != (mineErr == nil) {
				disagree("%s #%d: conversion error %v, reference %v", k.GVK, i, mineErr, refErr)
				continue
			}
			if refErr != nil && !sameLines(refErr.Error(), mineErr.Error()) {
				disagree("%s #%d: conversion error %q, reference %q", k.GVK, i, mineErr, refErr)
			}
			// Lenient conversion (what the field manager does to live objects), then values.
			ref, refErr := tc.ObjectToTyped(obj, typed.AllowDuplicates)
			mine, mineErr := typ.FromUnstructured(u, typed.AllowDuplicates)
			if (refErr == nil) != (mineErr == nil) || (refErr != nil && !sameLines(refErr.Error(), mineErr.Error())) {
				disagree("%s #%d: lenient conversion error %v, reference %v", k.GVK, i, mineErr, refErr)
				continue
			}
			if refErr != nil {
				continue
			}
			if d := compareTyped(mine, ref); d != "" {
				disagree("%s #%d: %s", k.GVK, i, d)
				continue
			}
			refU, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: u}, typed.AllowDuplicates)
			require.NoError(t, err, "%s", k.GVK)
			ok = append(ok, smdCase{mine: mine, ref: ref, refU: refU})
		}
		for i := 0; i < len(ok) && len(ok) > 1; i++ {
			a, b := ok[i], ok[rnd.Intn(len(ok))]
			cases++
			mm, mErr := a.mine.Merge(b.mine)
			rm, rErr := a.ref.Merge(b.ref)
			if (mErr == nil) != (rErr == nil) || (mErr != nil && !sameLines(mErr.Error(), rErr.Error())) {
				disagree("%s merge %d: error %v, reference %v", k.GVK, i, mErr, rErr)
				continue
			}
			if mErr == nil {
				if d := compareTyped(mm, rm); d != "" {
					disagree("%s merge %d: %s", k.GVK, i, d)
				}
			}
			mc, mErr := a.mine.Compare(b.mine)
			rc, rErr := a.ref.Compare(b.ref)
			if (mErr == nil) != (rErr == nil) {
				disagree("%s compare %d: error %v, reference %v", k.GVK, i, mErr, rErr)
				continue
			}
			if mErr == nil && mc.String() != rc.String() {
				// SMD compares Go-struct-backed and unstructured values slightly differently
				// (value.Equals on reflect values); what matters here is the schema, so the
				// same input form through the reference schema decides.
				rcU, err := a.refU.Compare(b.refU)
				if err == nil && rcU.String() == mc.String() {
					representation = append(representation, fmt.Sprintf("%s compare %d", k.GVK, i))
				} else {
					disagree("%s compare %d:\n%s\nreference:\n%s", k.GVK, i, mc, rc)
				}
			}
		}
	}
	t.Logf("smd types: %d cases compared, %d disagreements; kinds without a reference converter: %v", cases, len(disagreements), skipped)
	if len(representation) > 0 {
		t.Logf("%d comparisons differ between Go-struct and unstructured input in SMD itself, and agree for unstructured input: %v", len(representation), representation)
	}
	for _, d := range disagreements {
		t.Error(d)
	}
}

func sameLines(a, b string) bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	sort.Strings(la)
	sort.Strings(lb)
	return strings.Join(la, "\n") == strings.Join(lb, "\n")
}

// compareTyped compares two typed values by field set and by JSON value.
func compareTyped(mine, ref *typed.TypedValue) string {
	ms, err := mine.ToFieldSet()
	if err != nil {
		return "field set: " + err.Error()
	}
	rs, err := ref.ToFieldSet()
	if err != nil {
		return "reference field set: " + err.Error()
	}
	if !ms.Equals(rs) {
		return fmt.Sprintf("field sets differ:\n%s\nreference:\n%s", ms, rs)
	}
	mj, err := json.Marshal(mine.AsValue().Unstructured())
	if err != nil {
		return err.Error()
	}
	rj, err := json.Marshal(ref.AsValue().Unstructured())
	if err != nil {
		return err.Error()
	}
	if string(mj) != string(rj) {
		return fmt.Sprintf("values differ:\n%s\nreference:\n%s", mj, rj)
	}
	return ""
}
