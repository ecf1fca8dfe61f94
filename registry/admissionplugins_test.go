package registry_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// disabling is a World with some admission plugins off (registry.AdmissionPluginDisabler).
type disabling struct {
	*registry.Static
	off map[string]bool
}

func (w disabling) AdmissionPluginDisabled(name string) bool { return w.off[name] }

// pluginRow is one request that an admission plugin changes or refuses when on, and that
// passes unchanged when the plugin is disabled.
type pluginRow struct {
	plugin string
	// objs are the world's objects besides namespace ns and its default ServiceAccount.
	objs                      []string
	user                      registry.User
	method, path, ctype, body string
	// onCode and offCode are the response codes with the plugin on and off.
	onCode, offCode int
	// field is where the plugin writes in the response object: onValue with the plugin on,
	// absent with it off. Empty for a plugin that refuses.
	field   []any
	onValue any
}

const (
	pluginPod        = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`
	pluginConfigMap  = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`
	pluginClaim      = `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`
	pluginCSRPath    = "/apis/certificates.k8s.io/v1/certificatesigningrequests/c"
	pluginStoredCSR  = `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c","uid":"u-c","resourceVersion":"10","creationTimestamp":"2026-12-04T01:00:00Z"},"spec":{"request":"` + testCSR + `","signerName":"example.com/signer","usages":["client auth"],"username":"system:node:a","groups":["system:nodes","system:authenticated"]}}`
	pluginWebhookCfg = `"webhooks":[{"name":"w.example.com","clientConfig":{"url":"https://w.example.com/x"},"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}],"failurePolicy":"Fail","sideEffects":"None","admissionReviewVersions":["v1"]}]`
)

var pluginRows = []pluginRow{
	{plugin: "NamespaceLifecycle", method: "POST", path: "/api/v1/namespaces/gone/configmaps", body: pluginConfigMap, onCode: 404, offCode: 201},
	{plugin: "NamespaceLifecycle", objs: []string{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-public"}}`},
		method: "DELETE", path: "/api/v1/namespaces/kube-public", onCode: 403, offCode: 200},
	{plugin: "LimitRanger", objs: []string{`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"lr","namespace":"ns"},"spec":{"limits":[{"type":"Container","default":{"cpu":"500m"}}]}}`},
		method: "POST", path: "/api/v1/namespaces/ns/pods", body: pluginPod, onCode: 201, offCode: 201,
		field: []any{"spec", "containers", 0, "resources", "limits", "cpu"}, onValue: "500m"},
	{plugin: "LimitRanger", objs: []string{`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"lr","namespace":"ns"},"spec":{"limits":[{"type":"PersistentVolumeClaim","min":{"storage":"2Gi"}}]}}`},
		method: "POST", path: "/api/v1/namespaces/ns/persistentvolumeclaims", body: pluginClaim, onCode: 403, offCode: 201},
	{plugin: "ServiceAccount", method: "POST", path: "/api/v1/namespaces/ns/pods", body: pluginPod, onCode: 201, offCode: 201,
		field: []any{"spec", "serviceAccountName"}, onValue: "default"},
	{plugin: "TaintNodesByCondition", method: "POST", path: "/api/v1/nodes", body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`, onCode: 201, offCode: 201,
		field: []any{"spec", "taints"}, onValue: []any{map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}}},
	{plugin: "PodSecurity", objs: []string{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"strict","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}}`,
		`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"strict"}}`},
		method: "POST", path: "/api/v1/namespaces/strict/pods",
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"hostNetwork":true,"containers":[{"name":"app","image":"nginx"}]}}`, onCode: 403, offCode: 201},
	{plugin: "Priority", method: "POST", path: "/api/v1/namespaces/ns/pods", body: pluginPod, onCode: 201, offCode: 201,
		field: []any{"spec", "priority"}, onValue: float64(0)},
	{plugin: "Priority", method: "POST", path: "/api/v1/namespaces/ns/pods",
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"priorityClassName":"missing","containers":[{"name":"app","image":"nginx"}]}}`, onCode: 403, offCode: 201},
	{plugin: "DefaultTolerationSeconds", method: "POST", path: "/api/v1/namespaces/ns/pods", body: pluginPod, onCode: 201, offCode: 201,
		field: []any{"spec", "tolerations", 0, "tolerationSeconds"}, onValue: float64(300)},
	{plugin: "DefaultStorageClass", objs: []string{`{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"example.com/p"}`},
		method: "POST", path: "/api/v1/namespaces/ns/persistentvolumeclaims", body: pluginClaim, onCode: 201, offCode: 201,
		field: []any{"spec", "storageClassName"}, onValue: "fast"},
	{plugin: "StorageObjectInUseProtection", method: "POST", path: "/api/v1/namespaces/ns/persistentvolumeclaims", body: pluginClaim, onCode: 201, offCode: 201,
		field: []any{"metadata", "finalizers"}, onValue: []any{"kubernetes.io/pvc-protection"}},
	{plugin: "PersistentVolumeClaimResize",
		objs:   []string{`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c","namespace":"ns","uid":"u-c","resourceVersion":"10","creationTimestamp":"2026-12-04T01:00:00Z"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeName":"pv","storageClassName":"","volumeMode":"Filesystem"},"status":{"phase":"Bound"}}`},
		method: "PATCH", path: "/api/v1/namespaces/ns/persistentvolumeclaims/c", ctype: "application/merge-patch+json",
		body: `{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`, onCode: 403, offCode: 200},
	{plugin: "RuntimeClass", method: "POST", path: "/api/v1/namespaces/ns/pods",
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"runtimeClassName":"missing","containers":[{"name":"app","image":"nginx"}]}}`, onCode: 403, offCode: 201},
	{plugin: "CertificateApproval", objs: []string{pluginStoredCSR}, user: certNobody, method: "PATCH", path: pluginCSRPath + "/approval", ctype: "application/json-patch+json",
		body: `[{"op":"add","path":"/status","value":{"conditions":[{"type":"Approved","status":"True","reason":"R"}]}}]`, onCode: 403, offCode: 200},
	{plugin: "CertificateSigning", objs: []string{pluginStoredCSR}, user: certNobody, method: "PATCH", path: pluginCSRPath + "/status", ctype: "application/merge-patch+json",
		body: `{"status":{"certificate":"` + testCABase64 + `"}}`, onCode: 403, offCode: 200},
	{plugin: "ClusterTrustBundleAttest", user: certNobody, method: "POST", path: "/apis/certificates.k8s.io/v1/clustertrustbundles",
		body:   `{"apiVersion":"certificates.k8s.io/v1","kind":"ClusterTrustBundle","metadata":{"name":"example.com:signer:b"},"spec":{"signerName":"example.com/signer","trustBundle":` + jsonString(testCAPEM) + `}}`,
		onCode: 403, offCode: 201},
	{plugin: "CertificateSubjectRestriction", user: certAdmin, method: "POST", path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
		body:   `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"m"},"spec":{"request":"` + testMastersCSR + `","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth","digital signature"]}}`,
		onCode: 403, offCode: 201},
	{plugin: "DefaultIngressClass", objs: []string{`{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}},"spec":{"controller":"example.com/ingress"}}`},
		method: "POST", path: "/apis/networking.k8s.io/v1/namespaces/ns/ingresses",
		body:   `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i"},"spec":{"defaultBackend":{"service":{"name":"s","port":{"number":80}}}}}`,
		onCode: 201, offCode: 201, field: []any{"spec", "ingressClassName"}, onValue: "nginx"},
	{plugin: "PodTopologyLabels", objs: []string{`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"topology.kubernetes.io/zone":"z1"}}}`},
		method: "POST", path: "/api/v1/namespaces/ns/pods",
		body:   `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n1","containers":[{"name":"app","image":"nginx"}]}}`,
		onCode: 201, offCode: 201, field: []any{"metadata", "labels", "topology.kubernetes.io/zone"}, onValue: "z1"},
	{plugin: "NodeDeclaredFeatureValidator", objs: []string{`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"8Gi"}}}`, pluginBoundPod("n1")},
		method: "PATCH", path: "/api/v1/namespaces/ns/pods/p/resize", ctype: "application/strategic-merge-patch+json",
		body: `{"spec":{"initContainers":[{"name":"i","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]}}`, onCode: 403, offCode: 200},
	{plugin: "PodResizeValidator", objs: []string{pluginBoundPod("missing")},
		method: "PATCH", path: "/api/v1/namespaces/ns/pods/p/resize", ctype: "application/strategic-merge-patch+json",
		body: `{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]}}`, onCode: 403, offCode: 200},
	{plugin: "MutatingAdmissionPolicy", objs: []string{
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"label"},"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"x\": \"y\"}}}"}}]}}`,
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"label"},"spec":{"policyName":"label"}}`},
		method: "POST", path: "/api/v1/namespaces/ns/configmaps", body: pluginConfigMap, onCode: 201, offCode: 201,
		field: []any{"metadata", "labels", "x"}, onValue: "y"},
	{plugin: "MutatingAdmissionWebhook", objs: []string{`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"m"},` + pluginWebhookCfg + `}`},
		method: "POST", path: "/api/v1/namespaces/ns/configmaps", body: pluginConfigMap, onCode: 500, offCode: 201},
	{plugin: "ValidatingAdmissionPolicy", objs: []string{
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"deny"},"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"false"}]}}`,
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"deny"},"spec":{"policyName":"deny","validationActions":["Deny"]}}`},
		method: "POST", path: "/api/v1/namespaces/ns/configmaps", body: pluginConfigMap, onCode: 422, offCode: 201},
	{plugin: "ValidatingAdmissionWebhook", objs: []string{`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"v"},` + pluginWebhookCfg + `}`},
		method: "POST", path: "/api/v1/namespaces/ns/configmaps", body: pluginConfigMap, onCode: 500, offCode: 201},
	{plugin: "ResourceQuota", objs: []string{`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q","namespace":"ns"},"spec":{"hard":{"configmaps":"0"}},"status":{"hard":{"configmaps":"0"},"used":{"configmaps":"0"}}}`},
		method: "POST", path: "/api/v1/namespaces/ns/configmaps", body: pluginConfigMap, onCode: 403, offCode: 201},
}

// pluginBoundPod is a stored Guaranteed Pod on node with a container and a non-sidecar init
// container, as kube-apiserver stores it.
func pluginBoundPod(node string) string {
	res := `"resources":{"requests":{"cpu":"1","memory":"64Mi"},"limits":{"cpu":"1","memory":"64Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"`
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u-p","resourceVersion":"10","generation":1,"creationTimestamp":"2026-12-04T01:00:00Z"},` +
		`"spec":{"nodeName":"` + node + `","restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler","securityContext":{},"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0,` +
		`"containers":[{"name":"app","image":"nginx",` + res + `}],"initContainers":[{"name":"i","image":"nginx",` + res + `}]},"status":{"phase":"Pending","qosClass":"Guaranteed"}}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// inertPlugins are modelled plugins that do nothing in 1.37, on or off.
var inertPlugins = map[string]bool{"PodGroupProtection": true}

// TestDisableAdmissionPlugins: each modelled plugin changes or refuses a request when on, and
// changes and refuses nothing when the World disables it; every modelled plugin has a row.
func TestDisableAdmissionPlugins(t *testing.T) {
	rowOf := map[string]bool{}
	for _, row := range pluginRows {
		rowOf[row.plugin] = true
		objs := objectsOf(t, append([]string{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}}`,
			`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"ns"}}`}, row.objs...)...)
		static, err := registry.NewStatic(objs, registry.StaticOptions{})
		require.NoError(t, err, row.plugin)
		user := row.user
		if user.Name == "" {
			user = certAdmin
		}
		ctype := row.ctype
		if ctype == "" && row.body != "" {
			ctype = "application/json"
		}
		for _, on := range []bool{true, false} {
			w := disabling{Static: static, off: map[string]bool{row.plugin: !on}}
			resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: row.method, Path: row.path, ContentType: ctype,
				Body: []byte(row.body), User: user, Now: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)})
			require.NoError(t, err, row.plugin)
			code := row.offCode
			if on {
				code = row.onCode
			}
			require.Equal(t, code, resp.Code, "%s on=%v %s %s: %s", row.plugin, on, row.method, row.path, resp.Body)
			if row.field == nil {
				continue
			}
			var obj map[string]any
			require.NoError(t, json.Unmarshal(resp.Body, &obj))
			got, found := fieldAt(obj, row.field)
			if on {
				assert.Equal(t, row.onValue, got, "%s on: %v", row.plugin, row.field)
			} else {
				assert.False(t, found, "%s off: %v is %v", row.plugin, row.field, got)
			}
		}
	}
	for _, p := range registry.AdmissionPlugins() {
		if p.Modelled && !inertPlugins[p.Name] {
			assert.True(t, rowOf[p.Name], "%s is modelled but has no pluginRows row", p.Name)
		}
	}
}

// fieldAt is the value at path (map keys and list indexes) in obj.
func fieldAt(obj any, path []any) (any, bool) {
	v := obj
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil, false
			}
			v = l[k]
		}
	}
	return v, true
}

// TestValidateDisabledAdmissionPlugins: kube-apiserver's words for unknown names; every name
// it knows is accepted.
func TestValidateDisabledAdmissionPlugins(t *testing.T) {
	var all []string
	for _, p := range registry.AdmissionPlugins() {
		all = append(all, p.Name)
	}
	assert.NoError(t, registry.ValidateDisabledAdmissionPlugins(all))
	assert.NoError(t, registry.ValidateDisabledAdmissionPlugins(nil))
	assert.EqualError(t, registry.ValidateDisabledAdmissionPlugins([]string{"ServiceAccount", "Nope"}), `disable-admission-plugins plugin "Nope" is unknown`)
	assert.EqualError(t, registry.ValidateDisabledAdmissionPlugins([]string{"Nope", "serviceaccount", "Nope"}),
		`[disable-admission-plugins plugin "Nope" is unknown, disable-admission-plugins plugin "serviceaccount" is unknown]`)
	assert.EqualError(t, registry.ValidateDisabledAdmissionPlugins([]string{""}), `disable-admission-plugins plugin "" is unknown`)
}
