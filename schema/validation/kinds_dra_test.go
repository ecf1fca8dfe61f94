package validation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

var (
	claimGVK         = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"}
	claimTemplateGVK = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaimTemplate"}
	sliceGVK         = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice"}
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

// A ResourceSlice's fields behind 1.37's disabled gates are dropped on create and on an update
// whose stored slice does not use them; the rest of the request is kept as sent.
func TestSliceDisabledFieldsDropped(t *testing.T) {
	slice := func(gated bool) map[string]any {
		dev := map[string]any{"name": "d", "attributes": map[string]any{"model": map[string]any{"string": "a"}},
			"consumesCounters": []any{map[string]any{"counterSet": "c", "counters": map[string]any{"m": map[string]any{"value": "1"}}}}}
		spec := map[string]any{"driver": "d.example.com", "pool": map[string]any{"name": "p", "resourceSliceCount": int64(1)},
			"allNodes": true, "devices": []any{dev}}
		if gated {
			spec["partitionTypeAttribute"] = "d.example.com/type"
			spec["skipNodeOperations"] = []any{"*"}
			dev["nodeAllocatableResources"] = map[string]any{"cpu": map[string]any{"overhead": map[string]any{"perPod": "1"}}}
			dev["attributes"].(map[string]any)["list"] = map[string]any{"ints": []any{int64(1)}}
			dev["consumesCounters"].([]any)[0].(map[string]any)["compatibilityGroups"] = []any{"g"}
		}
		return map[string]any{"metadata": map[string]any{"name": "s"}, "spec": spec}
	}
	with, without := slice(true), slice(false)
	// The list attribute loses its values, not its key.
	without["spec"].(map[string]any)["devices"].([]any)[0].(map[string]any)["attributes"].(map[string]any)["list"] = map[string]any{}
	assert.Equal(t, without, validation.PrepareForCreate(sliceGVK, with, validation.Options{}), "create")
	assert.Equal(t, slice(true), with, "the request is not modified")
	assert.Equal(t, without, validation.PrepareForUpdate(sliceGVK, with, slice(false), validation.Options{}), "update, stored without")
	assert.Equal(t, with, validation.PrepareForUpdate(sliceGVK, with, with, validation.Options{}), "update, stored with them")
}

// A slice's errors as the reference gives them: hand-written errors first (covered ones gone),
// the declarative ones after them (the union of an attribute's values, a counter's name).
func TestSliceErrors(t *testing.T) {
	s := map[string]any{"metadata": map[string]any{"name": "s"}, "spec": map[string]any{
		"driver": "gpu.example.com", "pool": map[string]any{"name": "p", "resourceSliceCount": int64(1)}, "nodeName": "n", "allNodes": true,
		"devices": []any{map[string]any{"name": "d", "attributes": map[string]any{"a": map[string]any{"int": int64(1), "bool": true}},
			"consumesCounters": []any{map[string]any{"counterSet": "Bad", "counters": map[string]any{"m": map[string]any{"value": "1"}}}}}}}}
	got := validation.Validate(sliceGVK, s, validation.Options{})
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Error())
	}
	assert.Equal(t, []string{
		"spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set",
		"spec.devices[0].attributes[a]: Invalid value: \"{int, bool}\": must specify exactly one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`",
		"spec.devices[0].consumesCounters[0].counterSet: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
	}, lines)
	w := validation.Warnings(sliceGVK, map[string]any{"spec": map[string]any{"driver": "GPU.example.com"}}, nil, validation.Options{})
	assert.Equal(t, []string{`spec.driver: driver names should be lowercase; "GPU.example.com" contains uppercase characters`}, w)
}

// TestSliceScalesLinearly: a slice's unbounded parts are a device's attributes and capacities
// (counted, then each validated), node selector terms and the devices list before its limit.
func TestSliceScalesLinearly(t *testing.T) {
	attrs := func(n int) map[string]any {
		m := map[string]any{}
		for i := 0; i < n; i++ {
			m[fmt.Sprintf("example.com/a%d", i)] = map[string]any{"int": int64(i), "bool": true}
		}
		return m
	}
	terms := func(n int) []any {
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, map[string]any{"matchExpressions": []any{map[string]any{"key": "bad key", "operator": "In", "values": []any{"a"}}}})
		}
		return l
	}
	devices := func(n int) []any {
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, map[string]any{"name": "d", "taints": []any{map[string]any{"key": "k", "effect": "NoSchedule"}}})
		}
		return l
	}
	assertLinear(t, []scalingCase{
		{sliceGVK, func(n int) map[string]any {
			return map[string]any{"metadata": map[string]any{"name": "s"}, "spec": map[string]any{"driver": "d", "pool": map[string]any{"name": "p", "resourceSliceCount": int64(1)},
				"nodeSelector": map[string]any{"nodeSelectorTerms": terms(n)},
				"devices":      []any{map[string]any{"name": "d", "attributes": attrs(n), "capacity": attrs(n)}}}}
		}},
		{sliceGVK, func(n int) map[string]any {
			return map[string]any{"metadata": map[string]any{"name": "s"}, "spec": map[string]any{"driver": "d", "pool": map[string]any{"name": "p", "resourceSliceCount": int64(1)},
				"allNodes": true, "devices": devices(n)}}
		}},
	})
}

// A claim's /status update drops the device status of devices the new allocation no longer
// holds (status.devices goes when none is left) and the results' skipNodeOperations
// (DRAOptionalNodeOperations is off) unless the stored results have them.
func TestClaimStatusPrepare(t *testing.T) {
	result := func(dev string, skip bool) map[string]any {
		r := map[string]any{"request": "a", "driver": "d.example.com", "pool": "p", "device": dev}
		if skip {
			r["skipNodeOperations"] = []any{"*"}
		}
		return r
	}
	claim := func(results []any, devices ...string) map[string]any {
		st := map[string]any{}
		if results != nil {
			st["allocation"] = map[string]any{"devices": map[string]any{"results": results}}
		}
		var ds []any
		for _, d := range devices {
			ds = append(ds, map[string]any{"driver": "d.example.com", "pool": "p", "device": d})
		}
		if ds != nil {
			st["devices"] = ds
		}
		return map[string]any{"metadata": map[string]any{"name": "c", "namespace": "n"}, "status": st}
	}
	status := validation.Options{Subresource: "status"}
	stored := claim([]any{result("x", false), result("y", false)}, "x", "y")
	got := validation.PrepareForUpdate(claimGVK, claim([]any{result("x", true)}, "x", "y"), stored, status)
	assert.Equal(t, claim([]any{result("x", false)}, "x"), got, "y was deallocated; skipNodeOperations dropped")
	got = validation.PrepareForUpdate(claimGVK, claim(nil, "x", "y"), stored, status)
	assert.Equal(t, claim(nil), got, "deallocated: no device status left")
	withSkip := claim([]any{result("x", true)}, "x")
	assert.Equal(t, withSkip, validation.PrepareForUpdate(claimGVK, withSkip, withSkip, status), "stored with skipNodeOperations: kept")
}

// A claim's /status: an allocation once set is immutable (the declarative error replaces the
// hand-written one), reservations need an allocation, device status names allocated devices.
func TestClaimStatusErrors(t *testing.T) {
	base := map[string]any{"metadata": map[string]any{"name": "c", "namespace": "n", "resourceVersion": "1"},
		"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{"name": "a", "exactly": map[string]any{"deviceClassName": "c"}}}}}}
	with := func(st map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		out["status"] = st
		return out
	}
	alloc := func(dev string) map[string]any {
		return map[string]any{"devices": map[string]any{"results": []any{map[string]any{"request": "a", "driver": "d.example.com", "pool": "p", "device": dev}}}}
	}
	lines := func(errs []*field.Error) []string {
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	status := validation.Options{Subresource: "status"}
	got := validation.ValidateUpdate(claimGVK, with(map[string]any{"allocation": alloc("y")}), with(map[string]any{"allocation": alloc("x")}), status)
	assert.Equal(t, []string{"status.allocation: Invalid value: null: field cannot be modified once set"}, lines(got))
	got = validation.ValidateUpdate(claimGVK, with(map[string]any{"reservedFor": []any{map[string]any{"resource": "pods", "name": "p", "uid": "u"}},
		"devices": []any{map[string]any{"driver": "d.example.com", "pool": "p", "device": "x"}}}), with(map[string]any{}), status)
	assert.Equal(t, []string{
		`status.devices[0]: Invalid value: {"Driver":"d.example.com","Pool":"p","Device":"x","ShareID":""}: must be an allocated device in the claim`,
		"status.reservedFor: Forbidden: may not be specified when `allocated` is not set",
	}, lines(got))
	assert.Empty(t, validation.ValidateUpdate(claimGVK, with(map[string]any{"allocation": alloc("x"),
		"devices": []any{map[string]any{"driver": "d.example.com", "pool": "p", "device": "x"}}}), with(map[string]any{}), status))
}

// TestClaimStatusScalesLinearly: status.devices has no limit; each entry's conditions are
// counted, then validated.
func TestClaimStatusScalesLinearly(t *testing.T) {
	claim := func(n int) map[string]any {
		var devices, conds []any
		for i := 0; i < n; i++ {
			conds = append(conds, map[string]any{"type": "Ready", "status": "Maybe"})
		}
		for i := 0; i < n; i++ {
			devices = append(devices, map[string]any{"driver": "d.example.com", "pool": "p", "device": "x", "conditions": conds[:1],
				"networkData": map[string]any{"ips": []any{"10.0.0.1/24", "10.0.0.1/24"}}})
		}
		devices = append(devices, map[string]any{"driver": "d", "pool": "p", "device": "y", "conditions": conds})
		return map[string]any{"metadata": map[string]any{"name": "c", "namespace": "n"}, "status": map[string]any{"devices": devices}}
	}
	status := validation.Options{Subresource: "status"}
	old := map[string]any{"metadata": map[string]any{"name": "c", "namespace": "n"}}
	small, large := claim(1000), claim(2000)
	a := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(claimGVK, small, old, status) })
	b := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(claimGVK, large, old, status) })
	assert.LessOrEqual(t, b, 2.2*a+10, "%v allocations for 1000 device status entries, %v for 2000", a, b)
}
