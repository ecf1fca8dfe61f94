// Package versions is the differential suite of writepath's versions package
// against the k8s.io reference: CompareResourceVersion against
// k8s.io/apimachinery/pkg/util/resourceversion on a seeded corpus (digits,
// leading zeros, empty, huge, signs, spaces, non-ASCII digits); precondition
// and conflict texts against k8s.io/apiserver's storage.Preconditions.Check,
// storeerr.InterpretUpdateError and rest.BeforeDelete; the custom-resource
// generation rule against apiextensions-apiserver's customResourceStrategy; and
// the quantity equality of built-in generation rules against
// resource.ParseQuantity and Quantity.Cmp.
//
// The normal run uses a fixed sample; WRITEPATH_LONG=1 runs at least 100k cases
// per test. Every disagreement fails the test with the input.
package versions
