package resourcequota

import (
	"strings"
	"time"

	"github.com/writepath/writepath/schema"
)

// --- resourceclaims (core resource_claims.go, DynamicResourceAllocation on) ---

const (
	claimCountName   = "count/resourceclaims.resource.k8s.io"
	claimsPerClass   = ".deviceclass.resource.k8s.io/devices"
	allocationMaxAll = 32 // resourceapi.AllocationResultsMaxSize: what allocationMode All counts
)

var claimEvaluator = &evaluator{
	gr: schema.GroupVersionResource{Group: "resource.k8s.io", Resource: "resourceclaims"},
	matching: func(in []string) []string {
		var out []string
		for _, x := range in {
			if x == claimCountName || strings.HasSuffix(x, claimsPerClass) {
				out = append(out, x)
			}
		}
		return out
	},
	usage: claimUsage,
	handles: func(op Operation, sub string, _, _ map[string]any) bool {
		return sub == "" && (op == Create || op == Update)
	},
}

// deviceCount is the devices one request (or subrequest) of a claim asks for: count for
// ExactCount, 32 for All, 0 otherwise.
func deviceCount(r map[string]any) int64 {
	switch r["allocationMode"] {
	case "ExactCount":
		switch c := r["count"].(type) {
		case int64:
			return c
		case float64:
			return int64(c)
		}
	case "All":
		return allocationMaxAll
	}
	return 0
}

// claimUsage counts the claim and the devices it requests per device class: a request's
// exactly (v1, v1beta2) or the request itself (v1beta1's deviceClassName), a firstAvailable
// request the largest of its subrequests per class.
func claimUsage(claim map[string]any, _ time.Time) (ResourceList, error) {
	out := ResourceList{claimCountName: one}
	spec, _ := claim["spec"].(map[string]any)
	devices, _ := spec["devices"].(map[string]any)
	requests, _ := devices["requests"].([]any)
	addTo := func(name string, n int64) error {
		q := intQuantity(n)
		if cur, ok := out[name]; ok {
			s, err := cur.Add(q)
			if err != nil {
				return err
			}
			q = s
		}
		out[name] = q
		return nil
	}
	for _, x := range requests {
		r, _ := x.(map[string]any)
		if subs, _ := r["firstAvailable"].([]any); len(subs) > 0 {
			maxByClass := map[string]int64{}
			var order []string
			for _, y := range subs {
				sr, _ := y.(map[string]any)
				class, _ := sr["deviceClassName"].(string)
				name := class + claimsPerClass
				n := deviceCount(sr)
				cur, seen := maxByClass[name]
				if !seen {
					order = append(order, name)
				}
				if n > cur || !seen && n > 0 {
					maxByClass[name] = n
				}
			}
			for _, name := range order {
				if n, ok := maxByClass[name]; ok && n > 0 {
					if err := addTo(name, n); err != nil {
						return nil, err
					}
				}
			}
			continue
		}
		exact, _ := r["exactly"].(map[string]any)
		if exact == nil {
			if _, ok := r["deviceClassName"]; !ok {
				continue
			}
			exact = r // v1beta1: the request is the exact request
		}
		class, _ := exact["deviceClassName"].(string)
		if err := addTo(class+claimsPerClass, deviceCount(exact)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
