package validation

import (
	"math/rand"

	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/registry/apiservice"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/resource"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	"k8s.io/kubernetes/pkg/apis/storagemigration"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	svmstrategy "k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration"
)

// kube-aggregator's types are not in legacyscheme: the harness converts and defaults through it.
func init() { apiregistrationinstall.Install(legacyscheme.Scheme) }

// kindsCKinds are StorageVersionMigration, APIService and DeviceTaintRule (each with /status).
func kindsCKinds() []harnessKind {
	apiServices := apiservice.NewStrategy(legacyscheme.Scheme)
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "storagemigration.k8s.io", Version: "v1", Kind: "StorageVersionMigration"}, resource: "storageversionmigrations",
			seed: seedStorageVersionMigration, complete: true, stored: storageVersionMigrationRunning,
			create: svmstrategy.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": svmstrategy.Strategy, "status": svmstrategy.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}, resource: "apiservices",
			seed: seedAPIService, complete: true,
			create: apiServices, updates: map[string]rest.RESTUpdateStrategy{"": apiServices, "status": apiservice.NewStatusStrategy(legacyscheme.Scheme)}},
		{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceTaintRule"}, resource: "devicetaintrules",
			seed: seedDeviceTaintRule, complete: true, stored: deviceTaintRuleConditions,
			create: devicetaintrule.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": devicetaintrule.Strategy, "status": devicetaintrule.StatusStrategy}},
	}
}

func seedStorageVersionMigration(r *rand.Rand) runtime.Object {
	m := &storagemigrationv1.StorageVersionMigration{TypeMeta: metav1.TypeMeta{APIVersion: "storagemigration.k8s.io/v1", Kind: "StorageVersionMigration"}, ObjectMeta: seedMeta(r)}
	m.Spec.Resource = pick(r, []metav1.GroupResource{{Group: "apps", Resource: "deployments"}, {Resource: "secrets"}, {Group: "example.com", Resource: "widgets"}})
	return m
}

// storageVersionMigrationRunning gives most stored migrations the status the migrator writes:
// the resourceVersion it migrates to and Running, Succeeded or Failed.
func storageVersionMigrationRunning(r *rand.Rand, obj runtime.Object) {
	m := obj.(*storagemigration.StorageVersionMigration)
	if r.Intn(4) == 0 {
		return
	}
	m.Status.ResourceVersion = pick(r, []string{"12345", "7"})
	at := metav1.Unix(1_700_000_000, 0)
	for _, t := range pick(r, [][]string{{"Running"}, {"Running", "Succeeded"}, {"Failed"}}) {
		m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: "Migration" + t, LastTransitionTime: at})
	}
}

func seedAPIService(r *rand.Rand) runtime.Object {
	a := &apiregistrationv1.APIService{TypeMeta: metav1.TypeMeta{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService"}, ObjectMeta: seedMeta(r)}
	a.Spec.Group, a.Spec.Version = pick(r, []string{"metrics.k8s.io", "example.com", ""}), pick(r, []string{"v1", "v1beta1"})
	if a.Spec.Group == "" {
		a.Spec.Version = "v1"
	}
	a.Name, a.GenerateName = a.Spec.Version+"."+a.Spec.Group, ""
	a.Spec.GroupPriorityMinimum, a.Spec.VersionPriority = pick(r, []int32{100, 1000, 20000}), pick(r, []int32{15, 100})
	if r.Intn(3) != 0 {
		port := pick(r, []int32{443, 8443})
		a.Spec.Service = &apiregistrationv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: &port}
		if r.Intn(2) == 0 {
			a.Spec.CABundle = []byte("-----BEGIN CERTIFICATE-----\n")
		} else {
			a.Spec.InsecureSkipTLSVerify = r.Intn(2) == 0
		}
	}
	return a
}

func seedDeviceTaintRule(r *rand.Rand) runtime.Object {
	d := &resourcev1.DeviceTaintRule{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceTaintRule"}, ObjectMeta: seedMeta(r)}
	if r.Intn(4) != 0 {
		sel := &resourcev1.DeviceTaintSelector{}
		if r.Intn(3) != 0 {
			sel.Driver = ptr(pick(r, []string{"gpu.example.com", "dra.example.com"}))
		}
		if r.Intn(2) == 0 {
			sel.Pool = ptr(pick(r, []string{"node-1", "rack-a/node-2"}))
		}
		if r.Intn(2) == 0 {
			sel.Device = ptr(pick(r, []string{"gpu-0", "nic1"}))
		}
		d.Spec.DeviceSelector = sel
	}
	d.Spec.Taint = resourcev1.DeviceTaint{Key: pick(r, []string{"example.com/unhealthy", "maintenance"}),
		Effect: pick(r, []resourcev1.DeviceTaintEffect{"NoSchedule", "NoExecute", "None"})}
	if r.Intn(2) == 0 {
		d.Spec.Taint.Value = pick(r, []string{"true", "firmware-update"})
	}
	if r.Intn(2) == 0 {
		at := metav1.Unix(1_700_000_000, 0)
		d.Spec.Taint.TimeAdded = &at
	}
	return d
}

// deviceTaintRuleConditions gives half the stored rules the EvictionInProgress condition the
// eviction controller writes.
func deviceTaintRuleConditions(r *rand.Rand, obj runtime.Object) {
	d := obj.(*resource.DeviceTaintRule)
	if r.Intn(2) == 0 {
		return
	}
	d.Status.Conditions = []metav1.Condition{{Type: "EvictionInProgress", Status: metav1.ConditionFalse, Reason: "Completed", LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}
}
