// Package controllers runs kube-controller-manager's ReplicaSet controller
// (k8s.io/kubernetes v1.37.2 pkg/controller/replicaset) over a fake clientset and
// informer indexers next to writepath's controllers/replicaset on the same seeded random
// histories, and demands the same writes and statuses at every sync.
package controllers
