package conversion_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
)

// FuzzConvert: any object through every entry point of the None strategy: no panic, the input
// unchanged, a converted object at the target version.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":3,"legacy":"x","extra":{"a":[1,2]}}}`,
		`{"apiVersion":"example.com/v1","kind":"WidgetList","items":[{"apiVersion":"example.com/v1beta1","kind":"Widget"},null,7]}`,
		`{"apiVersion":"example.com/v9","kind":"Widget"}`,
		`{"apiVersion":7,"kind":[],"metadata":"x"}`,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","labels":{"a":1}},"spec":null}`,
	} {
		f.Add([]byte(s), "v1beta1")
	}
	c, err := conversion.New(widgets(), conversion.Options{})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte, version string) {
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return
		}
		before, err := value.DeepCopyMap(obj)
		require.NoError(t, err)
		out, err := c.Convert(obj, version)
		if err == nil {
			assert.Equal(t, "example.com/"+version, out["apiVersion"])
		}
		_, _ = c.ConvertList(obj, version)
		_, _ = c.ToStorage(obj)
		_, _ = c.Read(obj, version)
		_ = c.CheckRoundTrip([]map[string]any{obj})
		_ = c.PlanMigration([]map[string]any{obj})
		assert.Equal(t, before, obj, "input modified")
	})
}

// FuzzWebhookResponse: any webhook answer: no panic, the input unchanged, and on success an
// object at the target version with the original's name, namespace and uid.
func FuzzWebhookResponse(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","result":{"status":"Success"},"convertedObjects":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","labels":{"x":"y"}}}]}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","result":{"status":"Failure","message":"no"}}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview"}`,
		`{"response":{"convertedObjects":[null,"x",{"kind":""}]}}`,
		`not json`,
		``,
	} {
		f.Add([]byte(s), 200, true)
	}
	crd := widgets()
	f.Fuzz(func(t *testing.T, body []byte, code int, list bool) {
		crd := *crd
		crd.Strategy = conversion.StrategyWebhook
		crd.Webhook = &conversion.Webhook{ConversionReviewVersions: []string{"v1"}}
		c, err := conversion.New(&crd, conversion.Options{UID: func() string { return "u" }, Caller: callerFunc(func([]byte) (*conversion.Response, error) {
			return &conversion.Response{StatusCode: code, Body: body}, nil
		})})
		require.NoError(t, err)
		in := decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a","namespace":"n","uid":"x"}}`)
		if list {
			in = decode(`{"apiVersion":"example.com/v1alpha1","kind":"WidgetList","items":[{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a","namespace":"n","uid":"x"}}]}`)
		}
		before, _ := value.DeepCopyMap(in)
		var out map[string]any
		if list {
			out, err = c.ConvertList(in, "v1")
		} else {
			out, err = c.Convert(in, "v1")
		}
		assert.Equal(t, before, in, "input modified")
		if err != nil {
			return
		}
		obj := out
		if list {
			obj = out["items"].([]any)[0].(map[string]any)
		}
		assert.Equal(t, "example.com/v1", obj["apiVersion"])
		md := obj["metadata"].(map[string]any)
		assert.Equal(t, "a", md["name"])
		assert.Equal(t, "x", md["uid"])
	})
}

// FuzzFromCRD: any CRD-shaped document: no panic, the input unchanged.
func FuzzFromCRD(f *testing.F) {
	f.Add([]byte(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a/b"}}}`))
	f.Add([]byte(`{"strategy":"None","webhook":{"clientConfig":{"service":{"name":"s","namespace":"n","port":"x"}}}}`))
	f.Add([]byte(`"x"`))
	f.Fuzz(func(t *testing.T, conv []byte) {
		var c any
		if err := json.Unmarshal(conv, &c); err != nil {
			return
		}
		v, err := codec.DecodeValue(conv)
		if err != nil {
			return
		}
		obj := crdWith(t, func(spec map[string]any) { spec["conversion"] = v })
		before, _ := value.DeepCopyMap(obj)
		crd, err := conversion.FromCRD(obj)
		assert.Equal(t, before, obj, "input modified")
		if err == nil && crd.Strategy == conversion.StrategyWebhook {
			_, _ = conversion.NewClient(crd, conversion.ClientOptions{})
		}
	})
}

// FuzzRegistryCall: any request body to the in-process webhook: no panic, an answer.
func FuzzRegistryCall(f *testing.F) {
	f.Add([]byte(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u","desiredAPIVersion":"example.com/v1","objects":[{"apiVersion":"example.com/v1beta1","kind":"Widget"}]}}`))
	reg := conversion.NewRegistry("v1")
	id := func(o map[string]any) (map[string]any, error) { return o, nil }
	require.NoError(f, reg.Register("v1beta1", conversion.Spoke{ToHub: id, FromHub: id}))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := reg.Call(context.Background(), body)
		require.NoError(t, err)
		assert.NotNil(t, resp)
	})
}
