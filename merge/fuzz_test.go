package merge

import (
	"testing"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

func FuzzApplyMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"c":[1]}`), []byte(`{"a":{"b":null,"d":{"e":null}},"c":[{"x":null}]}`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"a":null}]`))
	f.Add([]byte(`{"a":1}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte) {
		doc, err := codec.DecodeObject(docJSON)
		if err != nil {
			return
		}
		before, err := codec.EncodeJSON(doc)
		if err != nil {
			return
		}
		res, err := ApplyMergePatch(doc, patchJSON, Options{FieldValidation: schema.FieldValidationWarn})
		after, _ := codec.EncodeJSON(doc)
		if string(before) != string(after) {
			t.Fatal("object mutated")
		}
		if err != nil {
			return
		}
		// Not idempotent in general, as in the apiserver: a list replacing an
		// object keeps its nulls the first time and loses them the second.
		if _, err := codec.EncodeJSON(res.Object); err != nil {
			t.Fatalf("result outside the object model: %v", err)
		}
	})
}

func FuzzCreateThreeWayMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":{"c":2}}`), []byte(`{"a":2,"b":{}}`), []byte(`{"a":1,"b":{"c":3,"d":4}}`))
	f.Fuzz(func(t *testing.T, o, m, c []byte) {
		original, e1 := codec.DecodeObject(o)
		modified, e2 := codec.DecodeObject(m)
		current, e3 := codec.DecodeObject(c)
		if e1 != nil || e2 != nil || e3 != nil {
			return
		}
		p, err := CreateThreeWayMergePatch(original, modified, current)
		if err != nil {
			return
		}
		if _, err := ApplyMergePatch(current, p, Options{}); err != nil && current != nil {
			t.Fatalf("created patch %s does not apply: %v", p, err)
		}
	})
}

func FuzzApplyStrategic(f *testing.F) {
	f.Add([]byte(`{"metadata":{"finalizers":["a"]},"spec":{"containers":[{"name":"a","image":"x"}]}}`),
		[]byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]},"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b"},{"name":"a","$patch":"delete"}]}}`))
	f.Add([]byte(`{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}`), []byte(`{"spec":{"volumes":[{"name":"v","$retainKeys":["name"]}]}}`))
	f.Add([]byte(`{"metadata":{"finalizers":[]}}`), []byte(`{"metadata":{"finalizers":[null]}}`))
	kind, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		f.Fatal(err)
	}
	meta, err := KindMeta(kind)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte) {
		doc, err := codec.DecodeObject(docJSON)
		if err != nil {
			return
		}
		before, err := codec.EncodeJSON(doc)
		if err != nil {
			return
		}
		res, err := ApplyStrategic(doc, patchJSON, meta, Options{})
		after, _ := codec.EncodeJSON(doc)
		if string(before) != string(after) {
			t.Fatal("object mutated")
		}
		if err == nil {
			if _, err := codec.EncodeJSON(res.Object); err != nil {
				t.Fatalf("result outside the object model: %v", err)
			}
		}
	})
}

func FuzzCreateThreeWayStrategic(f *testing.F) {
	f.Add([]byte(`{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"a"}]}}}}`),
		[]byte(`{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"b"}]}}}}`),
		[]byte(`{"spec":{"replicas":12,"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`), false)
	kind, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		f.Fatal(err)
	}
	meta, err := KindMeta(kind)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, o, m, c []byte, overwrite bool) {
		original, e1 := codec.DecodeObject(o)
		modified, e2 := codec.DecodeObject(m)
		current, e3 := codec.DecodeObject(c)
		if e1 != nil || e2 != nil || e3 != nil {
			return
		}
		ob, _ := codec.EncodeJSON(original)
		mb, _ := codec.EncodeJSON(modified)
		cb, _ := codec.EncodeJSON(current)
		_, _ = CreateThreeWayStrategic(original, modified, current, meta, overwrite)
		_, _ = CreateStrategic(original, modified, meta)
		ob2, _ := codec.EncodeJSON(original)
		mb2, _ := codec.EncodeJSON(modified)
		cb2, _ := codec.EncodeJSON(current)
		if string(ob) != string(ob2) || string(mb) != string(mb2) || string(cb) != string(cb2) {
			t.Fatal("input mutated")
		}
	})
}

func FuzzClientSideApply(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}`),
		[]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"spec\":{\"replicas\":3}}\n"}},"spec":{"replicas":12}}`), true)
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"w"}}`), []byte(`{"metadata":{"name":"x","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"not json"}}}`), false)
	kind, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		f.Fatal(err)
	}
	meta, err := KindMeta(kind)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, configJSON, liveJSON []byte, strategic bool) {
		config, err1 := codec.DecodeObject(configJSON)
		live, err2 := codec.DecodeObject(liveJSON)
		if err1 != nil || err2 != nil || config == nil {
			return
		}
		cb, _ := codec.EncodeJSON(config)
		lb, _ := codec.EncodeJSON(live)
		opts := ClientApplyOptions{}
		if strategic {
			opts.Meta = meta
		}
		_, _ = ClientSideApply(config, live, opts)
		_, _ = LastAppliedConfiguration(config)
		_, _ = CreateMergePatch(config, live)
		cb2, _ := codec.EncodeJSON(config)
		lb2, _ := codec.EncodeJSON(live)
		if string(cb) != string(cb2) || string(lb) != string(lb2) {
			t.Fatal("input mutated")
		}
	})
}
