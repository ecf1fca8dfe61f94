//go:build !unix

package cluster_test

// rolloutCPUSeconds reads no CPU time where getrusage is missing: cpu-s/op reads 0.
func rolloutCPUSeconds() float64 { return 0 }
