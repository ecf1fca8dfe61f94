package codec

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/internal/codec"
)

func fuzzSeeds(f *testing.F) {
	g := newGen(42)
	for range 20 {
		f.Add(g.yamlDoc())
		f.Add(g.jsonDoc())
		f.Add(g.stream())
	}
	f.Add([]byte("1: a\n'1': b\n"))
	f.Add([]byte("a: &x [1, *x]\n"))
}

// refYAMLValue is the apiserver's YAML body pipeline without the kind check: YAMLToJSON, then
// sigs.k8s.io/json; strictErr is YAMLToJSONStrict's complaint, if any.
func refYAMLValue(data []byte) (v any, strictErr, err error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil, err
	}
	if _, serr := yaml.YAMLToJSONStrict(data); serr != nil {
		strictErr = serr
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &v); err != nil {
		return nil, nil, err
	}
	return v, strictErr, nil
}

// FuzzYAMLVsSigsYAML checks writepath's YAML conversion against sigs.k8s.io/yaml on arbitrary
// bytes: same value, same failures, duplicates reported exactly when YAMLToJSONStrict does.
func FuzzYAMLVsSigsYAML(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, strictErr, refErr := refYAMLValue(data)
		doc, err := codec.Options{Format: codec.FormatYAML, AllowDuplicates: true, MaxBytes: -1}.Decode(data)
		var ce *codec.Error
		if errors.As(err, &ce) && strings.Contains(ce.Detail, "both become the JSON key") {
			return // the reference keeps one of two colliding keys at random; writepath refuses
		}
		if refErr != nil {
			if err == nil {
				t.Fatalf("input %q: reference fails (%v), writepath decodes %#v", data, refErr, doc.Value)
			}
			if ce != nil && ce.Err != nil && refErr.Error() != ce.Err.Error() {
				t.Fatalf("input %q: reference error %q, writepath %q", data, refErr, ce.Err)
			}
			return
		}
		if err != nil {
			t.Fatalf("input %q: writepath fails (%v), reference decodes %#v", data, err, ref)
		}
		if !reflect.DeepEqual(ref, doc.Value) {
			t.Fatalf("input %q:\n ours %#v\n  ref %#v", data, doc.Value, ref)
		}
		if (strictErr != nil) != (len(doc.Warnings) > 0) {
			t.Fatalf("input %q: strict reference says %v, writepath warnings %q", data, strictErr, doc.Warnings)
		}
		if strictErr != nil {
			want := parseYAMLWarnings(strictErr.Error())
			if !reflect.DeepEqual(want, doc.Warnings) {
				t.Fatalf("input %q: warnings ours %q, ref %q", data, doc.Warnings, want)
			}
		}
	})
}

// FuzzStreamsVsKubectl runs arbitrary bytes through kubectl's -f pipeline and writepath's.
func FuzzStreamsVsKubectl(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, refErr := kubectlDocuments(data)
		stream, err := codec.Options{AllowDuplicates: true, MaxBytes: -1}.DecodeStream(data)
		docs := make([]map[string]any, len(stream))
		for i, d := range stream {
			docs[i] = d.Value.(map[string]any)
		}
		flat, flatErr := codec.FlattenLists(docs)
		if flatErr != nil {
			err = flatErr
		}
		var ce *codec.Error
		if errors.As(err, &ce) && strings.Contains(ce.Detail, "both become the JSON key") {
			return
		}
		if refErr != nil {
			if runtime.IsMissingKind(refErr) || strings.Contains(refErr.Error(), "Object 'Kind' is missing") {
				return // kubectl requires a kind when it maps the object; the codec does not
			}
			if err == nil {
				if duplicateItems(stream) {
					return // documented divergence, see TestStreamsVsKubectl
				}
				t.Fatalf("stream %q: kubectl fails (%v), writepath gives %#v", data, refErr, flat)
			}
			return
		}
		if err != nil {
			t.Fatalf("stream %q: writepath fails (%v), kubectl gives %#v", data, err, ref)
		}
		if !reflect.DeepEqual(normalizeEmpty(ref), normalizeEmpty(flat)) {
			t.Fatalf("stream %q:\n ours %#v\n  ref %#v", data, flat, ref)
		}
	})
}
