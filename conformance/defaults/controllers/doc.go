// Package controllers runs kube-controller-manager's ReplicaSet and Deployment controllers
// (k8s.io/kubernetes v1.37.2 pkg/controller/replicaset, pkg/controller/deployment) over a fake
// clientset and informer indexers next to writepath's controllers/replicaset and
// controllers/deployment on the same seeded random histories, and demands the same writes and
// statuses at every sync. make test runs a seeded sample; WRITEPATH_LONG=1 (make
// conformance-long) runs 2,100 ReplicaSet and 2,000 Deployment histories of 50 syncs each.
//
// Last long Deployment run (2026-12-02, shared 2-core machine at load ~30, niced: 1,083 s wall,
// about 1.3 ms CPU per sync): 100,000 syncs, 176,475 writes, 0 disagreements:
//
//	cd conformance/defaults && WRITEPATH_LONG=1 go test -count=1 -timeout 3h -run TestDeploymentSyncAgainstController -v ./controllers/
package controllers
