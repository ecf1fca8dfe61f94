package apply_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/status"
)

// FuzzApplyNumbers applies built-in objects with any number text in integer fields (int32,
// int64, IntOrString), decoded as the apiserver decodes an apply body: no panic, inputs
// unchanged, every error carries a status; a stored object holds only what the JSON decoder
// reads back unchanged (integers within their Go type's range), and applying the same
// configuration again is a no-op even when the stored value is the wrapped one, except for a
// wrapped list key (a Deployment's containerPort), where the list grows by one item, as
// recorded in testdata/apply/realcluster-numbers/deployment-port.
func FuzzApplyNumbers(f *testing.F) {
	for _, n := range []string{"3", "4294967297", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
		"1.0", "1e3", "2.5", "1e30", "-1e30", "4294967298.0", "0x10", ".5", "-0", "18446744073709551616", "1e400"} {
		for which := uint8(0); which < 3; which++ {
			f.Add(which, n)
		}
	}
	configs := []string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: %N\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n      - {name: c, image: nginx, ports: [{containerPort: %N}]}\n",
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - {port: %N, targetPort: %N}\n",
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  terminationGracePeriodSeconds: %N\n  activeDeadlineSeconds: %N\n  containers:\n  - {name: c, image: nginx}\n",
	}
	f.Fuzz(func(t *testing.T, which uint8, number string) {
		switch v, _ := (codec.Options{Format: codec.FormatYAML}).DecodeValue([]byte(number)); v.(type) {
		case int64, float64:
		default:
			return // numbers only (nulls and strings are other stories)
		}
		body := []byte(strings.ReplaceAll(configs[int(which)%len(configs)], "%N", number))
		config, err := codec.Options{Format: codec.FormatYAML}.DecodeObject(body)
		if err != nil {
			return
		}
		before := deepCopy(config)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		res, err := apply.Apply(apply.Request{Config: config, Manager: "m", Now: now, Types: apply.Builtin})
		if !reflect.DeepEqual(before, config) {
			t.Fatal("Apply changed its input")
		}
		if err != nil {
			if se := (*status.Error)(nil); !errors.As(err, &se) {
				t.Fatalf("error without status: %v", err)
			}
			return
		}
		gvk := schema.GroupVersionKind{Version: "v1", Kind: res.Object["kind"].(string)}
		if gvk.Kind == "Deployment" {
			gvk.Group = "apps"
		}
		stored := deepCopy(res.Object)
		delete(stored["metadata"].(map[string]any), "managedFields")
		decoded, err := defaults.Builtin(gvk, stored, defaults.Options{Now: now})
		if err != nil {
			t.Fatalf("the stored object is refused by the JSON decoder: %v", err)
		}
		if !reflect.DeepEqual(decoded, stored) {
			t.Fatalf("the stored object changes when read back:\n%v\n%v", stored, decoded)
		}
		again, err := apply.Apply(apply.Request{Live: res.Object, Config: config, Manager: "m", Now: now.Add(time.Hour), Types: apply.Builtin})
		if err != nil {
			t.Fatalf("re-applying failed: %v", err)
		}
		wantPorts, gotPorts := ports(config), ports(res.Object)
		if len(wantPorts) == 1 && len(gotPorts) == 1 && !reflect.DeepEqual(wantPorts[0].(map[string]any)["containerPort"], gotPorts[0].(map[string]any)["containerPort"]) {
			// the key the applier owns is not the stored item's: the merge adds an item
			if n := len(ports(again.Object)); n != 2 {
				t.Fatalf("re-applying a wrapped list key %q: %d items, want 2", number, n)
			}
			return
		}
		if !again.NoOp {
			t.Fatalf("re-applying %q is not a no-op", number)
		}
	})
}

// ports is the first container's ports of a Deployment; nil for other kinds.
func ports(obj map[string]any) []any {
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	cs, _ := pod["containers"].([]any)
	if len(cs) == 0 {
		return nil
	}
	c, _ := cs[0].(map[string]any)
	l, _ := c["ports"].([]any)
	return l
}
