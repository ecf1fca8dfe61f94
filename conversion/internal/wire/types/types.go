// Package types mirrors the type name of k8s.io/apimachinery/pkg/types.UID (see package wire).
package types

// UID is a uid as the apiserver's types name it.
type UID string
