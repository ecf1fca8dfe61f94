// Package envtest is a drop-in for controller-runtime's envtest.Environment backed by writepath's
// in-memory API server (package cluster) instead of a kube-apiserver and etcd: a suite switches by
// changing one import,
//
//	import "github.com/writepath/writepath/envtest" // was sigs.k8s.io/controller-runtime/pkg/envtest
//
// and gets a server that starts in milliseconds and runs the garbage collector, the namespace
// controller, the Deployment and ReplicaSet controllers and the resource quota controller, which
// envtest's control plane does not. A suite that expects its Deployments left as it wrote them
// (no ReplicaSets, no status writes that make its next update a conflict) sets Options:
// cluster.Options{NoWorkloadControllers: true}; one that expects ResourceQuotas without status,
// NoResourceQuotaController; one that expects envtest's control plane to the letter (no
// "default" ServiceAccounts, Pods admitted without one) NoServiceAccountController and
// DisableAdmissionPlugins: []string{"ServiceAccount"}, as envtest's kube-apiserver runs with
// --disable-admission-plugins=ServiceAccount.
//
// The fields that matter keep their names and meaning: CRDDirectoryPaths, CRDs,
// ErrorIfCRDPathMissing, CRDInstallOptions, WebhookInstallOptions, Scheme, UseExistingCluster.
// CRDs are read by controller-runtime's own ReadCRDFiles and installed as its InstallCRDs installs
// them (the conversion webhook of the scheme's convertible kinds, create or update, wait for
// discovery), but in process, through the cluster's request path with the user and user agent a
// client-go client sends: the same CRDs are stored and returned (TestInstallCRDsAsControllerRuntime
// compares both ways), without a client, RESTMapper or discovery poll. Webhook configurations are
// installed by controller-runtime's WebhookInstallOptions.Install. With UseExistingCluster,
// controller-runtime's InstallCRDs runs unchanged. Fields about binaries and the control plane processes
// (ControlPlane, BinaryAssetsDirectory, DownloadBinaryAssets, ...) have nothing to configure here
// and are absent.
//
// Clients talk to it as they talk to kube-apiserver: client-go's typed clients and
// controller-runtime send protobuf for built-in kinds, JSON for the rest.
//
// # Usage
//
//	env := &envtest.Environment{CRDDirectoryPaths: []string{"config/crd/bases"}}
//	cfg, err := env.Start()
//	defer env.Stop()
//	k8sClient, err := client.New(cfg, client.Options{Scheme: scheme})
//
// # Invariants
//
// Start serves a fresh server holding only what kube-apiserver creates when it starts
// (cluster.Bootstrap: the system namespaces, the default/kubernetes Service, the RBAC bootstrap
// policy, ...), as envtest's kube-apiserver does, on a loopback HTTPS port; every Start
// makes a new one, so suites never see each other's objects. Stop closes it. The Environment is
// not safe for concurrent Start and Stop.
//
// # Errors
//
// Start returns the errors controller-runtime's does for CRD and webhook installation (a missing
// CRD path with ErrorIfCRDPathMissing, a CRD the server refuses) and a bootstrap error if the
// server refuses its own namespaces.
package envtest
