package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"k8s.io/client-go/tools/record"
)

// sampleSize is n histories by default, long (>=100,000 syncs) with WRITEPATH_LONG=1, and
// WRITEPATH_HISTORIES when set (a run of any size in between).
func sampleSize(n, long int) int {
	if h, err := strconv.Atoi(os.Getenv("WRITEPATH_HISTORIES")); err == nil && h > 0 {
		return h
	}
	if os.Getenv("WRITEPATH_LONG") != "" {
		return long
	}
	return n
}

// field reads an unexported field of a controller (its sync handler, expectations,
// queue): the harness drives the real controller one sync at a time.
func field[T any](ptr any, name string) T {
	v := reflect.ValueOf(ptr).Elem().FieldByName(name)
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface().(T)
}

// setField sets an unexportable field of a controller (its event recorder).
func setField(ptr any, name string, v any) {
	f := reflect.ValueOf(ptr).Elem().FieldByName(name)
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(v))
}

type syncFunc = func(context.Context, string) error

// toTyped converts an object-model map into a typed object through JSON.
func toTyped(m map[string]any, out any) {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
}

// toMap converts a typed object into the object model (integers as int64).
func toMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return ints(out).(map[string]any)
}

func ints(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = ints(x)
		}
	case []any:
		for i, x := range t {
			t[i] = ints(x)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

var broadcaster = record.NewBroadcaster()

// jsonMarshalSorted marshals with sorted keys (encoding/json sorts map keys).
func jsonMarshalSorted(v any) ([]byte, error) { return json.Marshal(v) }

func TestMain(m *testing.M) {
	// The reference controllers log every unowned ReplicaSet as an error; keep test output short.
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
