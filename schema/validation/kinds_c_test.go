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
