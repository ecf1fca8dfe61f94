// Package protobuf compares writepath's Kubernetes protobuf codec (internal/codec/protobuf) with
// k8s.io/apimachinery's protobuf serializer over random objects of every built-in kind: the same
// bytes from the same object (writepath encodes the object model the typed object's JSON gives),
// and the same object from the same bytes (writepath's decode against the reference's typed
// decode followed by JSON encoding, as the apiserver answers).
package protobuf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
	"sigs.k8s.io/randfill"

	"github.com/writepath/writepath/internal/codec"
	wpprotobuf "github.com/writepath/writepath/internal/codec/protobuf"
)

func protoScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
		apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme,
	} {
		require.NoError(t, add(s))
	}
	metaGV := runtimeschema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}
	s.AddKnownTypes(metaGV, &metav1.Status{}, &metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadataList{})
	metav1.AddToGroupVersion(s, metaGV)
	s.AddKnownTypes(runtimeschema.GroupVersion{Group: "meta.k8s.io", Version: "v1beta1"}, &metav1beta1.PartialObjectMetadataList{})
	return s
}

var protoStrings = []string{"", "a", "b", "Zürich", "x\x00y", strings.Repeat("long", 40), "<&>", "10%"}

// protoFiller fills typed objects with values every JSON form represents exactly: times at
// whole seconds (MicroTime at microseconds), canonical quantities, raw JSON written compact with
// sorted keys (what writepath's encoder writes), unions in one of their JSON shapes.
func protoFiller(seed int64) *randfill.Filler {
	rawJSON := []string{`{"a":1,"b":[true,null]}`, `{}`, `"s"`, `[1,2.5]`, `{"f:a":{},"k:{\"x\":1}":{".":{}}}`}
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).MaxDepth(7).Funcs(
		func(s *string, c randfill.Continue) { *s = protoStrings[c.Intn(len(protoStrings))] },
		func(i *int32, c randfill.Continue) {
			*i = []int32{0, 1, -1, 127, 128, 300, math.MaxInt32, math.MinInt32}[c.Intn(8)]
		},
		func(i *int64, c randfill.Continue) {
			*i = []int64{0, 1, -1, 1 << 40, math.MaxInt64, math.MinInt64, int64(c.Int31())}[c.Intn(7)]
		},
		func(f *float64, c randfill.Continue) { *f = []float64{0, 1.5, -3, 1e21, 0.1, 12345678}[c.Intn(6)] },
		func(b *[]byte, c randfill.Continue) {
			*b = [][]byte{nil, {}, {0, 1, 2, 255}, []byte("hello")}[c.Intn(4)]
		},
		func(q *resource.Quantity, c randfill.Continue) {
			s := []string{"0", "1", "100m", "1Ki", "1.5Gi", "2e3", "1G", "123456789"}[c.Intn(8)]
			*q = resource.MustParse(s)
			_ = q.String()
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32([]int32{0, 1, -5, 8080}[c.Intn(4)])
			} else {
				*v = intstr.FromString(protoStrings[c.Intn(len(protoStrings))])
			}
		},
		func(t *metav1.Time, c randfill.Continue) {
			if c.Intn(5) == 0 {
				*t = metav1.Time{}
				return
			}
			*t = metav1.Unix(int64(c.Intn(2000000000))-100, 0)
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			if c.Intn(5) == 0 {
				*t = metav1.MicroTime{}
				return
			}
			*t = metav1.NewMicroTime(metav1.Unix(int64(c.Intn(2000000000)), int64(c.Intn(1000000))*1000).Time)
		},
		func(d *metav1.Duration, c randfill.Continue) {
			d.Duration = time.Duration([]int64{0, 1, 1e9, 90e9, -5}[c.Intn(5)])
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			*r = runtime.RawExtension{Raw: []byte(rawJSON[c.Intn(len(rawJSON))])}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) { *f = metav1.FieldsV1{Raw: []byte(rawJSON[c.Intn(2)])} },
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			*j = apiextensionsv1.JSON{Raw: []byte(rawJSON[c.Intn(len(rawJSON))])}
		},
		func(j *apiextensionsv1beta1.JSON, c randfill.Continue) {
			*j = apiextensionsv1beta1.JSON{Raw: []byte(rawJSON[c.Intn(len(rawJSON))])}
		},
		func(u *apiextensionsv1.JSONSchemaPropsOrBool, c randfill.Continue) {
			if c.Bool() {
				*u = apiextensionsv1.JSONSchemaPropsOrBool{Allows: c.Bool()}
				return
			}
			s := apiextensionsv1.JSONSchemaProps{}
			c.Fill(&s.Type)
			c.Fill(&s.Description)
			*u = apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &s}
		},
		func(u *apiextensionsv1.JSONSchemaPropsOrArray, c randfill.Continue) {
			s := apiextensionsv1.JSONSchemaProps{}
			c.Fill(&s.Type)
			if c.Bool() {
				*u = apiextensionsv1.JSONSchemaPropsOrArray{Schema: &s}
				return
			}
			*u = apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1.JSONSchemaProps{s, {}}}
		},
		func(u *apiextensionsv1.JSONSchemaPropsOrStringArray, c randfill.Continue) {
			if c.Bool() {
				s := apiextensionsv1.JSONSchemaProps{}
				c.Fill(&s.Type)
				*u = apiextensionsv1.JSONSchemaPropsOrStringArray{Schema: &s}
				return
			}
			*u = apiextensionsv1.JSONSchemaPropsOrStringArray{Property: []string{"a", ""}}
		},
		func(u *apiextensionsv1beta1.JSONSchemaPropsOrBool, c randfill.Continue) {
			*u = apiextensionsv1beta1.JSONSchemaPropsOrBool{Allows: c.Bool()}
		},
		func(u *apiextensionsv1beta1.JSONSchemaPropsOrArray, c randfill.Continue) {
			*u = apiextensionsv1beta1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1beta1.JSONSchemaProps{{Type: "string"}}}
		},
		func(u *apiextensionsv1beta1.JSONSchemaPropsOrStringArray, c randfill.Continue) {
			*u = apiextensionsv1beta1.JSONSchemaPropsOrStringArray{Property: []string{"x"}}
		},
	)
}

// protoSampleSize is the number of random objects per kind: a seeded sample in make test,
// enough for >=100k cases (encode and decode each) under WRITEPATH_LONG=1.
func protoSampleSize() int {
	if n, err := strconv.Atoi(os.Getenv("PROTOBUF_SAMPLE")); err == nil && n > 0 {
		return n
	}
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 500
	}
	return 8
}

// typedJSON is the apiserver's JSON of a typed object, in the object model.
func typedJSON(t testing.TB, obj runtime.Object) map[string]any {
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	m, err := codec.DecodeObject(b)
	require.NoError(t, err)
	return m
}

func gvkOfKind(k wpprotobuf.Kind) runtimeschema.GroupVersionKind {
	gv, _ := runtimeschema.ParseGroupVersion(k.APIVersion)
	return gv.WithKind(k.Kind)
}

// TestProtobufAgainstReference: for random objects of every kind of the table, writepath's
// Encode of the object's JSON equals the reference serializer's bytes, and writepath's Decode
// of those bytes equals the reference's decode, JSON-encoded.
func TestProtobufAgainstReference(t *testing.T) {
	scheme := protoScheme(t)
	ser := protobuf.NewSerializer(scheme, scheme)
	kinds, err := wpprotobuf.Kinds()
	require.NoError(t, err)
	n := protoSampleSize()
	cases := 0
	var failures []string
	fail := func(format string, args ...any) {
		if len(failures) < 30 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	for ki, k := range kinds {
		if k.Kind == "WatchEvent" {
			continue // TestWatchEventFrames
		}
		gvk := gvkOfKind(k)
		f := protoFiller(int64(ki) + 1)
		for i := 0; i < n; i++ {
			obj, err := scheme.New(gvk)
			require.NoError(t, err, gvk.String())
			f.Fill(obj)
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			// The apiserver's path: the JSON a client sends, decoded into the typed object (a
			// pointer to a zero time the filler made is null in JSON, nil after decoding).
			model := typedJSON(t, obj)
			obj = fromJSONProto(t, scheme, gvk, model)
			var ref bytes.Buffer
			require.NoError(t, ser.Encode(obj, &ref), gvk.String())
			cases++
			mine, err := wpprotobuf.Encode(model)
			if err != nil {
				fail("%s #%d encode: %v", gvk, i, err)
			} else if !bytes.Equal(mine, ref.Bytes()) {
				fail("%s #%d encode differs\n mine %q\n ref  %q\n from %s", gvk, i, mine, ref.Bytes(), mustJSONProto(model))
			}
			back, _, err := ser.Decode(ref.Bytes(), nil, nil)
			require.NoError(t, err, gvk.String())
			back.GetObjectKind().SetGroupVersionKind(gvk)
			want := typedJSON(t, back)
			got, err := wpprotobuf.Decode(ref.Bytes())
			if err != nil {
				fail("%s #%d decode: %v", gvk, i, err)
			} else if !assert.ObjectsAreEqual(want, got) {
				fail("%s #%d decode differs at %s", gvk, i, protoDiffPath("", got, want))
			}
		}
	}
	t.Logf("%d kinds, %d objects compared (encode and decode)", len(kinds), cases)
	for _, f := range failures {
		t.Error(f)
	}
}

func fromJSONProto(t testing.TB, scheme *runtime.Scheme, gvk runtimeschema.GroupVersionKind, model map[string]any) runtime.Object {
	b, err := codec.EncodeJSON(model)
	require.NoError(t, err)
	obj, err := scheme.New(gvk)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, obj), gvk.String())
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj
}

// protoDiffPath names the first place two values of the object model differ.
func protoDiffPath(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: mine %s, ref %s", path, mustJSONProto(a), mustJSONProto(b))
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok {
				return fmt.Sprintf("%s.%s: only mine has it (%s)", path, k, mustJSONProto(v))
			}
			if !assert.ObjectsAreEqual(v, w) {
				return protoDiffPath(path+"."+k, v, w)
			}
		}
		for k, w := range y {
			if _, ok := x[k]; !ok {
				return fmt.Sprintf("%s.%s: only ref has it (%s)", path, k, mustJSONProto(w))
			}
		}
	case []any:
		y, ok := b.([]any)
		if ok && len(x) == len(y) {
			for i := range x {
				if !assert.ObjectsAreEqual(x[i], y[i]) {
					return protoDiffPath(fmt.Sprintf("%s[%d]", path, i), x[i], y[i])
				}
			}
		}
	}
	return fmt.Sprintf("%s: mine %s (%T), ref %s (%T)", path, mustJSONProto(a), a, mustJSONProto(b), b)
}

func mustJSONProto(v any) string {
	b, err := codec.EncodeJSON(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestWatchEventFrames: a watch frame as the apiserver's watch handler writes it (a streaming
// encoder over the raw WatchEvent serializer, the object in the embedded envelope).
func TestWatchEventFrames(t *testing.T) {
	scheme := protoScheme(t)
	ser := protobuf.NewSerializer(scheme, scheme)
	raw := protobuf.NewRawSerializer(scheme, scheme)
	f := protoFiller(7)
	for i, gvk := range []runtimeschema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Namespace"},
		{Group: "apps", Version: "v1", Kind: "Deployment"}, {Version: "v1", Kind: "Status"},
	} {
		obj, err := scheme.New(gvk)
		require.NoError(t, err)
		f.Fill(obj)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		obj = fromJSONProto(t, scheme, gvk, typedJSON(t, obj))
		var inner bytes.Buffer
		require.NoError(t, ser.Encode(obj, &inner))
		var ref bytes.Buffer
		enc := streaming.NewEncoder(protobuf.LengthDelimitedFramer.NewFrameWriter(&ref), raw)
		typ := []string{"ADDED", "MODIFIED", "DELETED", "ERROR"}[i]
		require.NoError(t, enc.Encode(&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: inner.Bytes()}}))
		mine, err := wpprotobuf.EncodeWatchEvent(typ, typedJSON(t, obj))
		require.NoError(t, err)
		assert.Equal(t, ref.Bytes(), mine, gvk.String())
		gotType, gotObj, rest, err := wpprotobuf.ReadWatchEvent(ref.Bytes())
		require.NoError(t, err)
		assert.Equal(t, typ, gotType)
		assert.Empty(t, rest)
		back, _, err := ser.Decode(inner.Bytes(), nil, nil)
		require.NoError(t, err)
		back.GetObjectKind().SetGroupVersionKind(gvk)
		assert.Equal(t, typedJSON(t, back), gotObj, gvk.String())
	}
}
