package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
)

// kinds are the kinds under test, with their seeds and strategies. Add a kind with a line.
func kinds() []harnessKind {
	return append([]harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Pod"}, resource: "pods", seed: seedPod,
			create: pod.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": pod.Strategy, "status": pod.StatusStrategy,
				"resize": pod.ResizeStrategy, "ephemeralcontainers": pod.EphemeralContainersStrategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "PodTemplate"}, resource: "podtemplates", seed: seedPodTemplate,
			create: podtemplate.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": podtemplate.Strategy}},
	}, otherKinds()...)
}

// seedPodSpec is a valid pod spec, richer or plainer at random, so that mutations land next to
// valid values of most fields.
func seedPodSpec(r *rand.Rand) v1.PodSpec {
	c := v1.Container{Name: "c", Image: "nginx"}
	spec := v1.PodSpec{Containers: []v1.Container{c}}
	if r.Intn(2) == 0 {
		return spec
	}
	spec.Containers[0] = v1.Container{
		Name: "c", Image: "nginx:1.27", Command: []string{"nginx"}, Args: []string{"-g", "daemon off;"},
		Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 80}},
		Env:   []v1.EnvVar{{Name: "A", Value: "b"}, {Name: "POD", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")},
			Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("128Mi")},
		},
		VolumeMounts:   []v1.VolumeMount{{Name: "data", MountPath: "/data"}},
		LivenessProbe:  &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}},
		ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(80)}}},
	}
	spec.InitContainers = []v1.Container{{Name: "init", Image: "busybox", Command: []string{"true"}}}
	spec.Volumes = []v1.Volume{
		{Name: "data", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
		{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cfg"}}}},
	}
	spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpEqual, Value: "v", Effect: v1.TaintEffectNoSchedule}}
	spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
	spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	return spec
}

func seedPod(r *rand.Rand) runtime.Object {
	return &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec:       seedPodSpec(r),
	}
}

func seedPodTemplate(r *rand.Rand) runtime.Object {
	return &v1.PodTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PodTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Template: v1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       seedPodSpec(r),
		},
	}
}

// rich reports whether a seeded pod is the richer of seedPodSpec's two shapes.
func rich(obj runtime.Object) bool {
	p, ok := obj.(*v1.Pod)
	return ok && len(p.Spec.Volumes) > 0
}
