package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
)

// Seeds of the core kinds other than Pod and PodTemplate.

func coreKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, resource: "configmaps", seed: seedConfigMap, complete: true,
			create: configmap.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": configmap.Strategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Secret"}, resource: "secrets", seed: seedSecret, complete: true,
			create: secret.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": secret.Strategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, resource: "serviceaccounts", seed: seedServiceAccount, complete: true,
			create: serviceaccount.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": serviceaccount.Strategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, resource: "namespaces", seed: seedNamespace, complete: true,
			create: namespace.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": namespace.Strategy,
				"status": namespace.StatusStrategy, "finalize": namespace.FinalizeStrategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Service"}, resource: "services", seed: seedService,
			complete: true, create: service.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": service.Strategy, "status": service.StatusStrategy}},
	}
}

// seedMeta is valid metadata with, at random, labels, annotations, finalizers or a generateName.
func seedMeta(r *rand.Rand) metav1.ObjectMeta {
	om := metav1.ObjectMeta{Name: pick(r, []string{"web", "db", "app-1", "x", "my-service"})}
	if r.Intn(2) == 0 {
		om.Labels = map[string]string{"app": "web", "example.com/tier": pick(r, []string{"a", ""})}
	}
	if r.Intn(3) == 0 {
		om.Annotations = map[string]string{"note": "x", "example.com/owner": "team"}
	}
	if r.Intn(4) == 0 {
		om.Finalizers = []string{pick(r, []string{"example.com/cleanup", "kubernetes", "orphan"})}
	}
	if r.Intn(6) == 0 {
		om.GenerateName = om.Name + "-"
	}
	return om
}

func seedConfigMap(r *rand.Rand) runtime.Object {
	cm := &v1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: seedMeta(r)}
	if r.Intn(4) != 0 {
		cm.Data = map[string]string{"config.yaml": "a: 1", "KEY_NAME": "v", ".hidden": ""}
	}
	if r.Intn(3) == 0 {
		cm.BinaryData = map[string][]byte{"blob.bin": {0, 1}}
	}
	if r.Intn(3) == 0 {
		b := r.Intn(2) == 0
		cm.Immutable = &b
	}
	return cm
}

func seedSecret(r *rand.Rand) runtime.Object {
	s := &v1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: seedMeta(r)}
	data := map[string][]byte{"password": []byte("s3cret"), "username": []byte("me")}
	switch r.Intn(7) {
	case 0:
		s.Type = v1.SecretTypeTLS
		data = map[string][]byte{"tls.crt": []byte("not a cert"), "tls.key": []byte("not a key")}
	case 1:
		s.Type = v1.SecretTypeDockerConfigJson
		data = map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}
	case 2:
		s.Type = v1.SecretTypeDockercfg
		data = map[string][]byte{".dockercfg": []byte(`{}`)}
	case 3:
		s.Type = v1.SecretTypeBasicAuth
	case 4:
		s.Type = v1.SecretTypeSSHAuth
		data = map[string][]byte{"ssh-privatekey": []byte("key")}
	case 5:
		s.Type = v1.SecretTypeServiceAccountToken
		s.Annotations = map[string]string{"kubernetes.io/service-account.name": "default"}
	}
	if r.Intn(4) != 0 {
		s.Data = data
	}
	if r.Intn(4) == 0 {
		s.StringData = map[string]string{"extra": "plain"}
	}
	if r.Intn(3) == 0 {
		b := r.Intn(2) == 0
		s.Immutable = &b
	}
	return s
}

func seedServiceAccount(r *rand.Rand) runtime.Object {
	sa := &v1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: seedMeta(r)}
	if r.Intn(4) == 0 {
		sa.Annotations = map[string]string{"kubernetes.io/enforce-mountable-secrets": "true"}
	}
	if r.Intn(2) == 0 {
		sa.Secrets = []v1.ObjectReference{{Name: "tok"}}
		sa.ImagePullSecrets = []v1.LocalObjectReference{{Name: "pull"}}
	}
	if r.Intn(2) == 0 {
		b := r.Intn(2) == 0
		sa.AutomountServiceAccountToken = &b
	}
	return sa
}

func seedNamespace(r *rand.Rand) runtime.Object {
	ns := &v1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: seedMeta(r)}
	if r.Intn(2) == 0 {
		ns.Spec.Finalizers = []v1.FinalizerName{v1.FinalizerName(pick(r, []string{"kubernetes", "example.com/x"}))}
	}
	if r.Intn(3) == 0 {
		ns.Status.Phase = v1.NamespacePhase(pick(r, []string{"Active", "Terminating"}))
	}
	return ns
}

func seedService(r *rand.Rand) runtime.Object {
	svc := &v1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: seedMeta(r),
		Spec: v1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []v1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	if r.Intn(2) == 0 {
		svc.Spec.Ports = append(svc.Spec.Ports, v1.ServicePort{Name: "https", Port: 443, Protocol: v1.ProtocolTCP, TargetPort: intstr.FromInt32(8443), AppProtocol: ptr("kubernetes.io/h2c")})
	}
	switch r.Intn(6) {
	case 0:
		svc.Spec.Type = v1.ServiceTypeNodePort
		svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
	case 1:
		svc.Spec.Type = v1.ServiceTypeLoadBalancer
		svc.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"}
		svc.Spec.LoadBalancerClass = ptr("example.com/lb")
		if r.Intn(2) == 0 {
			svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
			svc.Spec.HealthCheckNodePort = 30123
		}
	case 2:
		svc.Spec = v1.ServiceSpec{Type: v1.ServiceTypeExternalName, ExternalName: "db.example.com."}
	case 3:
		svc.Spec.ClusterIP = "None"
		svc.Spec.ClusterIPs = []string{"None"}
	case 4:
		svc.Spec.ClusterIP = "10.96.0.10"
		svc.Spec.ClusterIPs = []string{"10.96.0.10", "fd00::10"}
		svc.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
		svc.Spec.IPFamilyPolicy = ptr(v1.IPFamilyPolicyRequireDualStack)
		svc.Spec.ExternalIPs = []string{"192.0.2.7"}
	}
	if r.Intn(3) == 0 && svc.Spec.Type != v1.ServiceTypeExternalName {
		svc.Spec.SessionAffinity = v1.ServiceAffinityClientIP
		svc.Spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: ptr(int32(600))}}
	}
	if r.Intn(4) == 0 {
		svc.Spec.TrafficDistribution = ptr("PreferClose")
	}
	if r.Intn(3) == 0 {
		vip := v1.LoadBalancerIPModeVIP
		svc.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "203.0.113.5", IPMode: &vip}, {Hostname: "lb.example.com"}}
	}
	return svc
}
