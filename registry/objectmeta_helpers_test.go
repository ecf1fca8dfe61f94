package registry_test

import (
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// cmRequest is the create of ConfigMap ns1/cm1 the metadata-step tests start from.
func cmRequest() admission.Request {
	return admission.Request{
		Operation: admission.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      "cm1", Namespace: "ns1",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm1", "namespace": "ns1", "labels": map[string]any{"app": "x"}},
			"data":     map[string]any{"a": "1"}},
		UserInfo: admission.UserInfo{Username: "alice", Groups: []string{"dev"}},
	}
}

// fixedNow is the time of the metadata-step tests' requests.
var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixedEnv is the chain's effects at fixedNow.
func fixedEnv() admission.Env { return admission.Env{Now: fixedNow} }

// registrySteps is registry.Admit's steps (system fields and concurrency) at fixedNow, with uid
// "uid-1" and generated names of the apiserver's alphabet in sequence from its second letter.
func registrySteps() registry.AdmitOptions {
	n := 0
	return registry.AdmitOptions{SystemFields: true, Concurrency: true, Now: fixedNow,
		UID:          func() string { return "uid-1" },
		GenerateName: func(base string) string { return registry.GenerateName(base, func(int) int { n++; return n }) }}
}

func nsList() []map[string]any {
	return []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns1", "labels": map[string]any{"team": "a"}}}}
}
