// Package labels compares writepath's internal/labels with k8s.io/apimachinery's
// labels.Parse and metav1.LabelSelectorAsSelector on seeded random selectors and label
// sets: errors, String and Matches must agree.
package labels
