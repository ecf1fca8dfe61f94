package registry_test

import (
	"time"

	"github.com/writepath/writepath/admission"
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

// fixedEnv is the chain's effects at a fixed time, with uid "uid-1".
func fixedEnv() admission.Env {
	n := 0
	return admission.Env{
		Now:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		UID:    func() string { return "uid-1" },
		Random: func(int) int { n++; return n },
	}
}
