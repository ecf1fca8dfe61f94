package conversion_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

func widgets() *conversion.CRD {
	data, err := os.ReadFile("../testdata/conversion/widgets-crd.yaml")
	if err != nil {
		panic(err)
	}
	crd, err := conversion.FromCRDBytes(data)
	if err != nil {
		panic(err)
	}
	return crd
}

func show(obj map[string]any) {
	b, _ := codec.EncodeJSON(obj)
	fmt.Println(string(b))
}

func decode(s string) map[string]any {
	obj, err := codec.DecodeObject([]byte(s))
	if err != nil {
		panic(err)
	}
	return obj
}

// A write through the deprecated v1alpha1 is stored at v1: apiVersion rewritten, spec.legacy
// (unknown to v1) pruned, spec.extra pruned to what v1 specifies.
func ExampleConverter_ToStorage() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	stored, err := c.ToStorage(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget",
		"metadata":{"name":"a","namespace":"default"},"spec":{"size":3,"legacy":"old","extra":{"kept":"k","free":1}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	show(stored)
	// Output:
	// {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","namespace":"default"},"spec":{"extra":{"kept":"k"},"size":3}}
}

// A read through v1beta1: the stored object is converted and pruned by v1beta1's schema; the
// default of v1beta1's spec.replicas is not applied on read (only the stored version's are).
func ExampleConverter_Read() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	obj, err := c.Read(decode(`{"apiVersion":"example.com/v1","kind":"Widget",
		"metadata":{"name":"a","namespace":"default","generation":1},"spec":{"size":3,"extra":{"kept":"k"}}}`), "v1beta1")
	if err != nil {
		fmt.Println(err)
		return
	}
	show(obj)
	// Output:
	// {"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"generation":1,"name":"a","namespace":"default"},"spec":{"size":3}}
}

// Convert is the converter alone (no pruning), as the apiserver's crConverter.
func ExampleConverter_Convert() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	obj := decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"replicas":2}}`)
	out, _ := c.Convert(obj, "v1alpha1")
	show(out)
	_, err := c.Convert(obj, "v2")
	fmt.Println(err)
	// Output:
	// {"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"},"spec":{"replicas":2}}
	// request to convert CR to an invalid group/version: example.com/v2
}

// ConvertAndPrune is Convert followed by the pruning of the target version's schema, as the
// apiserver's storage codec converts.
func ExampleConverter_ConvertAndPrune() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	out, _ := c.ConvertAndPrune(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":1,"legacy":"x"}}`), "v1beta1")
	show(out)
	// Output:
	// {"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":1}}
}

// ConvertList converts every item.
func ExampleConverter_ConvertList() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	out, _ := c.ConvertList(decode(`{"apiVersion":"example.com/v1","kind":"WidgetList","items":[
		{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"}},
		{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"b"}}]}`), "v1alpha1")
	show(out)
	// Output:
	// {"apiVersion":"example.com/v1alpha1","items":[{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"}},{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"b"}}],"kind":"WidgetList"}
}

// ReadList reads stored objects through a version, item by item.
func ExampleConverter_ReadList() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	list, _ := c.ReadList([]map[string]any{
		decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","generation":1},"spec":{"replicas":2}}`),
	}, "v1alpha1")
	show(list)
	// Output:
	// {"apiVersion":"example.com/v1alpha1","items":[{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"generation":1,"name":"a"},"spec":{}}],"kind":"WidgetList","metadata":{}}
}

// The warning of a deprecated version without deprecationWarning names the newest served
// version.
func ExampleCRD_Warnings() {
	crd := widgets()
	fmt.Println(crd.Warnings("v1alpha1"))
	fmt.Println(crd.Warnings("v1"))
	// Output:
	// [example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget]
	// []
}

// Plan says which conversions a request goes through.
func ExampleCRD_Plan() {
	crd := widgets()
	steps, warnings, _ := crd.Plan(conversion.Request{Verb: "create", Version: "v1alpha1"})
	for _, s := range steps {
		fmt.Printf("%s -> %s: %s\n", s.From, s.To, s.What)
	}
	fmt.Println(len(warnings), "warning")
	_, _, err := crd.Plan(conversion.Request{Verb: "get", Version: "v9"})
	fmt.Println(err)
	// Output:
	// v1alpha1 -> v1alpha1: decode, default and admission at the request version
	// v1alpha1 -> v1: storage: converted and pruned by the storage version's schema
	// v1 -> v1alpha1: response: read back and converted to the request version
	// 1 warning
	// 404 page not found
}

// A CRD with two storage versions is rejected with apiextensions' words (the message quotes
// every version in full; the causes say what is wrong where).
func ExampleFromCRD() {
	data, _ := os.ReadFile("../testdata/conversion/widgets-crd.yaml")
	_, err := conversion.FromCRDBytes([]byte(strings.Replace(string(data), "storage: false", "storage: true", 1)))
	var st *status.Error
	if errors.As(err, &st) {
		fmt.Println(st.StatusCode(), st.Reason)
		for _, c := range st.Details.Causes {
			if i := strings.LastIndex(c.Message, ": "); i >= 0 && c.Field == "spec.versions" {
				fmt.Printf("%s: ...%s\n", c.Field, c.Message[i:])
			}
		}
	}
	// Output:
	// 422 Invalid
	// spec.versions: ...: must have exactly one version marked as storage version
}

// CheckRoundTrip reports what conversions lose.
func ExampleConverter_CheckRoundTrip() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	for _, rt := range c.CheckRoundTrip([]map[string]any{decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget",
		"metadata":{"name":"a"},"spec":{"size":3,"legacy":"old","extra":{"kept":"k"}}}`)}) {
		fmt.Println(rt.Object, strings.Join(rt.Path, " -> "), rt.Lossless())
		for _, ch := range rt.Changes {
			fmt.Println("  ", ch)
		}
	}
	// Output:
	// a v1alpha1 -> v1 -> v1alpha1 false
	//    spec.legacy: lost (was "old")
	// a v1 -> v1alpha1 -> v1 true
	// a v1 -> v1beta1 -> v1 false
	//    spec.extra: lost (was {"kept":"k"})
}

// PlanMigration: what a storage migration writes, and what it cannot move.
func ExampleConverter_PlanMigration() {
	reg := conversion.NewRegistry("v1")
	_ = reg.Register("v1alpha1", conversion.Spoke{
		ToHub:   func(o map[string]any) (map[string]any, error) { return nil, errors.New("v1alpha1 cannot be upgraded") },
		FromHub: func(o map[string]any) (map[string]any, error) { return o, nil },
	})
	_ = reg.Register("v1beta1", conversion.Spoke{
		ToHub:   func(o map[string]any) (map[string]any, error) { return o, nil },
		FromHub: func(o map[string]any) (map[string]any, error) { return o, nil },
	})
	crd := widgets()
	crd.Strategy = conversion.StrategyWebhook
	crd.Webhook = &conversion.Webhook{ConversionReviewVersions: []string{"v1"}}
	c, _ := conversion.New(crd, conversion.Options{Caller: reg})
	m := c.PlanMigration([]map[string]any{
		decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"b","generation":1},"spec":{"size":1}}`),
		decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a","generation":1},"spec":{"size":1}}`),
	})
	for _, w := range m.Writes {
		fmt.Println("writes", w.Object, "from", w.From)
	}
	for _, s := range m.Stranded {
		fmt.Println("strands", s.Object, "at", s.From+":", s.Err)
	}
	fmt.Println("storedVersions", m.StoredVersions)
	// Output:
	// writes b from v1beta1
	// strands a at v1alpha1: conversion webhook for example.com/v1alpha1, Kind=Widget failed: converting v1alpha1 to hub v1: v1alpha1 cannot be upgraded
	// storedVersions [v1 v1alpha1]
}

// A hub-and-spoke registry answers ConversionReviews in process: spec.count at v1 is
// spec.size at v1beta1.
func ExampleRegistry() {
	reg := conversion.NewRegistry("v1")
	_ = reg.Register("v1beta1", conversion.Spoke{
		ToHub: func(o map[string]any) (map[string]any, error) {
			spec, _ := o["spec"].(map[string]any)
			o["spec"] = map[string]any{"count": spec["size"]}
			return o, nil
		},
		FromHub: func(o map[string]any) (map[string]any, error) {
			spec, _ := o["spec"].(map[string]any)
			o["spec"] = map[string]any{"size": spec["count"]}
			return o, nil
		},
	})
	out, err := reg.ConvertObject(decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{"size":2}}`), "example.com/v1")
	fmt.Println(out["apiVersion"], out["spec"], err)
	// Output:
	// example.com/v1 map[count:2] <nil>
}

// The ConversionReview the apiserver sends.
func ExampleReview_Marshal() {
	r := &conversion.Review{APIVersion: "apiextensions.k8s.io/v1", UID: "0f3c9a6e-1d1b-4b8e-9d0a-3f6e2b1c7a55",
		DesiredAPIVersion: "example.com/v1", Objects: []map[string]any{decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"}}`)}}
	b, _ := r.Marshal()
	fmt.Print(string(b))
	// Output:
	// {"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"0f3c9a6e-1d1b-4b8e-9d0a-3f6e2b1c7a55","desiredAPIVersion":"example.com/v1","objects":[{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"}}]},"response":{"uid":"","convertedObjects":null,"result":{"metadata":{}}}}
}

func ExampleCompareVersions() {
	fmt.Println(schema.CompareVersions("v1", "v1beta2") > 0, schema.CompareVersions("v2alpha1", "v1beta1") < 0, schema.CompareVersions("foo", "v1alpha1") < 0)
	// Output:
	// true true true
}

// The storage version and what is served.
func ExampleCRD_StorageVersion() {
	crd := widgets()
	fmt.Println(crd.StorageVersion(), crd.Served("v1alpha1"), crd.Served("v2"), crd.GroupVersion("v1beta1"))
	// Output:
	// v1 true false example.com/v1beta1
}

// A webhook's side of the protocol: read the review, answer it.
func ExampleParseReview() {
	body := []byte(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u-1","desiredAPIVersion":"example.com/v1","objects":[{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"}}]}}`)
	r, err := conversion.ParseReview(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := []map[string]any{{"apiVersion": r.DesiredAPIVersion, "kind": "Widget", "metadata": map[string]any{"name": "a"}}}
	resp, _ := r.ResponseBody(out, nil)
	fmt.Println(string(resp))
	resp, _ = r.ResponseBody(nil, errors.New("cannot convert"))
	fmt.Println(string(resp))
	// Output:
	// {"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"convertedObjects":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"}}],"result":{"status":"Success"},"uid":"u-1"}}
	// {"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"convertedObjects":[],"result":{"message":"cannot convert","status":"Failure"},"uid":"u-1"}}
}

// The Registry as a Caller: it answers the review the converter sends.
func ExampleRegistry_Call() {
	reg := conversion.NewRegistry("v1")
	id := func(o map[string]any) (map[string]any, error) { return o, nil }
	_ = reg.Register("v1beta1", conversion.Spoke{ToHub: id, FromHub: id})
	r := &conversion.Review{APIVersion: "apiextensions.k8s.io/v1", UID: "u-2", DesiredAPIVersion: "example.com/v1",
		Objects: []map[string]any{decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"}}`)}}
	body, _ := r.Marshal()
	resp, _ := reg.Call(context.Background(), body)
	fmt.Println(resp.StatusCode, string(resp.Body))
	// Output:
	// 200 {"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"convertedObjects":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"}}],"result":{"status":"Success"},"uid":"u-2"}}
}

// The HTTPS client of a conversion webhook, trusting only the CRD's caBundle (here replaced by
// the test server's certificate).
func ExampleNewClient() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		review, _ := conversion.ParseReview(body)
		var out []map[string]any
		for _, o := range review.Objects {
			o["apiVersion"] = review.DesiredAPIVersion
			out = append(out, o)
		}
		resp, _ := review.ResponseBody(out, nil)
		_, _ = w.Write(resp)
	}))
	defer srv.Close()
	crd := widgets()
	crd.Strategy = conversion.StrategyWebhook
	crd.Webhook = &conversion.Webhook{URL: srv.URL + "/convert", ConversionReviewVersions: []string{"v1"}}
	cl, err := conversion.NewClient(crd, conversion.ClientOptions{
		CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), Timeout: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _ := conversion.New(crd, conversion.Options{Caller: cl})
	out, err := c.Convert(decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"}}`), "v1")
	fmt.Println(out["apiVersion"], err, strings.HasSuffix(cl.URL(), "/convert?timeout=5s"))
	// Output:
	// example.com/v1 <nil> true
}

// Diff is the field-by-field comparison behind the round-trip check.
func ExampleDiff() {
	for _, c := range conversion.Diff(decode(`{"spec":{"a":1,"b":[1,2]}}`), decode(`{"spec":{"a":2,"b":[1],"c":true}}`)) {
		fmt.Println(c)
	}
	// Output:
	// spec.a: changed from 1 to 2
	// spec.b[1]: lost (was 2)
	// spec.c: added (true)
}

// What clients get when a conversion fails: on a write, a 500 with the converter's words; on a
// read, a storage error around them.
func ExampleWriteError() {
	c, _ := conversion.New(widgets(), conversion.Options{})
	_, err := c.ToStorage(decode(`{"apiVersion":"example.com/v9","kind":"Widget","metadata":{"name":"a"}}`))
	b, _ := json.Marshal(conversion.WriteError(err))
	fmt.Println(string(b))
	// Output:
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"request to convert CR from an invalid group/version: example.com/v9","code":500}
}

func ExampleReadError() {
	err := conversion.ReadError(errors.New("conversion webhook for example.com/v1, Kind=Widget returned 0 objects, expected 1"), "/example.com/widgets/default/a", 42)
	fmt.Println(err.StatusCode(), err.Reason)
	fmt.Println(err.Message)
	// Output:
	// 500 InternalError
	// Internal error occurred: StorageError: corrupt object, Code: 7, Key: /example.com/widgets/default/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=42: conversion webhook for example.com/v1, Kind=Widget returned 0 objects, expected 1
}

func ExampleListReadError() {
	err := conversion.ListReadError("widgets", "example.com", []conversion.ListFailure{
		{Key: "/registry/example.com/widgets/default/a", Revision: 7, Err: errors.New("conversion webhook for example.com/v1, Kind=Widget failed: no")},
		{Key: "/registry/example.com/widgets/default/b", Revision: 9, Err: errors.New("conversion webhook for example.com/v1, Kind=Widget failed: no")},
	})
	fmt.Println(err.StatusCode(), err.Reason, len(err.Details.Causes))
	fmt.Println(err.Message)
	// Output:
	// 500 StorageReadError 2
	// failed to read one or more widgets.example.com from the storage: StorageError: corrupt object, Code: 7, Key: /registry/example.com/widgets/default/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=7: conversion webhook for example.com/v1, Kind=Widget failed: no (and 1 more)
}
