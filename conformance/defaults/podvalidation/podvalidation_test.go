// Package podvalidation compares writepath's Pod /resize and /ephemeralcontainers strategies
// (apply.StrategyReset then apply.StrategyValidation) with the apiserver's
// (k8s.io/kubernetes/pkg/registry/core/pod ResizeStrategy and EphemeralContainersStrategy:
// PrepareForUpdate then ValidateUpdate, feature gates at their 1.37 defaults) on random pods:
// the 422's field errors, in order, and, when the write is valid, the spec and generation it
// leaves.
package podvalidation

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/versions"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// modelled matches the errors writepath models (the subresource checks, the part of the pod
// spec validation a resize can break, and each ephemeral container's own checks); a case where the reference also reports another error (the full
// pod validation both strategies run, which writepath does not model) is counted apart and not
// compared.
var modelled = regexp.MustCompile(`^(\[\]|spec|spec\.resources(\.requests|\.limits|\.claims|\.requests\[[^]]+\]|\.limits\[[^]]+\]|\.containers\[\d+\]\[[^]]+\]\.limits)?|spec\.volumes|spec\.(init)?[cC]ontainers(\[\d+\](\.name|\.resources\.(requests|limits))?)?): |` +
	`^spec\.ephemeralContainers: |` +
	`^spec\.ephemeralContainers\[\d+\]\.(name|image|targetContainerName|terminationMessagePolicy|imagePullPolicy|ports|resources|resizePolicy|restartPolicy|restartPolicyRules|livenessProbe|readinessProbe|startupProbe|lifecycle|volumeMounts\[\d+\]\.(subPath(Expr)?|name|mountPath)): ` +
	`|^spec\.initContainers\[\d+\]\.resizePolicy\[\d+\]\.restartPolicy: `)

// isModelled reports whether msg is one of the modelled errors.
var digits = regexp.MustCompile(`\d+`)

func isModelled(msg string) bool {
	return modelled.MatchString(msg)
}

type counts struct{ compared, invalid, outside, disagreements int }

func TestResizeDifferential(t *testing.T) {
	runDifferential(t, "resize", genResize)
}

func TestEphemeralContainersDifferential(t *testing.T) {
	runDifferential(t, "ephemeralcontainers", genEphemeral)
}

func caseCount() int {
	if os.Getenv("WRITEPATH_LONG") == "1" {
		return 100_000
	}
	return 400
}

func runDifferential(t *testing.T, sub string, gen func(r *rand.Rand) (old, new *v1.Pod)) {
	r := rand.New(rand.NewSource(37))
	var c counts
	shapes := map[string]int{} // the unmodelled errors, by path and type
	n := caseCount()
	for i := 0; i < n; i++ {
		old, new := gen(r)
		stored := store(t, old)
		legacyscheme.Scheme.Default(new)
		newV1 := toMap(t, new)
		storedMap := toMap(t, stored)

		// Reference: PrepareForUpdate then ValidateUpdate on internal pods (BeforeUpdate first
		// restores the stored generation).
		var oldInt, newInt api.Pod
		if err := legacyscheme.Scheme.Convert(stored, &oldInt, nil); err != nil {
			t.Fatal(err)
		}
		if err := legacyscheme.Scheme.Convert(new, &newInt, nil); err != nil {
			t.Fatal(err)
		}
		newInt.Generation = oldInt.Generation
		ctx := context.Background()
		var refErrs []string
		if sub == "resize" {
			pod.ResizeStrategy.PrepareForUpdate(ctx, &newInt, &oldInt)
			for _, e := range pod.ResizeStrategy.ValidateUpdate(ctx, &newInt, &oldInt) {
				refErrs = append(refErrs, e.Error())
			}
		} else {
			pod.EphemeralContainersStrategy.PrepareForUpdate(ctx, &newInt, &oldInt)
			for _, e := range pod.EphemeralContainersStrategy.ValidateUpdate(ctx, &newInt, &oldInt) {
				refErrs = append(refErrs, e.Error())
			}
		}
		outside := false
		for _, e := range refErrs {
			if !isModelled(e) {
				outside = true
				shapes[digits.ReplaceAllString(strings.SplitN(e, ": ", 3)[0]+": "+strings.SplitN(e, ": ", 3)[1], "N")]++
			}
		}
		if outside {
			c.outside++
			continue
		}

		// writepath.
		obj := copyMap(t, newV1)
		apply.StrategyReset(podGVK, sub)(obj, storedMap)
		var gotErrs []string
		for _, e := range validate(sub, obj, storedMap) {
			gotErrs = append(gotErrs, e)
		}
		c.compared++
		if len(refErrs) > 0 {
			c.invalid++
		}
		// The apiserver lists the errors of a resource map (requests and limits) in Go map
		// order, which is random; writepath in name order: compared as sets.
		sort.Strings(refErrs)
		sort.Strings(gotErrs)
		if strings.Join(refErrs, "\n|") != strings.Join(gotErrs, "\n|") {
			c.disagreements++
			if c.disagreements <= 5 {
				t.Errorf("case %d (%s): errors differ\nold: %s\nnew: %s\nreference: %q\nwritepath: %q", i, sub, js(storedMap), js(newV1), refErrs, gotErrs)
			}
			continue
		}
		if len(refErrs) > 0 {
			continue
		}
		var refV1 v1.Pod
		if err := legacyscheme.Scheme.Convert(&newInt, &refV1, nil); err != nil {
			t.Fatal(err)
		}
		ref := toMap(t, &refV1)
		if !versions.SemanticEqual(ref["spec"], obj["spec"]) || fmt.Sprint(meta(ref)["generation"]) != fmt.Sprint(meta(obj)["generation"]) {
			c.disagreements++
			if c.disagreements <= 5 {
				t.Errorf("case %d (%s): result differs\nold: %s\nnew: %s\nreference: %s\nwritepath: %s", i, sub, js(storedMap), js(newV1), js(ref), js(obj))
			}
		}
	}
	t.Logf("%s: %d cases, %d compared (%d invalid), %d outside the model (full pod validation: %v), %d disagreements",
		sub, n, c.compared, c.invalid, c.outside, shapes, c.disagreements)
}

func validate(sub string, obj, live map[string]any) []string {
	var out []string
	if sub == "resize" {
		for _, e := range apply.ValidatePodResize(obj, live) {
			out = append(out, e.Error())
		}
		return out
	}
	for _, e := range apply.ValidatePodEphemeralContainersUpdate(obj, live) {
		out = append(out, e.Error())
	}
	return out
}

// store is what the apiserver stores for a created pod: defaults, then PrepareForCreate (generation
// 1, status Pending with the QoS class), then the status a kubelet may have written.
func store(t *testing.T, p *v1.Pod) *v1.Pod {
	legacyscheme.Scheme.Default(p)
	var in api.Pod
	if err := legacyscheme.Scheme.Convert(p, &in, nil); err != nil {
		t.Fatal(err)
	}
	statuses := in.Status.ContainerStatuses
	pod.Strategy.PrepareForCreate(context.Background(), &in)
	in.Status.ContainerStatuses = statuses
	out := &v1.Pod{}
	if err := legacyscheme.Scheme.Convert(&in, out, nil); err != nil {
		t.Fatal(err)
	}
	out.APIVersion, out.Kind = "v1", "Pod"
	return out
}

func toMap(t *testing.T, v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		t.Fatal(err)
	}
	if m["apiVersion"] == nil {
		m["apiVersion"], m["kind"] = "v1", "Pod"
	}
	return m
}

func copyMap(t *testing.T, m map[string]any) map[string]any {
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func meta(m map[string]any) map[string]any { md, _ := m["metadata"].(map[string]any); return md }

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// ---- generators

var (
	cpus = []string{"100m", "200m", "0.1", "250m", "1", "500m"}
	mems = []string{"64Mi", "128Mi", "67108864", "1Gi"}
)

func pick[T any](r *rand.Rand, l []T) T { return l[r.Intn(len(l))] }

func resourceList(r *rand.Rand) v1.ResourceList {
	l := v1.ResourceList{}
	if r.Intn(2) == 0 {
		l[v1.ResourceCPU] = resource.MustParse(pick(r, cpus))
	}
	if r.Intn(2) == 0 {
		l[v1.ResourceMemory] = resource.MustParse(pick(r, mems))
	}
	if len(l) == 0 {
		return nil
	}
	return l
}

func requirements(r *rand.Rand) v1.ResourceRequirements {
	switch r.Intn(4) {
	case 0:
		return v1.ResourceRequirements{}
	case 1:
		// Guaranteed: requests = limits.
		l := resourceList(r)
		if l == nil {
			l = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")}
		}
		return v1.ResourceRequirements{Requests: l.DeepCopy(), Limits: l}
	}
	req := resourceList(r)
	lim := v1.ResourceList{}
	for k, q := range req {
		if r.Intn(2) == 0 {
			q2 := q.DeepCopy()
			q2.Add(q)
			lim[k] = q2
		}
	}
	if len(lim) == 0 {
		lim = nil
	}
	return v1.ResourceRequirements{Requests: req, Limits: lim}
}

func container(r *rand.Rand, name string) v1.Container {
	c := v1.Container{Name: name, Image: "registry.k8s.io/pause:3.10", Resources: requirements(r)}
	if r.Intn(4) == 0 {
		c.ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: pick(r, []v1.ResourceResizeRestartPolicy{v1.NotRequired, v1.RestartContainer})}}
	}
	return c
}

func basePod(r *rand.Rand) *v1.Pod {
	p := &v1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "1"}}
	n := 1 + r.Intn(2)
	for i := 0; i < n; i++ {
		p.Spec.Containers = append(p.Spec.Containers, container(r, fmt.Sprintf("c%d", i)))
	}
	if r.Intn(2) == 0 {
		ic := container(r, "i")
		ic.ResizePolicy = nil
		if r.Intn(2) == 0 {
			always := v1.ContainerRestartPolicyAlways
			ic.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, ic)
	}
	if r.Intn(10) == 0 {
		// Pod-level resources the defaulting completes (requests from the containers, limits when
		// every container has one).
		p.Spec.Resources = &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("8Gi")}}
	} else if r.Intn(5) == 0 {
		p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("4Gi")}}
		if r.Intn(2) == 0 {
			p.Spec.Resources.Limits = v1.ResourceList{v1.ResourceCPU: resource.MustParse("8")}
		}
	}
	switch r.Intn(20) {
	case 0:
		p.Spec.OS = &v1.PodOS{Name: v1.Windows}
	case 1:
		p.Annotations = map[string]string{"kubernetes.io/config.mirror": "x"}
	}
	if r.Intn(6) == 0 {
		for _, c := range p.Spec.Containers {
			cs := v1.ContainerStatus{Name: c.Name, Image: c.Image, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
			if r.Intn(2) == 0 {
				cs.Resources = c.Resources.DeepCopy()
			}
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
		}
	}
	return p
}

func genResize(r *rand.Rand) (*v1.Pod, *v1.Pod) {
	old := basePod(r)
	stored := old.DeepCopy()
	legacyscheme.Scheme.Default(stored)
	new := stored.DeepCopy()
	new.Status = v1.PodStatus{}
	for m := 1 + r.Intn(3); m > 0; m-- {
		mutateResize(r, new)
	}
	return old, new
}

func mutateResize(r *rand.Rand, p *v1.Pod) {
	ctrs := &p.Spec.Containers
	if r.Intn(4) == 0 && len(p.Spec.InitContainers) > 0 {
		ctrs = &p.Spec.InitContainers
	}
	c := &(*ctrs)[r.Intn(len(*ctrs))]
	switch r.Intn(14) {
	case 0, 1, 2:
		c.Resources = requirements(r)
	case 3:
		if c.Resources.Requests != nil {
			c.Resources.Requests[v1.ResourceCPU] = resource.MustParse(pick(r, cpus))
		}
	case 4:
		delete(c.Resources.Limits, pick(r, []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}))
	case 5:
		if c.Resources.Requests == nil {
			c.Resources.Requests = v1.ResourceList{}
		}
		c.Resources.Requests[v1.ResourceEphemeralStorage] = resource.MustParse("1Gi")
	case 6:
		c.ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}
	case 7:
		c.Image = "registry.k8s.io/pause:3.9"
	case 8:
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "extra", Image: "registry.k8s.io/pause:3.10"})
	case 9:
		c.Name += "x"
	case 10:
		if len(p.Spec.Containers) > 1 {
			p.Spec.Containers[0], p.Spec.Containers[1] = p.Spec.Containers[1], p.Spec.Containers[0]
		}
	case 11:
		p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(pick(r, []string{"4", "5", "6"}))}}
		switch r.Intn(4) {
		case 0:
			// Small pod-level values: below the containers' aggregate, or limits the defaulting
			// raises.
			p.Spec.Resources.Requests = resourceList(r)
			p.Spec.Resources.Limits = resourceList(r)
		case 1:
			p.Spec.Resources.Limits = v1.ResourceList{v1.ResourceMemory: resource.MustParse(pick(r, mems))}
		}
	case 12:
		p.Spec.Resources = nil
	case 13:
		p.Labels = map[string]string{"a": "b"}
		p.Spec.ActiveDeadlineSeconds = new(int64)
		*p.Spec.ActiveDeadlineSeconds = 30
	}
}

var ephImages = []string{"busybox", "registry.k8s.io/pause:3.10", " busybox"}

func ephemeral(r *rand.Rand, name string, targets []string) v1.EphemeralContainer {
	e := v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: name, Image: pick(r, ephImages[:2])}}
	if r.Intn(2) == 0 {
		e.TargetContainerName = pick(r, targets)
	}
	if r.Intn(3) == 0 {
		e.Stdin, e.TTY = true, true
	}
	if r.Intn(3) == 0 {
		e.Args = []string{"sleep", "1"}
	}
	if r.Intn(3) == 0 {
		e.Env = []v1.EnvVar{{Name: "A", Value: "b"}, {Name: "P", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	}
	if r.Intn(4) == 0 {
		f := false
		e.SecurityContext = &v1.SecurityContext{Privileged: &f, Capabilities: &v1.Capabilities{Add: []v1.Capability{"SYS_PTRACE"}}}
	}
	if r.Intn(4) == 0 {
		e.VolumeMounts = []v1.VolumeMount{{Name: "v", MountPath: "/v"}}
	}
	return e
}

func genEphemeral(r *rand.Rand) (*v1.Pod, *v1.Pod) {
	p := &v1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "1"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
			Volumes: []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}}}
	targets := []string{"c"}
	if r.Intn(2) == 0 {
		p.Spec.InitContainers = []v1.Container{{Name: "i", Image: "registry.k8s.io/pause:3.10"}}
		targets = append(targets, "i")
	}
	if r.Intn(20) == 0 {
		p.Annotations = map[string]string{"kubernetes.io/config.mirror": "x"}
	}
	for i := r.Intn(3); i > 0; i-- {
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, ephemeral(r, fmt.Sprintf("e%d", i), targets))
	}
	stored := p.DeepCopy()
	legacyscheme.Scheme.Default(stored)
	new := stored.DeepCopy()
	new.Status = v1.PodStatus{}
	for m := 1 + r.Intn(2); m > 0; m-- {
		mutateEphemeral(r, new, targets)
	}
	return p, new
}

func mutateEphemeral(r *rand.Rand, p *v1.Pod, targets []string) {
	eph := p.Spec.EphemeralContainers
	switch r.Intn(12) {
	case 0, 1, 2:
		p.Spec.EphemeralContainers = append(eph, ephemeral(r, pick(r, []string{"dbg", "dbg2", "c", "i", "Bad_Name", "e1"}), append(targets, "zzz")))
	case 3:
		if len(eph) > 0 {
			eph[0].Image = "busybox:1.36"
		}
	case 4:
		if len(eph) > 0 {
			eph[len(eph)-1].Args = []string{"changed"}
			eph[len(eph)-1].WorkingDir = "/tmp"
		}
	case 5:
		if len(eph) > 0 {
			p.Spec.EphemeralContainers = eph[1:]
		}
	case 6:
		e := ephemeral(r, "x", targets)
		switch r.Intn(6) {
		case 5:
			e.VolumeMounts = []v1.VolumeMount{{Name: "nov", MountPath: "/a"}, {Name: "v", MountPath: "/a"}}
		case 0:
			e.Ports = []v1.ContainerPort{{ContainerPort: 80, Protocol: v1.ProtocolTCP}}
		case 1:
			e.Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("10m")}
		case 2:
			e.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 1}}}
		case 3:
			e.VolumeMounts = []v1.VolumeMount{{Name: "v", MountPath: "/v", SubPath: "a"}}
		case 4:
			e.Image = ephImages[2]
		}
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, e)
	case 7:
		p.Labels = map[string]string{"a": "b"}
		p.Spec.Containers[0].Image = "changed"
	case 8:
		if len(eph) > 0 {
			f := true
			eph[0].SecurityContext = &v1.SecurityContext{RunAsNonRoot: &f}
			if r.Intn(2) == 0 {
				// Forbidden fields in a changed container: the diff renders them too.
				eph[0].ReadinessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Port: intstr.FromString("http"),
					HTTPHeaders: []v1.HTTPHeader{{Name: "a", Value: "b"}}}}}
				eph[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(80)}}}
			}
		}
	case 9:
		if len(eph) > 0 {
			eph[0].Env = append(eph[0].Env, v1.EnvVar{Name: "Z", ValueFrom: &v1.EnvVarSource{ResourceFieldRef: &v1.ResourceFieldSelector{Resource: "limits.cpu"}}})
		}
	case 10:
		if len(eph) > 1 {
			eph[0], eph[1] = eph[1], eph[0]
		}
	case 11:
		if len(eph) > 0 {
			eph[0].VolumeMounts = append(eph[0].VolumeMounts, v1.VolumeMount{Name: pick(r, []string{"v", "v", "nov"}), MountPath: pick(r, []string{"/w", "/w", "/v", ""}), ReadOnly: true})
		}
	}
}

// TestStatusAndMainDifferential compares the value resets of Pod /status and of the main
// resource (ResetPaths, then StrategyReset) with podStatusStrategy.PrepareForUpdate and
// podStrategy.PrepareForUpdate: the status and generation they leave, and the spec.
func TestStatusAndMainDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(38))
	n := caseCount()
	disagreements := 0
	for i := 0; i < n; i++ {
		old := basePod(r)
		if r.Intn(2) == 0 {
			old.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")}}
		}
		stored := store(t, old)
		stored.Status.ObservedGeneration = int64(r.Intn(3))
		stored.Status.Conditions = genConditions(r)
		new := stored.DeepCopy()
		sub := ""
		if r.Intn(2) == 0 {
			sub = "status"
			new.Status.ObservedGeneration = int64(r.Intn(3))
			new.Status.Conditions = genConditions(r)
			if r.Intn(3) == 0 {
				new.Status.QOSClass = ""
			}
			new.Status.Message = "m"
			new.Spec.ActiveDeadlineSeconds = new_(int64(5))
		} else {
			new.Status.Message = "ignored"
			if r.Intn(2) == 0 {
				new.Spec.ActiveDeadlineSeconds = new_(int64(5))
			}
			if r.Intn(2) == 0 {
				new.Spec.Resources = nil
			}
		}
		new.Generation = 7 // the client's generation is ignored
		storedMap, newMap := toMap(t, stored), toMap(t, new)

		var oldInt, newInt api.Pod
		if err := legacyscheme.Scheme.Convert(stored, &oldInt, nil); err != nil {
			t.Fatal(err)
		}
		if err := legacyscheme.Scheme.Convert(new, &newInt, nil); err != nil {
			t.Fatal(err)
		}
		newInt.Generation = oldInt.Generation // rest.BeforeUpdate
		if sub == "status" {
			newInt.DeletionTimestamp = oldInt.DeletionTimestamp
			pod.StatusStrategy.PrepareForUpdate(context.Background(), &newInt, &oldInt)
		} else {
			pod.Strategy.PrepareForUpdate(context.Background(), &newInt, &oldInt)
		}
		var refV1 v1.Pod
		if err := legacyscheme.Scheme.Convert(&newInt, &refV1, nil); err != nil {
			t.Fatal(err)
		}
		ref := toMap(t, &refV1)

		obj := copyMap(t, newMap)
		for _, p := range apply.ResetPaths(podGVK, sub) {
			if len(p) == 1 {
				if v, ok := storedMap[p[0]]; ok {
					obj[p[0]] = v
				} else {
					delete(obj, p[0])
				}
			}
		}
		meta(obj)["generation"] = meta(storedMap)["generation"] // rest.BeforeUpdate
		apply.StrategyReset(podGVK, sub)(obj, storedMap)
		if !versions.SemanticEqual(ref["spec"], obj["spec"]) || !versions.SemanticEqual(ref["status"], obj["status"]) ||
			fmt.Sprint(meta(ref)["generation"]) != fmt.Sprint(meta(obj)["generation"]) {
			disagreements++
			if disagreements <= 5 {
				t.Errorf("case %d (%q): result differs\nold: %s\nnew: %s\nreference: %s\nwritepath: %s", i, sub, js(storedMap), js(newMap), js(ref), js(obj))
			}
		}
	}
	t.Logf("status and main resource: %d cases, %d disagreements", n, disagreements)
}

func new_[T any](v T) *T { return &v }

func genConditions(r *rand.Rand) []v1.PodCondition {
	var out []v1.PodCondition
	for i := r.Intn(3); i > 0; i-- {
		out = append(out, v1.PodCondition{Type: pick(r, []v1.PodConditionType{v1.PodScheduled, v1.PodReady, v1.PodScheduled}),
			Status: v1.ConditionFalse, ObservedGeneration: int64(r.Intn(3))})
	}
	return out
}
