//go:build unix

package cluster_test

import "syscall"

// rolloutCPUSeconds is the process's CPU time so far (user and system, every thread: the
// garbage collector's too), for the rollout benchmarks' cpu-s/op.
func rolloutCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
