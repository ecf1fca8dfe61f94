// Package labels is label selection as apimachinery's pkg/labels and metav1's
// LabelSelectorAsSelector do it: the string syntax of list requests and kubectl
// (`a=b,c!=d,e in (f,g),!h`), metav1.LabelSelector objects (matchLabels and
// matchExpressions) read from the object model, and matching a set of labels.
// Reference: k8s.io/apimachinery v0.37.2 pkg/labels/selector.go and
// pkg/apis/meta/v1/helpers.go.
//
// A Selector is a conjunction of Requirements sorted by key, or Nothing. The
// zero Selector is Everything: it has no requirement and matches every set of
// labels. FromLabelSelector(nil) is Nothing, as LabelSelectorAsSelector(nil) is;
// an empty LabelSelector ({}) is Everything.
//
// # Usage
//
//	sel, err := labels.Parse("app=web,tier in (front,back),!canary")
//	ok := sel.Matches(map[string]string{"app": "web", "tier": "front"})
//	spec, err := labels.FromLabelSelector(deployment["spec"].(map[string]any)["selector"])
//	ok = spec.MatchesObject(pod) // metadata.labels of pod
//
// # Invariants
//
// Selectors are immutable values, safe for concurrent use; nothing here modifies its
// input. Requirements are sorted by key with a stable sort, so String, Requirements and
// errors are deterministic (LabelSelectorAsSelector walks matchLabels in Go's random map
// order and so reports, among several invalid matchLabels, a random one first; here the
// first in key order is reported).
//
// # Errors
//
// Parse returns apimachinery's messages word for word ("unable to parse requirement: ...",
// "found ',', expected: identifier after ','", ...), and the invalid key or value errors
// of NewRequirement as field errors (an aggregate of *field.Error); FromLabelSelector
// returns `"X" is not a valid label selector operator` for an unknown operator and the
// NewRequirement errors, and an error for a selector that is not of the metav1 shape
// (non-string values, a list where an object belongs).
package labels
