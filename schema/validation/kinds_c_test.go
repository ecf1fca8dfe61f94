package validation_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// fuzzKindsC are the kinds of the certificates, storage migration, resource, aggregation and
// review groups FuzzValidate runs too.
var fuzzKindsC = []schema.GroupVersionKind{
	{Group: "storagemigration.k8s.io", Version: "v1", Kind: "StorageVersionMigration"},
	{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"},
	{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceTaintRule"},
	{Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest"},
}

// A local APIService (no spec.service) is created Available at the request's time, as
// kube-aggregator's PrepareForCreate marks it; one backed by a service is left alone.
func TestAPIServiceLocalIsAvailable(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}
	local := map[string]any{"metadata": map[string]any{"name": "v1.example.com"}, "spec": map[string]any{"group": "example.com", "version": "v1"}}
	now := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
	got := validation.PrepareForCreate(gvk, local, validation.Options{Now: now})
	assert.Equal(t, map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "Local",
		"message": "Local APIServices are always available", "lastTransitionTime": "2026-12-04T03:00:00Z"}}}, got["status"], "a local APIService")
	assert.NotContains(t, local, "status", "the request is not modified")

	remote := map[string]any{"metadata": map[string]any{"name": "v1.example.com"}, "spec": map[string]any{"group": "example.com", "version": "v1",
		"service": map[string]any{"namespace": "ns", "name": "svc"}}}
	assert.Equal(t, remote, validation.PrepareForCreate(gvk, remote, validation.Options{Now: now}), "an APIService backed by a service")
}

// A DeviceTaintRule update that changes the effect but leaves timeAdded as stored gets the
// request's time (to the second); one that sets its own time, or keeps the effect, keeps it.
func TestDeviceTaintRuleEffectChangeBumpsTimeAdded(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceTaintRule"}
	rule := func(effect string, at any) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "r"}, "spec": map[string]any{"taint": map[string]any{"key": "k", "effect": effect, "timeAdded": at}}}
	}
	now := time.Date(2026, 12, 4, 3, 0, 0, 500_000_000, time.UTC)
	old := rule("NoSchedule", "2023-11-14T22:13:20Z")
	obj := rule("NoExecute", "2023-11-14T22:13:20Z")
	got := validation.PrepareForUpdate(gvk, obj, old, validation.Options{Now: now})
	assert.Equal(t, rule("NoExecute", "2026-12-04T03:00:00Z"), got, "effect changed, time left as stored")
	assert.Equal(t, rule("NoExecute", "2023-11-14T22:13:20Z"), obj, "the request is not modified")
	own := rule("NoExecute", "2024-01-01T00:00:00Z")
	assert.Equal(t, own, validation.PrepareForUpdate(gvk, own, old, validation.Options{Now: now}), "the client's own time")
	same := rule("NoSchedule", "2023-11-14T22:13:20Z")
	assert.Equal(t, same, validation.PrepareForUpdate(gvk, same, old, validation.Options{Now: now}), "the effect unchanged")
	assert.Equal(t, obj, validation.PrepareForUpdate(gvk, obj, old, validation.Options{Now: now, Subresource: "status"}), "the status subresource")
}
