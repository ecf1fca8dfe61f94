//go:build tools

// This file pins the reference modules the differential suites compare against, so that
// `go mod tidy` keeps them while suites are added one by one. It is never built.
package conformance

import (
	_ "gopkg.in/evanphx/json-patch.v4"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	_ "k8s.io/apimachinery/pkg/api/errors"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	_ "k8s.io/apimachinery/pkg/util/jsonmergepatch"
	_ "k8s.io/apimachinery/pkg/util/managedfields"
	_ "k8s.io/apimachinery/pkg/util/resourceversion"
	_ "k8s.io/apimachinery/pkg/util/strategicpatch"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	_ "k8s.io/client-go/applyconfigurations"
	_ "sigs.k8s.io/structured-merge-diff/v6/merge"
)
