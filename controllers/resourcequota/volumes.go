package resourcequota

import (
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/schema"
)

// --- persistentvolumeclaims (core persistent_volume_claims.go; VolumeAttributesClass and
// RecoverVolumeExpansionFailure on, as in 1.37) ---

const storageClassSuffix = ".storageclass.storage.k8s.io/"

var pvcResources = []string{"persistentvolumeclaims", "requests.storage"}

var pvcEvaluator = &evaluator{
	gr: schema.GroupVersionResource{Resource: "persistentvolumeclaims"},
	matching: func(in []string) []string {
		var out []string
		for _, x := range in {
			if x == "count/persistentvolumeclaims" || x == pvcResources[0] || x == pvcResources[1] {
				out = append(out, x)
				continue
			}
			for _, r := range pvcResources {
				if strings.HasSuffix(x, storageClassSuffix+r) {
					out = append(out, x)
					break
				}
			}
		}
		return out
	},
	scope: pvcMatchesScope,
	usage: pvcUsage,
	handles: func(op Operation, sub string, _, _ map[string]any) bool {
		switch sub {
		case "":
			return op == Create || op == Update
		case "status":
			// RequiresQuotaReplenish compares the two claims' allocatedResources.Storage()
			// pointers, which always differ.
			return true
		}
		return false
	},
}

// claimClass is storagehelpers.GetPersistentVolumeClaimClass: the beta annotation, then
// spec.storageClassName.
func claimClass(pvc map[string]any) string {
	meta, _ := pvc["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	if v, ok := ann["volume.beta.kubernetes.io/storage-class"].(string); ok {
		return v
	}
	spec, _ := pvc["spec"].(map[string]any)
	s, _ := spec["storageClassName"].(string)
	return s
}

func pvcUsage(pvc map[string]any, _ time.Time) (ResourceList, error) {
	out := ResourceList{"persistentvolumeclaims": one, "count/persistentvolumeclaims": one}
	class := claimClass(pvc)
	if class != "" {
		out[class+storageClassSuffix+"persistentvolumeclaims"] = one
	}
	spec, _ := pvc["spec"].(map[string]any)
	res, _ := spec["resources"].(map[string]any)
	requests := readList(res["requests"])
	req, ok := requests["storage"]
	if !ok {
		return out, nil
	}
	storage := wholeBytes(req)
	st, _ := pvc["status"].(map[string]any)
	if alloc := readList(st["allocatedResources"]); len(alloc) > 0 {
		if a, ok := alloc["storage"]; ok && a.Cmp(storage) > 0 {
			storage = wholeBytes(a)
		}
	}
	out["requests.storage"] = storage
	if class != "" {
		out[class+storageClassSuffix+"requests.storage"] = storage
	}
	return out, nil
}

// wholeBytes is getStorageUsage's roundUpFunc: a request counted in whole bytes (the value
// itself when it already is one).
func wholeBytes(q quantity.Quantity) quantity.Quantity {
	if r, exact := q.RoundUp(0); !exact {
		return r
	}
	return q
}

// vacNames is getReferencedVolumeAttributesClassNames: the classes a claim names in
// spec.volumeAttributesClassName, status.currentVolumeAttributesClassName and
// status.modifyVolumeStatus.targetVolumeAttributesClassName.
func vacNames(pvc map[string]any) map[string]bool {
	out := map[string]bool{}
	spec, _ := pvc["spec"].(map[string]any)
	st, _ := pvc["status"].(map[string]any)
	if s, _ := spec["volumeAttributesClassName"].(string); s != "" {
		out[s] = true
	}
	if s, _ := st["currentVolumeAttributesClassName"].(string); s != "" {
		out[s] = true
	}
	mod, _ := st["modifyVolumeStatus"].(map[string]any)
	if s, _ := mod["targetVolumeAttributesClassName"].(string); s != "" {
		out[s] = true
	}
	return out
}

func pvcMatchesScope(sel ScopeSelector, pvc map[string]any) (bool, error) {
	if sel.ScopeName != "VolumeAttributesClass" {
		return false, nil
	}
	names := vacNames(pvc)
	if sel.Operator == "Exists" {
		return len(names) != 0, nil
	}
	req, err := scopeRequirement(sel)
	if err != nil {
		return false, err
	}
	if len(names) == 0 {
		return req.Matches(map[string]string{}), nil
	}
	for n := range names {
		if req.Matches(map[string]string{"VolumeAttributesClass": n}) {
			return true, nil
		}
	}
	return false, nil
}

// scopeRequirement is helper.ScopedResourceSelectorRequirementsAsSelector: the selector's
// scope name as a label key.
func scopeRequirement(sel ScopeSelector) (labels.Requirement, error) {
	var op labels.Operator
	switch sel.Operator {
	case "In":
		op = labels.In
	case "NotIn":
		op = labels.NotIn
	case "Exists":
		op = labels.Exists
	case "DoesNotExist":
		op = labels.DoesNotExist
	default:
		return labels.Requirement{}, fmt.Errorf("failed to parse and convert selector: %q is not a valid scope selector operator", sel.Operator)
	}
	r, err := labels.NewRequirement(sel.ScopeName, op, sel.Values)
	if err != nil {
		return labels.Requirement{}, fmt.Errorf("failed to parse and convert selector: %v", err)
	}
	return r, nil
}
