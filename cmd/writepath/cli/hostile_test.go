package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/bounded"
)

// The hostile-input catalogue: every verb against inputs built to make it run away (depth and
// alias bombs, huge lists, endless streams, invalid UTF-8, duplicate keys, number edge cases,
// malformed managedFields, CEL cost and regex bombs, ownerReference cycles, 10,000-document
// streams). Each case must end with its expected exit status (never a panic), allocate at most
// its memory bound (runtime.MemStats.TotalAlloc of the test process, which bounds the peak
// too), make at most its work bound of heap allocations (runtime.MemStats.Mallocs: the count of
// objects allocated grows with the work of every decoder, walk and controller loop, so it
// stands for the case's time), and read at most its input bound from an endless stream (bytes
// counted). No timing.

const hostileNow = "--now=2026-01-02T00:00:00Z"

// Inputs the verbs need besides the hostile one.
const (
	hostileConfigMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: x, namespace: demo, uid: u1, resourceVersion: "5"}
data: {a: "1"}
`
	hostileCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`
	hostileWidget = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: demo}
spec: {size: 1}
`
	hostilePolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [configmaps]
  validations:
  - expression: "object.metadata.name.size() < 100"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: p}
spec:
  policyName: p
  validationActions: [Deny]
`
)

// policyWith is a ValidatingAdmissionPolicy (and its binding) with one validation expression.
func policyWith(expr string) string {
	return strings.Replace(hostilePolicy, `"object.metadata.name.size() < 100"`, fmt.Sprintf("%q", expr), 1)
}

// hostileInputs are documents fed as the object (-f) of every verb.
func hostileInputs() []struct{ name, data string } {
	deepList := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	deepMap := strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)
	deepYAML := strings.Repeat("- ", 1) + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n"
	var alias strings.Builder
	alias.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		fmt.Fprintf(&alias, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	var bigData strings.Builder
	bigData.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1","resourceVersion":"5"},"data":{`)
	for i := range 60000 {
		if i > 0 {
			bigData.WriteString(",")
		}
		fmt.Fprintf(&bigData, `"k%06d":"v"`, i)
	}
	bigData.WriteString("}}")
	var bigList strings.Builder
	bigList.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1","resourceVersion":"5","finalizers":[`)
	for i := range 100000 {
		if i > 0 {
			bigList.WriteString(",")
		}
		fmt.Fprintf(&bigList, `"example.com/f%d"`, i%500)
	}
	bigList.WriteString("]}}")
	var stream strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&stream, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: demo, uid: u%d, resourceVersion: \"1\"}\n", i, i)
	}
	cm := func(data string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1","resourceVersion":"5"},"data":` + data + `}`
	}
	return []struct{ name, data string }{
		{"depth-bomb-list", deepList},
		{"depth-bomb-map", deepMap},
		{"depth-bomb-yaml", deepYAML},
		{"alias-bomb", alias.String()},
		{"huge-map", bigData.String()},
		{"huge-list", bigList.String()},
		{"stream-10000-documents", stream.String()},
		{"too-large", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"` + strings.Repeat("x", 3<<20) + `"}}`},
		{"invalid-utf8", cm("{\"a\":\"\xff\xfe\xfd\"}")},
		{"invalid-utf8-key", cm("{\"\xff\":\"a\"}")},
		{"duplicate-keys-json", cm(`{"a":"1","a":"2"}`)},
		{"duplicate-keys-yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: demo, uid: u1}\ndata: {a: '1', a: '2'}\n"},
		{"number-overflow", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1","generation":1e400}}`},
		{"number-edge", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1","generation":9223372036854775808},"spec":{"a":-0,"b":1e-400,"c":-9223372036854775808}}`},
		{"yaml-special-numbers", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: demo, uid: u1}\nspec: {a: .inf, b: .nan, c: 0x10, d: 0o17, e: 1_000}\n"},
		{"not-an-object", `[1,2,3]`},
		{"garbage", "\x00\x01\x02\x03\xff{{{:::"},
		{"empty", ""},
		{"malformed-managed-fields", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1","resourceVersion":"5","managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":"not an object"},{"manager":7}]}}`},
	}
}

type hostileCase struct {
	name   string
	args   []string
	stdin  func() io.Reader
	exits  []int  // allowed exit statuses
	maxMiB uint64 // allocation bound of the run, and work bound (maxMiB*objectsPerMiB objects)
	// endless, when set, is the stream given as stdin; at most bound+64KiB may be read from it.
	endless *endlessStream
}

// objectsPerMiB is the work bound per MiB of a case's memory bound: 16,384 heap objects, an
// average of 64 bytes each (the catalogue's cases average 80 to 25,000 bytes per object).
const objectsPerMiB = 1 << 14

// endlessStream never ends (like /dev/zero or a pipe nobody closes) and counts what is read.
type endlessStream struct{ read int64 }

func (s *endlessStream) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	s.read += int64(len(p))
	return len(p), nil
}

func hostileCases(t *testing.T, dir string) []hostileCase {
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
		return p
	}
	cmFile := write("cm.yaml", hostileConfigMap)
	crdFile := write("crd.yaml", hostileCRD)
	widgetFile := write("widget.yaml", hostileWidget)
	policyFile := write("policy.yaml", hostilePolicy)
	deploymentFile := write("deployment.yaml", hostileDeployment(4, ""))
	any := []int{exitOK, exitNegative, exitUsage}
	var cases []hostileCase
	add := func(name string, exits []int, maxMiB uint64, args ...string) {
		cases = append(cases, hostileCase{name: name, args: args, exits: exits, maxMiB: maxMiB})
	}
	// Every verb that reads objects, against every hostile input in the place of its object.
	verbs := []struct {
		name string
		args func(f string) []string
	}{
		{"generation", func(f string) []string { return []string{"generation", "-f", f, "-f", f} }},
		{"apply-server-side", func(f string) []string {
			return []string{"apply", "--server-side", "-f", f, "--field-manager", "m", hostileNow}
		}},
		{"apply-client-side", func(f string) []string { return []string{"apply", "-f", f} }},
		{"patch-live", func(f string) []string {
			return []string{"patch", "--type", "merge", "-p", `{"data":{"b":"2"}}`, "-f", f}
		}},
		{"patch-file", func(f string) []string {
			return []string{"patch", "--type", "strategic", "--patch-file", f, "-f", cmFile}
		}},
		{"diff", func(f string) []string { return []string{"diff", "--type", "strategic", "-f", f, "-f", cmFile} }},
		{"owners", func(f string) []string { return []string{"owners", "-f", f} }},
		{"validate-object", func(f string) []string { return []string{"validate", "--crd", crdFile, "-f", f} }},
		{"validate-crd", func(f string) []string { return []string{"validate", "--crd", f, "-f", widgetFile} }},
		{"admit-object", func(f string) []string { return []string{"admit", "-f", f, "--policy", policyFile} }},
		{"admit-policy", func(f string) []string { return []string{"admit", "-f", cmFile, "--policy", f} }},
		{"convert", func(f string) []string { return []string{"convert", "--crd", crdFile, "-f", f, "--to", "v1"} }},
		{"delete", func(f string) []string { return []string{"delete", "-f", f, "configmap/x", "-n", "demo", hostileNow} }},
		{"why-stuck", func(f string) []string {
			return []string{"why-stuck", "-f", f, "configmap/x", "-n", "demo", hostileNow}
		}},
		{"rv-check", func(f string) []string { return []string{"rv", "check", "-f", f, "-f", f} }},
		{"schema-explain", func(f string) []string { return []string{"schema", "explain", "Widget", "--crd", f} }},
		{"rollout", func(f string) []string { return []string{"rollout", "-f", f, "--max-steps", "5"} }},
		{"rollout-to", func(f string) []string {
			return []string{"rollout", "-f", deploymentFile, "--to", f, "--max-steps", "5"}
		}},
		{"rollout-undo", func(f string) []string { return []string{"rollout", "undo", "-f", f} }},
	}
	// The large inputs (megabytes, thousands of objects) go through the verbs that read them
	// differently: a stream, a state, a patch, an owners table; under the race detector through
	// two of them.
	heavyVerbs := []string{"generation", "why-stuck", "owners", "patch-live", "diff", "admit-object"}
	if raceEnabled {
		heavyVerbs = []string{"generation", "why-stuck"}
	}
	for _, in := range hostileInputs() {
		f := write(in.name+".json", in.data)
		for _, v := range verbs {
			maxMiB := uint64(96)
			switch in.name {
			case "huge-map", "huge-list", "stream-10000-documents":
				if !slices.Contains(heavyVerbs, v.name) {
					continue
				}
				maxMiB = 768
			case "too-large":
				maxMiB = 64
			}
			add(v.name+"/"+in.name, any, maxMiB, v.args(f)...)
		}
	}
	// Inputs that must be refused, with the exit status of unreadable input.
	for _, in := range []string{"depth-bomb-list", "depth-bomb-map", "depth-bomb-yaml", "alias-bomb", "too-large", "garbage", "duplicate-keys-json", "duplicate-keys-yaml", "number-overflow"} {
		add("refused/"+in, []int{exitUsage}, 96, "generation", "-f", filepath.Join(dir, in+".json"), "-f", cmFile)
	}
	// Endless streams: a device, and a pipe that never closes as stdin, for each reader.
	for _, r := range []struct {
		name string
		args []string
	}{
		{"object", []string{"generation", "-f", "-", "-f", cmFile}},
		{"state", []string{"delete", "-f", "-", "configmap/x", "--max-state-bytes", "8388608", hostileNow}},
		{"validate-object", []string{"validate", "--crd", crdFile, "-f", "-"}},
		{"policy", []string{"admit", "-f", cmFile, "--policy", "-"}},
		{"request-state", []string{"request", "--state", "-", "--max-state-bytes", "8388608", "GET", "/api/v1/namespaces/demo/configmaps/x"}},
	} {
		cases = append(cases, hostileCase{name: "endless-stdin/" + r.name, args: r.args, exits: []int{exitUsage}, maxMiB: 96, endless: &endlessStream{}})
	}
	// A request body from an endless stream: one byte past 3 MiB is read, the registry answers
	// the apiserver's 413.
	cases = append(cases, hostileCase{name: "endless-stdin/request-body", args: []string{"request", "--data-file", "-", "-H", "Content-Type: application/json", "POST", "/api/v1/namespaces/demo/configmaps"},
		exits: []int{exitNegative}, maxMiB: 96, endless: &endlessStream{}})
	for _, in := range []string{"depth-bomb-map", "alias-bomb", "duplicate-keys-json", "invalid-utf8", "number-edge", "garbage", "huge-list"} {
		add("request/"+in, any, 256, "request", "--data-file", filepath.Join(dir, in+".json"), "-H", "Content-Type: application/json", "POST", "/api/v1/namespaces/demo/configmaps")
		add("request-state/"+in, any, 256, "request", "--state", filepath.Join(dir, in+".json"), "GET", "/api/v1/namespaces/demo/configmaps/x")
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		add("dev-zero/object", []int{exitUsage}, 96, "generation", "-f", "/dev/zero", "-f", cmFile)
		add("dev-zero/patch-file", []int{exitUsage}, 96, "patch", "--type", "merge", "--patch-file", "/dev/zero", "-f", cmFile)
		add("dev-zero/ca-bundle", []int{exitUsage}, 96, "convert", "--crd", write("webhook-crd.yaml", strings.Replace(hostileCRD, "  versions:", "  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: \"https://127.0.0.1:1/c\"}}}\n  versions:", 1)), "-f", widgetFile, "--to", "v1", "--ca-bundle", "/dev/zero")
		add("dev-zero/state", []int{exitUsage}, 96, "why-stuck", "-f", "/dev/zero", "configmap/x", "--max-state-bytes", "8388608", hostileNow)
	}
	// CEL cost and regex bombs.
	for _, p := range []struct{ name, expr string }{
		{"cel-cost-bomb", "object.data.all(a, object.data.all(b, object.data.all(c, object.data.all(d, a + b + c + d != ''))))"},
		{"cel-list-bomb", "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, a*b*c*d)))).size() > 0"},
		{"cel-string-bomb", "'x'.repeat(1000000).size() > 0"},
		{"regex-bomb", "object.data.a.matches('^(a+)+$')"},
		{"regex-invalid", "object.data.a.matches('(?<=x)')"},
		{"cel-syntax", "object.data.(("},
	} {
		f := write(p.name+".yaml", policyWith(p.expr))
		obj := write(p.name+"-object.yaml", strings.Replace(hostileConfigMap, `data: {a: "1"}`, `data: {a: "`+strings.Repeat("a", 100000)+`!"}`, 1))
		add("admit/"+p.name, any, 256, "admit", "-f", obj, "--policy", f)
	}
	// ownerReference cycles and long chains for the garbage collector's verbs.
	for _, g := range []struct{ name, objs string }{
		{"cycle-2", ownerCycle(2)},
		{"cycle-1000", ownerCycle(1000)},
		{"self-owner", ownerCycle(1)},
		{"chain-1000", ownerChain(1000)},
	} {
		f := write(g.name+".yaml", g.objs)
		add("delete/"+g.name, any, 512, "delete", "-f", f, "configmap/c0", "-n", "demo", "--cascade=foreground", hostileNow)
		add("why-stuck/"+g.name, any, 512, "why-stuck", "-f", f, "configmap/c0", "-n", "demo", hostileNow)
	}
	// serve reads its -f objects before it listens: every input the readers refuse ends it at
	// once (an accepted one would serve until interrupted, so only those are given).
	kubeconfig := filepath.Join(dir, "serve.kubeconfig")
	for _, in := range []string{"depth-bomb-list", "depth-bomb-map", "depth-bomb-yaml", "alias-bomb", "too-large", "garbage", "duplicate-keys-json", "duplicate-keys-yaml", "number-overflow"} {
		add("serve/"+in, []int{exitUsage}, 96, "serve", "-f", filepath.Join(dir, in+".json"), "--kubeconfig", kubeconfig)
	}
	cases = append(cases, hostileCase{name: "endless-stdin/serve", args: []string{"serve", "-f", "-", "--kubeconfig", kubeconfig},
		exits: []int{exitUsage}, maxMiB: 96, endless: &endlessStream{}},
		hostileCase{name: "endless-stdin/rollout", args: []string{"rollout", "-f", "-"},
			exits: []int{exitUsage}, maxMiB: 96, endless: &endlessStream{}})
	if _, err := os.Stat("/dev/zero"); err == nil {
		add("dev-zero/serve", []int{exitUsage}, 96, "serve", "-f", "/dev/zero", "--kubeconfig", kubeconfig)
		add("dev-zero/rollout-to", []int{exitUsage}, 96, "rollout", "-f", deploymentFile, "--to", "/dev/zero")
	}
	add("version", []int{exitOK}, 16, "version", "-o", "json")
	// Deployments built to make the controllers run away: the largest replica count, surge and
	// unavailability far past it, thousands of ReplicaSets of one Deployment (a history to
	// clean up and to roll back through), a template hash collision with a foreign ReplicaSet.
	for _, r := range []struct {
		name    string
		objs    string
		args    []string
		maxMiB  uint64
		allowed []int
	}{
		{"replicas-max", hostileDeployment(2147483647, ""), []string{"--max-steps", "3"}, 256, any},
		{"replicas-max-step", hostileDeployment(2147483647, ""), []string{"--max-steps", "3", "--ready", "step"}, 256, any},
		{"surge-huge", strings.Replace(hostileDeployment(1000, ""), "maxSurge: 25%", "maxSurge: 1000000000%", 1), []string{"--max-steps", "3"}, 256, any},
		{"unavailable-negative", strings.Replace(hostileDeployment(4, ""), "maxUnavailable: 25%", "maxUnavailable: -5", 1), []string{"--max-steps", "5"}, 96, any},
		{"replicas-negative", hostileDeployment(-3, ""), []string{"--max-steps", "5"}, 96, any},
		{"replicasets-4000", hostileDeployment(4, replicaSetHistory(1, 4000)), []string{"--max-steps", "5"}, 768, any},
		{"selector-everything", strings.Replace(hostileDeployment(4, foreignPods(4000)), "selector: {matchLabels: {app: web}}", "selector: {}", 1), []string{"--max-steps", "5"}, 768, any},
		{"selector-mismatch", strings.Replace(hostileDeployment(4, ""), "selector: {matchLabels: {app: web}}", "selector: {matchLabels: {app: other}}", 1), []string{"--max-steps", "5"}, 96, any},
		{"pods-4000-foreign", hostileDeployment(4, foreignPods(4000)), []string{"--max-steps", "5"}, 768, any},
		{"containers-1000", strings.Replace(hostileDeployment(4, ""), `spec: {containers: [{name: web, image: "nginx:1.27"}]}`, "spec: {containers: ["+containersList(1000)+"]}", 1), []string{"--max-steps", "3"}, 512, any},
		{"invalid-utf8-image", strings.Replace(hostileDeployment(4, ""), `"nginx:1.27"`, "\"\xff\xfe\"", 1), []string{"--max-steps", "3"}, 96, any},
		{"progress-deadline-zero", strings.Replace(hostileDeployment(4, ""), "progressDeadlineSeconds: 600", "progressDeadlineSeconds: 0", 1), []string{"--max-steps", "5", "--ready", "never"}, 96, any},
	} {
		if raceEnabled && r.maxMiB > 512 {
			continue // thousands of objects: a minute under the race detector
		}
		f := write("rollout-"+r.name+".yaml", r.objs)
		add("rollout/"+r.name, r.allowed, r.maxMiB, append([]string{"rollout", "-f", f}, r.args...)...)
	}
	// 8,000 ReplicaSets in two files (each file is bounded as a request body); not under the
	// race detector, which makes them take a minute.
	if !raceEnabled {
		history := write("rollout-history-a.yaml", hostileDeployment(4, replicaSetHistory(1, 4000)))
		more := write("rollout-history-b.yaml", replicaSetHistory(4001, 8000))
		add("rollout/replicasets-8000", any, 1024, "rollout", "-f", history, "-f", more, "--max-steps", "5")
		add("rollout-undo/history-8000", any, 1024, "rollout", "undo", "-f", history, "-f", more)
		add("rollout-undo/history-8000-to-revision", any, 1024, "rollout", "undo", "-f", history, "-f", more, "--to-revision", "5000")
	}
	add("rollout-undo/revision-overflow", any, 96, "rollout", "undo", "-f", deploymentFile, "--to-revision", "99999999999999999999")
	return cases
}

// hostileDeployment is a Deployment of the given replicas, followed by more documents.
func hostileDeployment(replicas int64, more string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo, uid: d1, generation: 1, creationTimestamp: "2026-01-01T00:00:00Z", annotations: {deployment.kubernetes.io/revision: "1"}}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%%
      maxUnavailable: 25%%
  progressDeadlineSeconds: 600
  revisionHistoryLimit: 10
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
`, replicas) + more
}

// foreignPods is n running Pods labelled app=web that no ReplicaSet owns.
func foreignPods(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%[1]d, namespace: demo, uid: p%[1]d, labels: {app: web}}\nspec: {containers: [{name: web, image: x}]}\nstatus: {phase: Running}\n", i)
	}
	return b.String()
}

// containersList is n containers of a Pod template, in YAML flow style.
func containersList(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("{name: c%d, image: x}", i)
	}
	return strings.Join(items, ", ")
}

// replicaSetHistory is the old ReplicaSets of the Deployment web of revisions from to to,
// scaled to 0.
func replicaSetHistory(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-h%[1]d
  namespace: demo
  uid: rs%[1]d
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: web, pod-template-hash: h%[1]d}
  annotations: {deployment.kubernetes.io/revision: "%[1]d"}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true, blockOwnerDeletion: true}]
spec:
  replicas: 0
  selector: {matchLabels: {app: web, pod-template-hash: h%[1]d}}
  template:
    metadata: {labels: {app: web, pod-template-hash: h%[1]d}}
    spec: {containers: [{name: web, image: "nginx:1.%[1]d"}]}
`, i)
	}
	return b.String()
}

// ownerCycle is n ConfigMaps each owning the next with blockOwnerDeletion, the last owning the
// first, all in foreground deletion.
func ownerCycle(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n  namespace: demo\n  uid: u%d\n  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n  finalizers: [foregroundDeletion]\n  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c%d, uid: u%d, blockOwnerDeletion: true}]\n", i, i, (i+n-1)%n, (i+n-1)%n)
	}
	return b.String()
}

// ownerChain is n ConfigMaps in a chain of blocking owner references, the last held by a
// finalizer nobody removes.
func ownerChain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n  namespace: demo\n  uid: u%d\n  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", i, i)
		if i == n-1 {
			b.WriteString("  finalizers: [example.com/hold]\n")
		} else {
			b.WriteString("  finalizers: [foregroundDeletion]\n")
		}
		if i > 0 {
			fmt.Fprintf(&b, "  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c%d, uid: u%d, blockOwnerDeletion: true}]\n", i-1, i-1)
		}
	}
	return b.String()
}

func TestHostileInputs(t *testing.T) {
	cases := hostileCases(t, t.TempDir())
	require.GreaterOrEqual(t, len(cases), 100)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdin io.Reader = strings.NewReader("")
			if c.endless != nil {
				stdin = c.endless
			}
			var stdout, stderr bytes.Buffer
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before) // TotalAlloc only grows: no collection needed
			code := func() (code int) {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("panic: %v", r)
						code = -1
					}
				}()
				return run(c.args, stdin, &stdout, &stderr)
			}()
			runtime.ReadMemStats(&after)
			allocated := (after.TotalAlloc - before.TotalAlloc) >> 20
			objects := after.Mallocs - before.Mallocs
			t.Logf("exit %d, %d MiB, %d objects allocated", code, allocated, objects)
			assert.True(t, slices.Contains(c.exits, code), "exit %d, want one of %v; stderr: %.300s", code, c.exits, stderr.String())
			assert.LessOrEqual(t, allocated, c.maxMiB, "MiB allocated by %v", c.args)
			assert.LessOrEqual(t, objects, c.maxMiB*objectsPerMiB, "objects allocated by %v", c.args)
			if c.endless != nil {
				limit := bounded.RequestBodyBytes
				if slices.Contains(c.args, "--max-state-bytes") {
					limit = 8 << 20
				}
				assert.LessOrEqual(t, c.endless.read, limit+64<<10, "bytes read from the endless stream")
				assert.Contains(t, strings.ToLower(stdout.String()+stderr.String()), "request entity too large")
			}
		})
	}
}
