package conversion_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
)

const recordedHook = "../testdata/conversion/realcluster-webhook/"

// hookExchange is one ConversionReview the real apiserver sent and the webhook's answer.
type hookExchange struct {
	name               string
	request, response  []byte
	http               string
	review             *conversion.Review
	object, desiredVer string
}

func recordedExchanges(t *testing.T) []hookExchange {
	t.Helper()
	files, err := filepath.Glob(recordedHook + "request-*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []hookExchange
	for _, f := range files {
		n := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "request-"), ".json")
		req, err := os.ReadFile(f)
		require.NoError(t, err)
		resp, err := os.ReadFile(recordedHook + "response-" + n + ".json")
		require.NoError(t, err)
		h, err := os.ReadFile(recordedHook + "request-" + n + ".http")
		require.NoError(t, err)
		r, err := conversion.ParseReview(req)
		require.NoError(t, err)
		require.Len(t, r.Objects, 1)
		md := r.Objects[0]["metadata"].(map[string]any)
		out = append(out, hookExchange{name: n, request: req, response: resp, http: string(h), review: r,
			object: md["name"].(string), desiredVer: strings.TrimPrefix(r.DesiredAPIVersion, "conversion.writepath.test/")})
	}
	return out
}

func recordedHookCRD(t *testing.T) *conversion.CRD { return recordedHookCRDFile(t, "crd.yaml") }

// crdFor returns the CRD of the exchange: BetaHook objects belong to the CRD that lists
// v1beta1 first in conversionReviewVersions.
func crdFor(t *testing.T, x hookExchange) *conversion.CRD {
	if x.review.Objects[0]["kind"] == "BetaHook" {
		return recordedHookCRDFile(t, "crd-v1beta1-review.yaml")
	}
	return recordedHookCRD(t)
}

func recordedHookCRDFile(t *testing.T, name string) *conversion.CRD {
	data, err := os.ReadFile(recordedHook + name)
	require.NoError(t, err)
	crd, err := conversion.FromCRDBytes(data)
	require.NoError(t, err)
	return crd
}

// replayCaller answers a request with the recorded answer to the exchange x (its uid is the
// recorded request's: the converter is given that uid).
func replayCaller(x hookExchange) conversion.Caller {
	return callerFunc(func([]byte) (*conversion.Response, error) {
		return &conversion.Response{StatusCode: 200, ContentType: "application/json", Body: x.response}, nil
	})
}

// TestRecordedWebhookRequests: for every ConversionReview kube-apiserver 1.37 sent, writepath
// converting the same object to the same version sends the same bytes (given the same uid), to
// the same URL with the same headers.
func TestRecordedWebhookRequests(t *testing.T) {
	reviews := map[string]int{}
	for _, x := range recordedExchanges(t) {
		reviews[x.review.APIVersion]++
		crd := crdFor(t, x)
		cl, err := conversion.NewClient(crd, conversion.ClientOptions{})
		require.NoError(t, err)
		var sent []byte
		c, err := conversion.New(crd, conversion.Options{UID: func() string { return x.review.UID }, Caller: callerFunc(func(body []byte) (*conversion.Response, error) {
			sent = body
			return &conversion.Response{StatusCode: 200, ContentType: "application/json", Body: x.response}, nil
		})})
		require.NoError(t, err)
		_, _ = c.Convert(x.review.Objects[0], x.desiredVer)
		assert.Equal(t, string(x.request), string(sent), "request %s", x.name)
		u := strings.TrimPrefix(cl.URL(), "https://")
		path := u[strings.Index(u, "/"):]
		assert.Equal(t, "POST "+path+"\nContent-Type: application/json\nAccept: application/json, */*\n", x.http, "request %s", x.name)
	}
	assert.Positive(t, reviews["apiextensions.k8s.io/v1"])
	assert.Positive(t, reviews["apiextensions.k8s.io/v1beta1"], "the CRD listing v1beta1 first gets v1beta1 reviews")
}

var revisionRx = regexp.MustCompile(`Key: (\S+), ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=(\d+): `)

// TestRecordedWebhookAnswers: what clients got back — reads through v1beta1 of objects whose
// conversion fails (the storage error wrapping the converter's message), writes through
// v1beta1 that fail (500, the converter's message), and successful conversions.
func TestRecordedWebhookAnswers(t *testing.T) {
	crd := recordedHookCRD(t)
	xs := recordedExchanges(t)
	find := func(object, desired string, uid string) hookExchange {
		for _, x := range xs {
			if x.object == object && x.desiredVer == desired && (uid == "" || x.review.UID == uid) {
				return x
			}
		}
		t.Fatalf("no recorded exchange for %s to %s (uid %q)", object, desired, uid)
		return hookExchange{}
	}
	uidRx := regexp.MustCompile(`expected response.uid=\\?"([^"\\]+)`)
	for _, b := range []string{"fewer", "uid", "rename", "fail", "json"} {
		t.Run("get-bad-"+b, func(t *testing.T) {
			body, err := os.ReadFile(recordedHook + "get-bad-" + b + "-v1beta1.json")
			require.NoError(t, err)
			uid := ""
			if m := uidRx.FindSubmatch(body); m != nil {
				uid = string(m[1])
			}
			x := find("bad-"+b, "v1beta1", uid)
			c, err := conversion.New(crd, conversion.Options{UID: func() string { return x.review.UID }, Caller: replayCaller(x)})
			require.NoError(t, err)
			_, err = c.Read(x.review.Objects[0], "v1beta1")
			require.Error(t, err)
			m := revisionRx.FindSubmatch(body)
			require.NotNil(t, m, "%s", body)
			rev, _ := strconv.ParseInt(string(m[2]), 10, 64)
			got, jerr := json.Marshal(conversion.ReadError(err, string(m[1]), rev))
			require.NoError(t, jerr)
			assert.JSONEq(t, string(body), string(got))
		})
	}
	for _, tc := range []struct{ file, object string }{{"create-bad-fail-v1beta1", "bad-fail2"}, {"create-bad-version-v1beta1", "bad-version2"}} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(recordedHook + tc.file + ".json")
			require.NoError(t, err)
			x := find(tc.object, "v1", "")
			c, err := conversion.New(crd, conversion.Options{UID: func() string { return x.review.UID }, Caller: replayCaller(x)})
			require.NoError(t, err)
			_, err = c.ToStorage(x.review.Objects[0])
			require.Error(t, err)
			got, jerr := json.Marshal(conversion.WriteError(err))
			require.NoError(t, jerr)
			assert.Equal(t, string(body), string(got)+"\n", "the answer's bytes (the server's encoder ends with a newline)")
		})
	}
	// successful reads: the stored object (read through v1) read through v1beta1.
	for _, tc := range []struct{ stored, read, object string }{{"get-good-v1", "get-good-v1beta1", "good"}, {"get-labels-v1", "create-labels-v1beta1", "labels"}, {"get-beta-v1", "create-beta-v1beta1", "beta-good"}} {
		t.Run(tc.read, func(t *testing.T) {
			stored := decodeFile(t, recordedHook+tc.stored+".json")
			want := decodeFile(t, recordedHook+tc.read+".json")
			x := find(tc.object, "v1beta1", "")
			c, err := conversion.New(crdFor(t, x), conversion.Options{UID: func() string { return x.review.UID }, Caller: replayCaller(x)})
			require.NoError(t, err)
			got, err := c.Read(stored, "v1beta1")
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
	// a write through v1beta1: the stored object is what the webhook answered, its labels kept
	// and the rest of its metadata restored from the request.
	t.Run("create-labels-v1beta1-stored", func(t *testing.T) {
		x := find("labels", "v1", "")
		c, err := conversion.New(crd, conversion.Options{UID: func() string { return x.review.UID }, Caller: replayCaller(x)})
		require.NoError(t, err)
		got, err := c.ToStorage(x.review.Objects[0])
		require.NoError(t, err)
		stored := decodeFile(t, recordedHook+"get-labels-v1.json")
		assert.Equal(t, stored["spec"], got["spec"])
		assert.Equal(t, stored["metadata"].(map[string]any)["labels"], got["metadata"].(map[string]any)["labels"])
		assert.Equal(t, int64(1), got["metadata"].(map[string]any)["generation"], "generation restored from the original")
	})
}

func decodeFile(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	obj, err := codec.DecodeObject(data)
	require.NoError(t, err)
	return obj
}

// TestRecordedWebhookList: a list through v1beta1 with five objects whose conversion fails.
func TestRecordedWebhookList(t *testing.T) {
	crd := recordedHookCRD(t)
	xs := recordedExchanges(t)
	body, err := os.ReadFile(recordedHook + "list-v1beta1-with-bad.json")
	require.NoError(t, err)
	var st struct {
		Details struct {
			Causes []struct{ Message, Field string }
		}
	}
	require.NoError(t, json.Unmarshal(body, &st))
	require.Len(t, st.Details.Causes, 5)
	var failures []conversion.ListFailure
	for _, cause := range st.Details.Causes {
		// key and revision are the storage's; the uid of the failed review is in the message.
		m := revisionRx.FindStringSubmatch(cause.Message)
		require.NotNil(t, m)
		rev, _ := strconv.ParseInt(m[2], 10, 64)
		name := cause.Field[strings.LastIndex(cause.Field, "/")+1:]
		var x *hookExchange
		for i := range xs {
			if xs[i].object == name && xs[i].desiredVer == "v1beta1" && (!strings.Contains(cause.Message, "response.uid") || strings.Contains(cause.Message, xs[i].review.UID)) {
				x = &xs[i]
			}
		}
		require.NotNil(t, x, name)
		c, err := conversion.New(crd, conversion.Options{UID: func() string { return x.review.UID }, Caller: replayCaller(*x)})
		require.NoError(t, err)
		_, err = c.Read(x.review.Objects[0], "v1beta1")
		require.Error(t, err)
		failures = append(failures, conversion.ListFailure{Key: cause.Field, Revision: rev, Err: err})
	}
	got, err := json.Marshal(conversion.ListReadError("convhooks", "conversion.writepath.test", failures))
	require.NoError(t, err)
	assert.JSONEq(t, string(body), string(got))
}
