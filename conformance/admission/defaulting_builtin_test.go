package admission

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
	wdefaults "github.com/writepath/writepath/schema/defaults"
)

// typedObjects are the ObjectInterfaces of a built-in resource's request
// scope over typed objects: the json serializer decodes patched objects into
// the Go type, and the scheme's defaulting functions (k8s.io/kubernetes is not
// a dependency of this module) are defaults.Builtin's, which
// conformance/defaults checks against k8s.io/kubernetes' legacyscheme. The
// attributes hold apps/v1 objects, so the final conversion is a copy.
type typedObjects struct {
	admission.ObjectInterfaces
}

func (o typedObjects) GetObjectDefaulter() runtime.ObjectDefaulter { return o }
func (o typedObjects) GetObjectConvertor() runtime.ObjectConvertor { return o }

func (o typedObjects) Default(obj runtime.Object) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		panic(err)
	}
	out, err := wdefaults.Builtin(wschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, m, wdefaults.Options{})
	if err != nil {
		panic(err)
	}
	*d = appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out, d); err != nil {
		panic(err)
	}
}

func (o typedObjects) Convert(in, out, _ interface{}) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	*out.(*appsv1.Deployment) = appsv1.Deployment{}
	return json.Unmarshal(b, out)
}
func (o typedObjects) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (o typedObjects) ConvertFieldLabel(schema.GroupVersionKind, string, string) (string, string, error) {
	return "", "", nil
}

// pointerInListPatch adds a volume without a source: defaulting gives it
// emptyDir: {}, which the patch drops again when its webhook is reinvoked (a
// pointer field's empty struct inside a list: a change for the dispatcher).
const pointerInListPatch = `[{"op":"add","path":"/spec/template/spec/volumes","value":[{"name":"v"}]}]`

var deploymentPatches = []string{
	`[{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"sidecar","image":"busybox"}}]`,
	`[{"op":"remove","path":"/spec/strategy"}]`,
	`[{"op":"remove","path":"/spec/revisionHistoryLimit"}]`,
	`[{"op":"remove","path":"/spec/template/spec/containers/0/imagePullPolicy"}]`,
	`[{"op":"replace","path":"/spec/template/spec/containers/0/terminationMessagePath","value":""}]`,
	`[{"op":"add","path":"/spec/paused","value":false}]`,
	`[{"op":"add","path":"/spec/minReadySeconds","value":0}]`,
	`[{"op":"add","path":"/spec/bogus","value":{"x":1}}]`,
	`[{"op":"add","path":"/status","value":{"replicas":0}}]`,
	`[{"op":"add","path":"/spec/template/spec/containers/0/resources","value":{"limits":{"cpu":"1000m"}}}]`,
	`[{"op":"add","path":"/spec/template/spec/containers/0/resources","value":{"limits":{"cpu":"lots"}}}]`,
	`[{"op":"replace","path":"/spec/replicas","value":2}]`,
	`[{"op":"add","path":"/spec/template/spec/securityContext","value":null}]`,
	`[{"op":"add","path":"/spec/template/spec/tolerations","value":[]}]`,
	`[{"op":"remove","path":"/spec/template/spec/dnsPolicy"},{"op":"add","path":"/metadata/annotations","value":{}}]`,
	`[{"op":"replace","path":"/spec/strategy","value":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}]`,
	`[{"op":"replace","path":"/spec/replicas","value":"3"}]`,
	`[{"op":"add","path":"/spec/template/spec/containers/0/securityContext","value":null}]`,
	pointerInListPatch,
	`[]`,
}

func genDeployment(r *rand.Rand) map[string]any {
	c := map[string]any{"name": "app", "image": pick(r, "app:1", "app", "app@sha256:"+strings.Repeat("a", 64))}
	if r.IntN(2) == 0 {
		c["resources"] = map[string]any{"requests": map[string]any{"memory": pick(r, "1Gi", "512Mi")}}
	}
	spec := map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "d"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "d"}},
			"spec": map[string]any{"containers": []any{c}}}}
	if r.IntN(2) == 0 {
		spec["strategy"] = map[string]any{"type": "Recreate"}
	}
	if r.IntN(2) == 0 {
		spec["replicas"] = int64(r.IntN(4))
	}
	md := map[string]any{"name": "d1", "namespace": "ns-a"}
	if r.IntN(3) == 0 {
		md["labels"] = map[string]any{"seen": "before"}
	}
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md, "spec": spec}
	out, err := wdefaults.Builtin(wschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, obj, wdefaults.Options{})
	if err != nil {
		panic(err)
	}
	return out
}

// TestWebhookPatchDefaultingBuiltin runs k8s.io/apiserver's mutating webhook
// plugin over typed Deployments (the patched JSON decoded into
// apps/v1.Deployment by the json serializer, defaulted, compared with
// apiequality.Semantic) and Admit: a first webhook (reinvocationPolicy
// IfNeeded) answers a generated patch each time it is called, a second adds a
// label once. The reviews sent (so which webhooks are reinvoked, the
// dispatcher's "changed" being judged before defaulting), the admitted object
// and the errors must be equal, encoding/json's type errors included. 300
// cases normally, 100,000 with WRITEPATH_LONG=1.
func TestWebhookPatchDefaultingBuiltin(t *testing.T) {
	w := newWorld(t)
	hook := &gizmoHook{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(hook.answer(r.URL.Path, b))
	}))
	defer srv.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	mk := func(name, config string) map[string]any {
		return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
			"metadata": map[string]any{"name": config}, "webhooks": []any{map[string]any{"name": name + ".example.com", "matchPolicy": "Equivalent",
				"rules":        []any{map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"deployments"}}},
				"clientConfig": map[string]any{"url": srv.URL + "/" + name, "caBundle": ca},
				"sideEffects":  "None", "admissionReviewVersions": []any{"v1"}, "failurePolicy": "Fail", "timeoutSeconds": int64(10),
				"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "reinvocationPolicy": "IfNeeded"}}}
	}
	cfgA, cfgB := mk("h0", "a"), mk("h1", "b")
	var ma, mb admissionregistrationv1.MutatingWebhookConfiguration
	fromMap(t, cfgA, &ma)
	fromMap(t, cfgB, &mb)
	client := fake.NewSimpleClientset(&ma, &mb)
	factory := informers.NewSharedInformerFactory(client, 0)
	plugin, err := webhookmutating.NewMutatingWebhook(nil)
	require.NoError(t, err)
	plugin.SetExternalKubeClientSet(client)
	plugin.SetExternalKubeInformerFactory(factory)
	require.NoError(t, plugin.ValidateInitialization())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	require.Eventually(t, func() bool { return plugin.WaitForReady() }, 10*time.Second, 10*time.Millisecond)
	o := typedObjects{admission.NewObjectInterfacesFromScheme(clientscheme.Scheme)}

	chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{cfgA, cfgB}, Namespaces: w.namespaces, Client: hook})
	require.NoError(t, err)

	r := rand.New(rand.NewPCG(6, 61))
	n := sampleSize(300)
	failed, reinvoked, typeErrors := 0, 0, 0
	for i := 0; i < n; i++ {
		obj := genDeployment(r)
		hook.patch = pick(r, deploymentPatches...)
		var d appsv1.Deployment
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(deepCopy(obj), &d))
		attrs := admission.NewAttributesRecord(&d, nil, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "ns-a", "d1",
			schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "", admission.Create, nil, false,
			&user.DefaultInfo{Name: "alice"})
		refErr := plugin.Admit(context.Background(), attrs, o)
		if refErr == nil {
			if rc := attrs.GetReinvocationContext(); rc.ShouldReinvoke() {
				rc.SetIsReinvoke()
				reinvoked++
				refErr = plugin.Admit(context.Background(), attrs, o)
			}
		}
		refSent := hook.take()

		got, gotErr := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Create,
			Kind:     wschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Resource: wschema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			Name:     "d1", Namespace: "ns-a", Object: obj, UserInfo: wadmission.UserInfo{Username: "alice"}})
		ourSent := hook.take()

		desc, _ := json.Marshal(map[string]any{"patch": hook.patch, "obj": obj})
		if refErr != nil {
			failed++
			if !assert.Error(t, gotErr, "case %d: %s", i, desc) {
				return
			}
			want := refErr.Error()
			if strings.Contains(want, "json: cannot unmarshal") {
				typeErrors++
			}
			if !assert.Equal(t, want, gotErr.Error(), "case %d: %s", i, desc) {
				return
			}
		} else if !assert.NoError(t, gotErr, "case %d: %s", i, desc) {
			return
		}
		if !sameReviewObjects(t, refSent, ourSent, i, desc) {
			return
		}
		if refErr != nil {
			continue
		}
		want, _ := json.Marshal(attrs.GetObject())
		gotObj, _ := json.Marshal(got.Object)
		if !assert.JSONEq(t, string(want), string(gotObj), "case %d: %s", i, desc) {
			return
		}
	}
	t.Logf("%d cases (%d rejected, %d of them type errors; %d reinvoked), 0 disagreements",
		n, failed, typeErrors, reinvoked)
}
