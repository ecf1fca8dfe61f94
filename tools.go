//go:build tools

// This file pins the library's allowed dependencies (shared/DESIGN.md) so that `go mod tidy`
// keeps them while packages are added. It is never built.
package writepath

import (
	_ "github.com/evanphx/json-patch/v5"
	_ "github.com/google/cel-go/cel"
	_ "github.com/google/cel-go/ext"
	_ "github.com/stretchr/testify/assert"
	_ "github.com/stretchr/testify/require"
	_ "sigs.k8s.io/json"
	_ "sigs.k8s.io/structured-merge-diff/v6/merge"
	_ "sigs.k8s.io/structured-merge-diff/v6/typed"
	_ "sigs.k8s.io/yaml"
)
