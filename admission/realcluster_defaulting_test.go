package admission_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

const defaultingDir = "../testdata/admission/realcluster-defaulting"

// defaultingHook answers as record.py's loopback webhook did, by the path it
// is called on (/<scenario>/<action>), and keeps the reviews it was sent.
type defaultingHook struct {
	sent  []map[string]any
	paths []string
}

func (h *defaultingHook) Call(_ context.Context, t admission.WebhookTarget, body []byte) ([]byte, error) {
	v, err := codec.DecodeValue(body)
	if err != nil {
		return nil, err
	}
	review := v.(map[string]any)
	h.sent = append(h.sent, review)
	path := strings.SplitN(strings.TrimPrefix(t.URL, "https://127.0.0.1:18473"), "?", 2)[0]
	h.paths = append(h.paths, path)
	req := review["request"].(map[string]any)
	obj, _ := req["object"].(map[string]any)
	var patch []any
	var warnings []any
	add := func(p string, v any) { patch = append(patch, map[string]any{"op": "add", "path": p, "value": v}) }
	switch path[strings.LastIndexByte(path, '/')+1:] {
	case "sidecar":
		has := false
		cs, _ := at(obj, "spec", "template", "spec", "containers").([]any)
		for _, c := range cs {
			has = has || c.(map[string]any)["name"] == "sidecar"
		}
		if !has {
			add("/spec/template/spec/containers/-", map[string]any{"name": "sidecar", "image": "busybox"})
		}
	case "label":
		if at(obj, "metadata", "labels", "dflt-seen") == nil {
			add("/metadata/labels/dflt-seen", "yes")
		}
	case "strategy":
		patch = []any{map[string]any{"op": "remove", "path": "/spec/strategy"}}
	case "badvalue":
		patch = []any{map[string]any{"op": "replace", "path": "/spec/replicas", "value": "3"}}
	case "parts":
		add("/spec/parts", []any{map[string]any{"name": "a"}})
		patch = append(patch, map[string]any{"op": "remove", "path": "/spec/mode"})
	case "nokind":
		patch = []any{map[string]any{"op": "remove", "path": "/kind"}}
	case "warn":
		warnings = []any{"dup", "dup", "", "line\nbreak"}
		for i := 0; i < 16; i++ {
			warnings = append(warnings, "w"+string(rune('0'+i/10))+string(rune('0'+i%10))+" "+strings.Repeat("x", 300))
		}
		warnings = append(warnings, "dup", "tail")
	}
	resp := map[string]any{"uid": req["uid"], "allowed": true}
	if len(warnings) > 0 {
		resp["warnings"] = warnings
	}
	if patch != nil {
		p, _ := json.Marshal(patch)
		resp["patchType"], resp["patch"] = "JSONPatch", base64.StdEncoding.EncodeToString(p)
	}
	return json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
}

type receivedReview struct {
	Path   string         `json:"path"`
	Review map[string]any `json:"review"`
}

func readReceived(t *testing.T, dir string) []receivedReview {
	f, err := os.Open(filepath.Join(dir, "received.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []receivedReview
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec receivedReview
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		v, err := codec.DecodeValue(mustJSON(t, rec.Review))
		require.NoError(t, err)
		rec.Review = v.(map[string]any)
		out = append(out, rec)
	}
	return out
}

// TestRealClusterDefaulting replays what kube-apiserver 1.37 does after
// mutating admission (testdata/admission/realcluster-defaulting): every
// AdmissionReview writepath sends (reinvocation included) carries the object
// kube-apiserver sent, defaults of the earlier mutations included; the
// admitted object's spec and labels are the stored ones; errors and Warning
// headers are the apiserver's.
func TestRealClusterDefaulting(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(defaultingDir, "*", "response.json"))
	require.NoError(t, err)
	require.Len(t, dirs, 11)
	for _, respPath := range dirs {
		dir := filepath.Dir(respPath)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfgBytes, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
			require.NoError(t, err)
			docs, err := codec.DecodeDocuments([]byte(strings.NewReplacer("CABUNDLE", "", "PORT", "18473").Replace(string(cfgBytes))))
			require.NoError(t, err)
			var crds []*schema.CRD
			var rest []map[string]any
			for _, d := range docs {
				if d["kind"] == "CustomResourceDefinition" {
					crd, err := schema.FromCRD(d)
					require.NoError(t, err)
					crds = append(crds, crd)
					continue
				}
				rest = append(rest, d)
			}
			cfg := splitConfig(t, rest)
			cfg.Versions.CRDs, cfg.Versions.Converter = crds, conversion.Builtin{CRDs: crds}
			got := readReceived(t, dir)
			uids := make([]string, 0, len(got))
			for _, r := range got {
				uids = append(uids, r.Review["request"].(map[string]any)["uid"].(string))
			}
			cfg.Env = admission.Env{ReviewUID: func() string { u := uids[0]; uids = uids[1:]; return u }}
			hook := &defaultingHook{}
			cfg.Client = hook
			chain, err := admission.New(cfg)
			require.NoError(t, err)

			// The object as the apiserver decoded and defaulted the request, with
			// the managedFields its field manager had set before admission.
			objBytes, err := os.ReadFile(filepath.Join(dir, "object.yaml"))
			require.NoError(t, err)
			obj, err := codec.DecodeObject(objBytes)
			require.NoError(t, err)
			gv := obj["apiVersion"].(string)
			group, version := "", gv
			if i := strings.LastIndexByte(gv, '/'); i >= 0 {
				group, version = gv[:i], gv[i+1:]
			}
			kind := obj["kind"].(string)
			if len(crds) > 0 {
				obj = schema.Default(obj, crds[0].Version(version).Structural).(map[string]any)
			} else {
				obj, err = defaults.Builtin(schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, obj, defaults.Options{})
				require.NoError(t, err)
			}
			if len(got) > 0 {
				md := got[0].Review["request"].(map[string]any)["object"].(map[string]any)["metadata"].(map[string]any)
				obj["metadata"].(map[string]any)["managedFields"] = md["managedFields"]
			}
			md := obj["metadata"].(map[string]any)
			resource := map[string]string{"Deployment": "deployments", "Gadget": "gadgets", "ConfigMap": "configmaps", "Event": "events"}[kind]
			res, admitErr := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
				Kind:     schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
				Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource},
				Name:     md["name"].(string), Namespace: md["namespace"].(string), Object: obj, DryRun: true,
				UserInfo: admission.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}})

			var wantPaths []string
			for _, r := range got {
				wantPaths = append(wantPaths, r.Path)
			}
			assert.Equal(t, wantPaths, hook.paths, "webhooks called, in order")
			for i := range got {
				if i >= len(hook.sent) {
					break
				}
				assert.Equal(t, got[i].Review["request"].(map[string]any)["object"], hook.sent[i]["request"].(map[string]any)["object"],
					"object sent to %s", got[i].Path)
			}

			var rec recorded
			b, err := os.ReadFile(respPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			t.Logf("%d reviews compared, response %d", len(got), rec.Code)
			var warns []string
			for _, w := range rec.Warnings {
				warns = append(warns, warningText(w))
			}
			assert.Equal(t, warns, res.Warnings, "Warning headers")
			if rec.Code >= 400 {
				require.Error(t, admitErr)
				gotBody, _ := json.Marshal(admitErr)
				wantBody, _ := json.Marshal(rec.Body)
				assert.JSONEq(t, string(wantBody), string(gotBody))
				return
			}
			require.NoError(t, admitErr)
			want, err := codec.DecodeValue(mustJSON(t, rec.Body))
			require.NoError(t, err)
			assert.Equal(t, at(want, "spec"), res.Object["spec"], "stored spec")
			assert.Equal(t, at(want, "metadata", "labels"), at(res.Object, "metadata", "labels"), "stored labels")
		})
	}
}
