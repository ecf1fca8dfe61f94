package admission_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

type addLabel struct{}

func (addLabel) Name() string { return "add-label" }
func (addLabel) Admit(_ context.Context, a admission.Attributes) (map[string]any, error) {
	md := a.Object["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		md["labels"] = labels
	}
	labels["defaulted"] = "true"
	return a.Object, nil
}

type denyData struct{}

func (denyData) Name() string { return "deny-data" }
func (denyData) Validate(_ context.Context, a admission.Attributes) ([]string, error) {
	if _, ok := a.Object["data"].(map[string]any)["forbidden"]; ok {
		return []string{"checked"}, errors.New("key forbidden is not allowed")
	}
	return []string{"checked"}, nil
}

var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedEnv() admission.Env { return admission.Env{Now: fixedNow} }

// registrySteps is registry.Admit's steps at fixedNow, uid "uid-1" and generated names in
// sequence.
func registrySteps() registry.AdmitOptions {
	n := 0
	return registry.AdmitOptions{SystemFields: true, Concurrency: true, Now: fixedNow,
		UID:          func() string { return "uid-1" },
		GenerateName: func(base string) string { return registry.GenerateName(base, func(int) int { n++; return n }) }}
}

func TestGoPlugins(t *testing.T) {
	chain, err := admission.New(admission.Config{Mutators: []admission.Mutator{addLabel{}},
		Validators: []admission.Validator{denyData{}}, Namespaces: nsList()})
	require.NoError(t, err)
	req := cmRequest()
	res, err := chain.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "true", res.Object["metadata"].(map[string]any)["labels"].(map[string]any)["defaulted"])
	_, touched := req.Object["metadata"].(map[string]any)["labels"].(map[string]any)["defaulted"]
	assert.False(t, touched, "the plugin got a copy")
	require.Len(t, res.Patches, 1)
	assert.Equal(t, `[{"op":"add","path":"/metadata/labels/defaulted","value":"true"}]`, string(res.Patches[0].Patch))
	assert.Equal(t, []string{"checked"}, res.Warnings)

	req.Object["data"] = map[string]any{"forbidden": "x"}
	_, err = chain.Admit(context.Background(), req)
	require.Error(t, err)
	assert.Equal(t, `configmaps "cm1" is forbidden: key forbidden is not allowed`, err.Error())
	assert.Equal(t, 403, status.CodeOf(err))
}

func TestBuiltins(t *testing.T) {
	terminating := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns1"}, "status": map[string]any{"phase": "Terminating"}}
	cases := []struct {
		name       string
		namespaces []map[string]any
		mutate     func(r *admission.Request)
		wantErr    string
		wantCode   int
		check      func(t *testing.T, obj map[string]any)
	}{
		{name: "system fields and generated name", namespaces: nsList(),
			mutate: func(r *admission.Request) {
				md := r.Object["metadata"].(map[string]any)
				delete(md, "name")
				md["generateName"] = strings.Repeat("x", 70)
				r.Name = ""
			},
			check: func(t *testing.T, obj map[string]any) {
				md := obj["metadata"].(map[string]any)
				assert.Equal(t, strings.Repeat("x", 58)+"cdfgh", md["name"])
				assert.Equal(t, "uid-1", md["uid"])
				assert.Equal(t, "2026-01-02T03:04:05Z", md["creationTimestamp"])
			}},
		{name: "missing namespace", namespaces: nil,
			wantErr: `namespaces "ns1" not found`, wantCode: 404},
		{name: "terminating namespace", namespaces: []map[string]any{terminating},
			wantErr: `configmaps "cm1" is forbidden: unable to create new content in namespace ns1 because it is being terminated`, wantCode: 403},
		{name: "immortal namespace", namespaces: nsList(),
			mutate: func(r *admission.Request) {
				*r = admission.Request{Operation: admission.Delete, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"},
					Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Name: "kube-system"}
			},
			wantErr: `namespaces "kube-system" is forbidden: this namespace may not be deleted`, wantCode: 403},
		{name: "invalid metadata", namespaces: nsList(),
			mutate: func(r *admission.Request) {
				md := r.Object["metadata"].(map[string]any)
				md["name"] = "Bad_Name"
				md["labels"] = map[string]any{"a/b/c": "x", "ok": "bad value!"}
				md["finalizers"] = []any{"-bad"}
				md["annotations"] = map[string]any{"big": strings.Repeat("y", admission.TotalAnnotationSizeLimit)}
			},
			wantErr: `ConfigMap "Bad_Name" is invalid: [` +
				`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), ` +
				`metadata.labels: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'), ` +
				`metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), ` +
				`metadata.annotations: Too long: may not be more than 262144 bytes, ` +
				`metadata.finalizers: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]`,
			wantCode: 422},
		{name: "no new finalizers while deleting", namespaces: nsList(),
			mutate: func(r *admission.Request) {
				r.Operation = admission.Update
				r.OldObject = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm1", "namespace": "ns1",
					"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": []any{"a.io/x"}}}
				md := r.Object["metadata"].(map[string]any)
				md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
				md["finalizers"] = []any{"a.io/x", "b.io/y"}
			},
			wantErr:  `ConfigMap "cm1" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}`,
			wantCode: 422},
		// A changed uid is the storage precondition's 409 before validation
		// could say it is immutable (testdata/versions/cases/configmap-update-wrong-uid.json).
		{name: "uid precondition", namespaces: nsList(),
			mutate: func(r *admission.Request) {
				r.Operation = admission.Update
				r.OldObject = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm1", "namespace": "ns1", "uid": "u1"}}
				r.Object["metadata"].(map[string]any)["uid"] = "u2"
			},
			wantErr:  `Operation cannot be fulfilled on configmaps "cm1": StorageError: invalid object, Code: 4, Key: /registry/configmaps/ns1/cm1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: u2, UID in object meta: u1`,
			wantCode: 409},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chain, err := admission.New(admission.Config{Builtins: admission.Defaults, Namespaces: tc.namespaces, Env: fixedEnv()})
			require.NoError(t, err)
			req := cmRequest()
			if tc.mutate != nil {
				tc.mutate(&req)
			}
			res, err := registry.Admit(context.Background(), chain, req, registrySteps())
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, tc.wantCode, status.CodeOf(err))
				return
			}
			require.NoError(t, err)
			if tc.check != nil {
				tc.check(t, res.Object)
			}
		})
	}
}

// TestConcurrentAdmit runs one compiled chain from several goroutines (run
// with -race): New's result is read-only.
func TestConcurrentAdmit(t *testing.T) {
	docs, err := codec.DecodeDocuments([]byte(examplePolicy))
	require.NoError(t, err)
	chain, err := admission.New(admission.Config{Objects: docs, Builtins: admission.Defaults, Validate: registry.ValidateObjectMeta, Env: fixedEnv(),
		Namespaces: []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "prod"}}},
		Params: []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "limits", "namespace": "prod"}, "data": map[string]any{"max": "3"}}}})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			req := deployment(int64(g))
			req.Operation = admission.Update
			req.OldObject = req.Object
			_, errs[g] = chain.Admit(context.Background(), req)
		}(g)
	}
	wg.Wait()
	for g, err := range errs {
		if g <= 3 {
			assert.NoError(t, err, "replicas %d", g)
		} else {
			assert.Error(t, err, "replicas %d", g)
		}
	}
}
