package registry_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// psNamespace is a namespace with the given PodSecurity labels (short keys: "enforce" is
// pod-security.kubernetes.io/enforce).
func psNamespace(name string, labels map[string]string) map[string]any {
	l := map[string]any{"kubernetes.io/metadata.name": name}
	for k, v := range labels {
		l["pod-security.kubernetes.io/"+k] = v
	}
	return map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": name, "uid": "u-" + name, "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z", "labels": l},
		"spec":     map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}
}

// psPod is a Pod named name with spec (JSON object members after "containers") and the
// containers given.
func psPod(name, containers, spec string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"automountServiceAccountToken":false,"containers":` + containers + spec + `}}`
}

func warningTexts(r registry.Response) []string {
	var out []string
	for _, w := range r.Warnings {
		out = append(out, registry.WarningText(w))
	}
	return out
}

// TestPodSecurityChecks: each check of baseline and restricted, with its words, in the
// evaluator's order (baseline's checks by ID, then restricted's), as the 403 of a namespace
// enforcing the level (recorded: pod-security/ps-enforce-restricted).
func TestPodSecurityChecks(t *testing.T) {
	do := pluginWorld(t, psNamespace("r", map[string]string{"enforce": "restricted"}), psNamespace("b", map[string]string{"enforce": "baseline"}))
	const ok = `[{"name":"c","image":"x","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]`
	const okPod = `,"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}}`
	for _, tc := range []struct {
		name, ns, containers, spec, annotations, message string
	}{
		{name: "plain", ns: "r", containers: `[{"name":"c","image":"x"}]`,
			message: `violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		{name: "compliant", ns: "r", containers: ok, spec: okPod + `,"volumes":[{"name":"e","emptyDir":{}},{"name":"s","secret":{"secretName":"s"}}]`},
		{name: "hostns", ns: "b", containers: ok, spec: `,"hostPID":true,"hostIPC":true`,
			message: `violates PodSecurity "baseline:latest": host namespaces (hostPID=true, hostIPC=true)`},
		{name: "caps", ns: "b", containers: `[{"name":"i","image":"x","securityContext":{"capabilities":{"add":["SYS_ADMIN","CHOWN"]}}},{"name":"j","image":"x","securityContext":{"capabilities":{"add":["NET_RAW"]}}}]`,
			message: `violates PodSecurity "baseline:latest": non-default capabilities (containers "i", "j" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)`},
		{name: "restricted-caps", ns: "r", containers: `[{"name":"c","image":"x","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE","CHOWN"]}}}]`, spec: okPod,
			message: `violates PodSecurity "restricted:latest": unrestricted capabilities (container "c" must not include "CHOWN" in securityContext.capabilities.add)`},
		{name: "hostpath", ns: "b", containers: ok, spec: `,"volumes":[{"name":"h","hostPath":{"path":"/tmp"}},{"name":"g","hostPath":{"path":"/var"}}]`,
			message: `violates PodSecurity "baseline:latest": hostPath volumes (volumes "h", "g")`},
		{name: "volumes", ns: "r", containers: ok, spec: okPod + `,"volumes":[{"name":"h","hostPath":{"path":"/tmp"}},{"name":"n","nfs":{"server":"s","path":"/"}},{"name":"c","configMap":{"name":"x"}}]`,
			message: `violates PodSecurity "restricted:latest": restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")`},
		{name: "hostports", ns: "b", containers: `[{"name":"c","image":"x","ports":[{"containerPort":80,"hostPort":8080},{"containerPort":81,"hostPort":10081}]}]`,
			message: `violates PodSecurity "baseline:latest": hostPort (container "c" uses hostPorts 10081, 8080)`},
		{name: "probes", ns: "b", containers: `[{"name":"z","image":"x","livenessProbe":{"httpGet":{"host":"h1","port":80}}},{"name":"a","image":"x","lifecycle":{"postStart":{"httpGet":{"host":"h0","port":80}}}}]`,
			message: `violates PodSecurity "baseline:latest": probe or lifecycle host (containers "a", "z" use probe or lifecycle hosts "h0", "h1")`},
		{name: "apparmor", ns: "b", containers: `[{"name":"c","image":"x","securityContext":{"appArmorProfile":{"type":"Unconfined"}}}]`, annotations: `{"container.apparmor.security.beta.kubernetes.io/c":"unconfined"}`,
			message: `violates PodSecurity "baseline:latest": forbidden AppArmor profiles (container "c" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c="unconfined"")`},
		{name: "selinux", ns: "b", containers: `[{"name":"c","image":"x","securityContext":{"seLinuxOptions":{"type":"spc_t","role":"r"}}}]`, spec: `,"securityContext":{"seLinuxOptions":{"type":"container_engine_t","user":"u"}}`,
			message: `violates PodSecurity "baseline:latest": seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)`},
		{name: "seccomp", ns: "b", containers: `[{"name":"c","image":"x","securityContext":{"seccompProfile":{"type":"Unconfined"}}}]`,
			message: `violates PodSecurity "baseline:latest": seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")`},
		{name: "sysctls", ns: "b", containers: ok, spec: `,"securityContext":{"sysctls":[{"name":"kernel.msgmax","value":"1"},{"name":"net.ipv4.tcp_notsent_lowat","value":"1"},{"name":"vm.swappiness","value":"1"}]}`,
			message: `violates PodSecurity "baseline:latest": forbidden sysctls (kernel.msgmax, vm.swappiness)`},
		{name: "procmount", ns: "r", containers: `[{"name":"c","image":"x","securityContext":{"procMount":"Unmasked","allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]`, spec: `,"hostUsers":false,"securityContext":{"runAsUser":0,"seccompProfile":{"type":"RuntimeDefault"}}`,
			message: `violates PodSecurity "restricted:latest": procMount (container "c" must not set securityContext.procMount to "Unmasked")`},
		{name: "userns-baseline", ns: "b", containers: `[{"name":"c","image":"x","securityContext":{"procMount":"Unmasked"}}]`, spec: `,"hostUsers":false`},
		{name: "nonroot", ns: "r", containers: `[{"name":"c","image":"x","securityContext":{"runAsNonRoot":false,"runAsUser":0,"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]`, spec: okPod,
			message: `violates PodSecurity "restricted:latest": runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false), runAsUser=0 (container "c" must not set runAsUser=0)`},
		{name: "windows", ns: "r", containers: `[{"name":"c","image":"x"}]`, spec: `,"os":{"name":"windows"},"securityContext":{"runAsNonRoot":true}`},
	} {
		meta := `{"name":"` + tc.name + `"}`
		if tc.annotations != "" {
			meta = `{"name":"` + tc.name + `","annotations":` + tc.annotations + `}`
		}
		body := `{"apiVersion":"v1","kind":"Pod","metadata":` + meta + `,"spec":{"automountServiceAccountToken":false,"containers":` + tc.containers + tc.spec + `}}`
		r := do("POST", "/api/v1/namespaces/"+tc.ns+"/pods", "application/json", body)
		if tc.message == "" {
			assert.Equal(t, 201, r.Code, "%s: %v", tc.name, r.Object["message"])
			continue
		}
		assert.Equal(t, 403, r.Code, tc.name)
		assert.Equal(t, `pods "`+tc.name+`" is forbidden: `+tc.message, r.Object["message"], tc.name)
		assert.Equal(t, "Forbidden", r.Object["reason"], tc.name)
	}
}

// TestPodSecurityVersions: a version label selects the checks of that version (runAsUser from
// v1.23, the probe host check from v1.34, two sysctls from v1.37, the user namespace relaxation
// from v1.35); a newer version than any check is latest's; warn follows a stricter enforce
// level unless set (recorded: pod-security/ps-baseline-versions).
func TestPodSecurityVersions(t *testing.T) {
	do := pluginWorld(t,
		psNamespace("v122", map[string]string{"enforce": "restricted", "enforce-version": "v1.22"}),
		psNamespace("v133", map[string]string{"enforce": "baseline", "enforce-version": "v1.33"}),
		psNamespace("v134", map[string]string{"enforce": "restricted", "enforce-version": "v1.34"}),
		psNamespace("v199", map[string]string{"enforce": "baseline", "enforce-version": "v1.99"}),
		psNamespace("warn", map[string]string{"enforce": "baseline", "warn": "restricted", "warn-version": "v1.24"}))
	const ok = `[{"name":"c","image":"x","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]`
	r := do("POST", "/api/v1/namespaces/v122/pods", "application/json", psPod("root", ok, `,"securityContext":{"runAsNonRoot":true,"runAsUser":0,"seccompProfile":{"type":"RuntimeDefault"}}`))
	assert.Equal(t, 201, r.Code, "runAsUser=0 is allowed before v1.23: %v", r.Object["message"])
	r = do("POST", "/api/v1/namespaces/v133/pods", "application/json", psPod("probe", `[{"name":"c","image":"x","readinessProbe":{"tcpSocket":{"host":"h","port":80}}}]`, `,"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_notsent_lowat","value":"1"}]}`))
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `pods "probe" is forbidden: violates PodSecurity "baseline:v1.33": forbidden sysctls (net.ipv4.tcp_notsent_lowat)`, r.Object["message"], "no probe host check before v1.34")
	r = do("POST", "/api/v1/namespaces/v134/pods", "application/json", psPod("userns", ok, `,"hostUsers":false,"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}`))
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `pods "userns" is forbidden: violates PodSecurity "restricted:v1.34": runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)`, r.Object["message"], "no user namespace relaxation before v1.35")
	r = do("POST", "/api/v1/namespaces/v199/pods", "application/json", psPod("lowat", `[{"name":"c","image":"x"}]`, `,"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_notsent_lowat","value":"1"}]}`))
	assert.Equal(t, 201, r.Code, "v1.99 evaluates as latest: %v", r.Object["message"])
	r = do("POST", "/api/v1/namespaces/warn/pods", "application/json", psPod("win", `[{"name":"c","image":"x"}]`, `,"os":{"name":"windows"}`))
	require.Equal(t, 201, r.Code)
	assert.Equal(t, []string{`would violate PodSecurity "restricted:v1.24": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		warningTexts(r), "before v1.25 Windows pods are checked alike")
}

// TestPodSecurityDefault: without labels the policy is privileged (nothing checked); an
// invalid enforce level enforces restricted, an invalid warn level warns nothing; the enforce
// level a Pod was admitted under is in the audit annotations.
func TestPodSecurityDefault(t *testing.T) {
	do := pluginWorld(t, psNamespace("plain", nil), psNamespace("bad", map[string]string{"enforce": "nope", "warn": "nope"}))
	resp := do("POST", "/api/v1/namespaces/plain/pods", "application/json", psPod("p", `[{"name":"c","image":"x"}]`, `,"hostPID":true`))
	assert.Equal(t, 201, resp.Code)
	assert.Empty(t, resp.Warnings)
	assert.Equal(t, "privileged:latest", resp.Audit.Annotations["pod-security.kubernetes.io/enforce-policy"])
	resp = do("POST", "/api/v1/namespaces/bad/pods", "application/json",
		psPod("p", `[{"name":"c","image":"x","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]`, `,"securityContext":{"runAsNonRoot":true}`))
	assert.Equal(t, 403, resp.Code)
	assert.Equal(t, `pods "p" is forbidden: violates PodSecurity "restricted:latest": seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`, resp.Object["message"])
	assert.Contains(t, resp.Audit.Annotations["pod-security.kubernetes.io/error"], `Failed to parse policy: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "nope"`)
}

// TestPodSecurityTemplates: workload templates are checked against the warn level only
// (warnings, never a 403), on every update of the main resource; a namespace that only
// enforces checks none (recorded: pod-security/ps-templates).
func TestPodSecurityTemplates(t *testing.T) {
	do := pluginWorld(t, psNamespace("w", map[string]string{"warn": "baseline", "enforce": "restricted"}), psNamespace("e", map[string]string{"enforce": "restricted", "warn": "privileged"}))
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"x"}]}}}}`
	r := do("POST", "/apis/apps/v1/namespaces/w/deployments", "application/json", deploy)
	require.Equal(t, 201, r.Code, r.Object["message"])
	want := []string{`would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`}
	assert.Equal(t, want, warningTexts(r))
	r = do("PATCH", "/apis/apps/v1/namespaces/w/deployments/d", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`)
	require.Equal(t, 200, r.Code, r.Object["message"])
	assert.Equal(t, want, warningTexts(r), "every update")
	r = do("PATCH", "/apis/apps/v1/namespaces/w/deployments/d/scale", "application/merge-patch+json", `{"spec":{"replicas":2}}`)
	require.Equal(t, 200, r.Code, r.Object["message"])
	assert.Empty(t, r.Warnings, "not a subresource")
	cj := `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","volumes":[{"name":"h","hostPath":{"path":"/"}}],"containers":[{"name":"c","image":"x"}]}}}}}}`
	r = do("POST", "/apis/batch/v1/namespaces/w/cronjobs", "application/json", cj)
	require.Equal(t, 201, r.Code, r.Object["message"])
	assert.Equal(t, []string{`would violate PodSecurity "baseline:latest": hostPath volumes (volume "h")`}, warningTexts(r))
	r = do("POST", "/apis/apps/v1/namespaces/e/deployments", "application/json", deploy)
	require.Equal(t, 201, r.Code, r.Object["message"])
	assert.Empty(t, r.Warnings, "warn and audit privileged: templates unchecked")
	r = do("POST", "/apis/apps/v1/namespaces/w/deployments?dryRun=All", "application/json", strings.Replace(deploy, `"name":"d"`, `"name":"d2"`, 1))
	require.Equal(t, 201, r.Code, r.Object["message"])
	assert.Equal(t, want, warningTexts(r), "a warn level that is set is not raised to enforce's")
}

// TestPodSecurityNamespaceUpdate: tightening the enforce level lists the existing pods that
// violate it, grouped by their reasons, named by the first pod by name with a count of the
// others; keeping or loosening it lists none; invalid labels are a 422 (recorded:
// pod-security/ps-namespace-update).
func TestPodSecurityNamespaceUpdate(t *testing.T) {
	do := pluginWorld(t, psNamespace("n", nil))
	for _, p := range []struct{ name, spec string }{{"c", ""}, {"a", ""}, {"b", ""}, {"host", `,"hostPID":true`}} {
		r := do("POST", "/api/v1/namespaces/n/pods", "application/json", psPod(p.name, `[{"name":"c","image":"x"}]`, p.spec))
		require.Equal(t, 201, r.Code, r.Object["message"])
	}
	label := func(labels map[string]any) registry.Response {
		b, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
		require.NoError(t, err)
		return do("PATCH", "/api/v1/namespaces/n", "application/merge-patch+json", string(b))
	}
	r := label(map[string]any{"pod-security.kubernetes.io/enforce": "baseline"})
	require.Equal(t, 200, r.Code)
	assert.Equal(t, []string{`existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"`, `host: host namespaces`}, warningTexts(r))
	r = label(map[string]any{"pod-security.kubernetes.io/enforce": "restricted"})
	require.Equal(t, 200, r.Code)
	assert.Equal(t, []string{`existing pods in namespace "n" violate the new PodSecurity enforce level "restricted:latest"`,
		`a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile`,
		`host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile`}, warningTexts(r))
	r = label(map[string]any{"other": "x"})
	assert.Empty(t, r.Warnings, "enforce unchanged")
	r = label(map[string]any{"pod-security.kubernetes.io/enforce": "baseline"})
	assert.Empty(t, r.Warnings, "looser")
	r = label(map[string]any{"pod-security.kubernetes.io/enforce-version": "v1.0"})
	assert.Equal(t, []string{`existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:v1.0"`, `host: host namespaces`}, warningTexts(r), "another version")
	r = label(map[string]any{"pod-security.kubernetes.io/enforce": "nope", "pod-security.kubernetes.io/audit-version": "1.2"})
	assert.Equal(t, 422, r.Code)
	assert.Equal(t, `Namespace "n" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "nope": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "1.2": must be "latest" or "v1.x"]`, r.Object["message"])
	r = do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x","labels":{"pod-security.kubernetes.io/warn":"all"}}}`)
	assert.Equal(t, 422, r.Code)
	assert.Equal(t, `Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "all": must be one of privileged, baseline, restricted`, r.Object["message"])
}

// TestPodSecurityPodUpdate: a Pod update is checked only when an image changes, the number of
// containers changes or an ephemeral container is added; status and other subresources the
// plugin ignores are not (recorded: pod-security/ps-namespace-update).
func TestPodSecurityPodUpdate(t *testing.T) {
	do := pluginWorld(t, psNamespace("n", nil))
	r := do("POST", "/api/v1/namespaces/n/pods", "application/json", psPod("p", `[{"name":"c","image":"x"}]`, `,"hostPID":true`))
	require.Equal(t, 201, r.Code, r.Object["message"])
	r = do("PATCH", "/api/v1/namespaces/n", "application/merge-patch+json", `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline"}}}`)
	require.Equal(t, 200, r.Code)
	r = do("PATCH", "/api/v1/namespaces/n/pods/p", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`)
	assert.Equal(t, 200, r.Code, "labels: not checked: %v", r.Object["message"])
	r = do("PATCH", "/api/v1/namespaces/n/pods/p/status", "application/merge-patch+json", `{"status":{"message":"m"}}`)
	assert.Equal(t, 200, r.Code, "status: not checked: %v", r.Object["message"])
	r = do("PATCH", "/api/v1/namespaces/n/pods/p", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","image":"y"}]}}`)
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)`, r.Object["message"], "image changed")
	r = do("PATCH", "/api/v1/namespaces/n/pods/p/ephemeralcontainers", "application/strategic-merge-patch+json", `{"spec":{"ephemeralContainers":[{"name":"d","image":"x"}]}}`)
	assert.Equal(t, 403, r.Code, "ephemeral container added")
	assert.Equal(t, `pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)`, r.Object["message"])
}
