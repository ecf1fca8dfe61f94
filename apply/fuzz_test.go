package apply_test

import (
	"errors"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/status"
)

// FuzzApply runs Apply and Update on arbitrary live objects and configurations: no panic,
// inputs unchanged, every error carries a status, applying a successful result's
// configuration again is a no-op (idempotence), and WouldConflict's shortcut, when it answers,
// equals the whole computation.
func FuzzApply(f *testing.F) {
	seeds := []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`,
		`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t","managedFields":[{"manager":"m","operation":"Update","apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:a":{}}}}]},"spec":{"a":1}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a"},{"name":"a"}]}}`,
		`{"metadata":{"managedFields":"junk"}}`,
	}
	for _, l := range seeds {
		for _, c := range seeds {
			f.Add(l, c, "alice", false)
		}
	}
	f.Fuzz(func(t *testing.T, liveJSON, configJSON, manager string, force bool) {
		config, err := codec.DecodeObject([]byte(configJSON))
		if err != nil {
			return
		}
		var live map[string]any
		if l, err := codec.DecodeObject([]byte(liveJSON)); err == nil {
			live = l
		}
		types := apply.Builtin
		if av, _ := config["apiVersion"].(string); av == "example.com/v1" {
			types = apply.Deduced
		}
		liveBefore, configBefore := deepCopy(live), deepCopy(config)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		// WouldConflict's shortcut, when it answers, equals the whole computation.
		wreq := apply.Request{Live: live, Config: config, Manager: manager, Now: now, Types: types, LibraryOnly: true}
		if quick, ok := apply.QuickConflicts(wreq); ok {
			full, err := apply.FullConflicts(wreq)
			if err != nil || !reflect.DeepEqual(quick, full) {
				t.Fatalf("WouldConflict shortcut %v, whole apply %v (%v)", quick, full, err)
			}
		}
		res, err := apply.Apply(apply.Request{Live: live, Config: config, Manager: manager, Force: force, Now: now, Types: types})
		if !reflect.DeepEqual(liveBefore, live) || !reflect.DeepEqual(configBefore, config) {
			t.Fatal("Apply changed its input")
		}
		if err != nil {
			if se := (*status.Error)(nil); !errors.As(err, &se) {
				t.Fatalf("error without status: %v", err)
			}
		} else if utf8.ValidString(manager) {
			// (A manager name that is not UTF-8 is stored as U+FFFD and names another manager on
			// the next request, in the apiserver too: no idempotence then.)
			again, err := apply.Apply(apply.Request{Live: res.Object, Config: config, Manager: manager, Force: force, Now: now.Add(time.Hour), Types: types})
			if err != nil {
				t.Fatalf("re-applying the same configuration failed: %v", err)
			}
			if !again.NoOp {
				t.Fatalf("re-applying the same configuration is not a no-op")
			}
		}
		if live != nil {
			ures, err := apply.Update(apply.UpdateRequest{Live: live, Object: config, Manager: manager, Now: now, Types: types})
			if !reflect.DeepEqual(liveBefore, live) || !reflect.DeepEqual(configBefore, config) {
				t.Fatal("Update changed its input")
			}
			if err == nil && ures.Object == nil {
				t.Fatal("Update returned no object")
			}
		}
	})
}
