package defaults_test

import (
	"testing"
	"time"

	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// FuzzDefaultBuiltinUnstructured: any object of any built-in kind never panics and is never
// modified; where the JSON decoder's reading (Builtin) succeeds, the converter's gives
// the same object; what the converter's reading gives, the JSON decoder reads back unchanged
// (every integer stored within its Go type's range).
func FuzzDefaultBuiltinUnstructured(f *testing.F) {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		f.Fatal(err)
	}
	var gvks []schema.GroupVersionKind
	deploy, svc, pod, cm := 0, 0, 0, 0
	for _, k := range kinds {
		if defaults.Handles(k.GVK) && k.ServedByDefault {
			switch k.GVK {
			case deployGVK:
				deploy = len(gvks)
			case serviceGVK:
				svc = len(gvks)
			case podGVK:
				pod = len(gvks)
			case schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}:
				cm = len(gvks)
			}
			gvks = append(gvks, k.GVK)
		}
	}
	for _, n := range []string{"4294967297", "2147483648", "-2147483649", "9223372036854775807", "2.5", "1.0", "1e30", "-1e30", "9223372036854775808", "4294967298.0", "-0.0"} {
		f.Add(uint16(deploy), []byte(`{"spec":{"replicas":`+n+`,"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":`+n+`}]}]}}}}`))
		f.Add(uint16(svc), []byte(`{"spec":{"ports":[{"port":`+n+`,"targetPort":`+n+`,"nodePort":`+n+`}]}}`))
		f.Add(uint16(cm), []byte(`{"binaryData":{"b":[`+n+`,256,-1,null]}}`))
		f.Add(uint16(pod), []byte(`{"spec":{"terminationGracePeriodSeconds":`+n+`,"activeDeadlineSeconds":`+n+`,"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":`+n+`}}}]}}`))
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		var obj map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err != nil || obj == nil {
			return
		}
		gvk := gvks[int(which)%len(gvks)]
		obj["apiVersion"], obj["kind"] = gvk.APIVersion(), gvk.Kind
		before := mustJSON(t, obj)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		out, err := defaults.Builtin(gvk, obj, defaults.Options{Now: now, Unstructured: true})
		if after := mustJSON(t, obj); after != before {
			t.Fatalf("input modified:\n%s\n%s", before, after)
		}
		if viaJSON, jerr := defaults.Builtin(gvk, obj, defaults.Options{Now: now}); jerr == nil {
			if err != nil {
				t.Fatalf("%v: the JSON reading succeeds, the converter's fails: %v", gvk, err)
			}
			if a, b := mustJSON(t, viaJSON), mustJSON(t, out); a != b {
				t.Fatalf("%v: the readings differ:\n%s\n%s", gvk, a, b)
			}
		}
		if err != nil {
			return
		}
		again, err := defaults.Builtin(gvk, out, defaults.Options{Now: now})
		if err != nil {
			t.Fatalf("%v: the converted object is refused by the JSON reading: %v\n%s", gvk, err, mustJSON(t, out))
		}
		if a, b := mustJSON(t, out), mustJSON(t, again); a != b {
			t.Fatalf("%v: not a fixpoint:\n%s\n%s", gvk, a, b)
		}
	})
}
