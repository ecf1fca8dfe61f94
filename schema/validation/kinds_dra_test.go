package validation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

var (
	claimGVK         = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"}
	claimTemplateGVK = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaimTemplate"}
)

// Derived attributes are dropped (DRADerivedAttributes is off in 1.37) from a new claim and from
// an update whose stored claim has none; a stored claim that has them keeps them.
func TestClaimDerivedAttributesDropped(t *testing.T) {
	claim := func(derived bool) map[string]any {
		ex := map[string]any{"deviceClassName": "c"}
		sub := map[string]any{"name": "s", "deviceClassName": "c"}
		if derived {
			ex["derivedAttributes"] = []any{map[string]any{"name": "numa", "expression": "1"}}
			sub["derivedAttributes"] = []any{map[string]any{"name": "numa", "expression": "1"}}
		}
		return map[string]any{"metadata": map[string]any{"name": "c"}, "spec": map[string]any{"devices": map[string]any{"requests": []any{
			map[string]any{"name": "a", "exactly": ex}, map[string]any{"name": "b", "firstAvailable": []any{sub}}}}}}
	}
	with, without := claim(true), claim(false)
	assert.Equal(t, without, validation.PrepareForCreate(claimGVK, with, validation.Options{}), "create")
	assert.Equal(t, claim(true), with, "the request is not modified")
	assert.Equal(t, without, validation.PrepareForUpdate(claimGVK, with, without, validation.Options{}), "update, stored without")
	assert.Equal(t, with, validation.PrepareForUpdate(claimGVK, with, with, validation.Options{}), "update, stored with them")
	tmpl := map[string]any{"metadata": map[string]any{"name": "t"}, "spec": map[string]any{"spec": with["spec"]}}
	want := map[string]any{"metadata": map[string]any{"name": "t"}, "spec": map[string]any{"spec": without["spec"]}}
	assert.Equal(t, want, validation.PrepareForCreate(claimTemplateGVK, tmpl, validation.Options{}), "a template")
}

// The answers of the real 1.37 server (testdata/registry/recorded/dra.json, replayed by
// TestRecordedReplay), as the kinds' rules give them: hand-written errors first, the
// declarative ones (a subrequest's class, a fully qualified name, a Duplicate printed as the v1
// item) after them.
func TestClaimTemplateRecorded(t *testing.T) {
	tmpl := map[string]any{"metadata": map[string]any{"name": "t2", "namespace": "ns"}, "spec": map[string]any{"spec": map[string]any{"devices": map[string]any{
		"requests": []any{
			map[string]any{"name": "a", "exactly": map[string]any{"deviceClassName": "c", "allocationMode": "ExactCount", "count": int64(1),
				"tolerations": []any{map[string]any{"key": "bad key", "operator": "Equal", "effect": "Bad"}}}},
			map[string]any{"name": "a", "exactly": map[string]any{"deviceClassName": "c", "allocationMode": "Some"}},
		}}}}}
	var got []string
	for _, e := range validation.Validate(claimTemplateGVK, tmpl, validation.Options{}) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`spec.spec.devices.requests[1]: Duplicate value: {"name":"a","exactly":{"deviceClassName":"c","allocationMode":"Some"}}`,
		`spec.spec.devices.requests[0].exactly.tolerations[0].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		`spec.spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: "Bad": supported values: "NoExecute", "NoSchedule", "None"`,
		`spec.spec.devices.requests[1].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`,
	}, got)
}

// TestClaimsScaleLinearly: a claim's only unbounded lists are its requests' tolerations; the
// other lists stop at their maximum (32 requests, constraints, configs) before any item is read.
func TestClaimsScaleLinearly(t *testing.T) {
	tolerations := func(n int) []any {
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, map[string]any{"key": "bad key", "operator": "Equal", "value": "v", "effect": "NoSchedule"})
		}
		return l
	}
	many := func(n int, item any) []any {
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, item)
		}
		return l
	}
	assertLinear(t, []scalingCase{
		{claimGVK, func(n int) map[string]any {
			return map[string]any{"metadata": map[string]any{"name": "c", "namespace": "ns"}, "spec": map[string]any{"devices": map[string]any{
				"requests": []any{map[string]any{"name": "a", "exactly": map[string]any{"deviceClassName": "c", "allocationMode": "ExactCount",
					"count": int64(1), "tolerations": tolerations(n)}}}}}}
		}},
		{claimTemplateGVK, func(n int) map[string]any {
			return map[string]any{"metadata": map[string]any{"name": "t", "namespace": "ns"}, "spec": map[string]any{"spec": map[string]any{"devices": map[string]any{
				"requests":    many(n, map[string]any{"name": "a", "exactly": map[string]any{"deviceClassName": "c"}}),
				"constraints": many(n, map[string]any{"requests": many(n, "a"), "matchAttribute": "x/y"}),
				"config":      many(n, map[string]any{"requests": many(n, "a")})}}}}
		}},
	})
}
