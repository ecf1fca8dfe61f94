package conversion_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

const recorded = "../testdata/conversion/realcluster/"

func readRecorded(t *testing.T, name string) (map[string]any, int, []string) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(recorded, name+".json"))
	require.NoError(t, err)
	codeText, err := os.ReadFile(filepath.Join(recorded, name+".code"))
	require.NoError(t, err)
	code, err := strconv.Atoi(strings.TrimSpace(string(codeText)))
	require.NoError(t, err)
	var warnings []string
	if w, err := os.ReadFile(filepath.Join(recorded, name+".warnings")); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(w)), "\n") {
			if line == "" {
				continue
			}
			// 299 - "text"
			q := strings.TrimPrefix(line, "299 - ")
			s, err := strconv.Unquote(q)
			require.NoError(t, err, line)
			warnings = append(warnings, s)
		}
	}
	if code >= 300 {
		return map[string]any{"text": strings.TrimSpace(string(body))}, code, warnings
	}
	obj, err := codec.DecodeObject(body)
	require.NoError(t, err)
	return obj, code, warnings
}

func recordedCRD(t *testing.T) *conversion.Converter {
	t.Helper()
	data, err := os.ReadFile(recorded + "crd.yaml")
	require.NoError(t, err)
	crd, err := conversion.FromCRDBytes(data)
	require.NoError(t, err)
	c, err := conversion.New(crd, conversion.Options{})
	require.NoError(t, err)
	return c
}

// TestRecordedReads replays the reads recorded from kube-apiserver 1.37: the stored object
// (read through the storage version) read through every other version.
func TestRecordedReads(t *testing.T) {
	c := recordedCRD(t)
	for _, tc := range []struct{ stored, read, version string }{
		{"get-w1-v1", "get-w1-v1", "v1"},
		{"get-w1-v1", "get-w1-v1alpha1", "v1alpha1"},
		{"get-w1-v1", "get-w1-v1beta1", "v1beta1"},
		{"get-w1-v1", "create-v1alpha1", "v1alpha1"},
		{"create-v1", "get-w2-v1alpha1", "v1alpha1"},
		{"create-v1", "get-w2-v1beta1", "v1beta1"},
		{"get-w3-v1", "create-v1beta1", "v1beta1"},
	} {
		t.Run(tc.read, func(t *testing.T) {
			stored, _, _ := readRecorded(t, tc.stored)
			want, code, warnings := readRecorded(t, tc.read)
			require.Less(t, code, 300)
			got, err := c.Read(stored, tc.version)
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s read through %s", tc.stored, tc.version)
			if strings.HasPrefix(tc.read, "get-") {
				assert.Equal(t, warnings, c.CRD().Warnings(tc.version), "warnings of %s", tc.read)
			}
		})
	}
}

// TestRecordedWrites replays the creates: decoded at the request version (schema), converted
// to storage and pruned by its schema (conversion), then read back.
func TestRecordedWrites(t *testing.T) {
	c := recordedCRD(t)
	for _, tc := range []struct{ create, stored, version string }{
		{"create-v1alpha1", "get-w1-v1", "v1alpha1"},
		{"create-v1", "create-v1", "v1"},
		{"create-v1beta1", "get-w3-v1", "v1beta1"},
	} {
		t.Run(tc.create, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(recorded, tc.create+".request.json"))
			require.NoError(t, err)
			req, err := codec.DecodeObject(body)
			require.NoError(t, err)
			req["metadata"].(map[string]any)["namespace"] = "conversion-rec" // from the URL
			_, _, warnings := readRecorded(t, tc.create)
			stored, _, _ := readRecorded(t, tc.stored)
			res, err := c.CRD().Schema.Version(tc.version).Process(schema.Request{Object: req, FieldValidation: schema.FieldValidationWarn})
			require.NoError(t, err)
			require.Empty(t, res.Errors)
			got, err := c.ToStorage(res.Object)
			require.NoError(t, err)
			assert.Equal(t, stored["spec"], got["spec"], "stored spec of %s", tc.create)
			assert.Equal(t, stored["apiVersion"], got["apiVersion"])
			// The write's warnings, in the order the apiserver sent them: the version's
			// deprecation warning, then field validation's.
			assert.Equal(t, warnings, res.Warnings, "warnings of %s", tc.create)
		})
	}
}

// TestRecordedLists: every item of a list converted on its own.
func TestRecordedLists(t *testing.T) {
	c := recordedCRD(t)
	storedList, _, _ := readRecorded(t, "list-v1")
	var stored []map[string]any
	for _, it := range storedList["items"].([]any) {
		stored = append(stored, it.(map[string]any))
	}
	for _, v := range []string{"v1alpha1", "v1beta1", "v1"} {
		want, _, warnings := readRecorded(t, "list-"+v)
		got, err := c.ReadList(stored, v)
		require.NoError(t, err)
		assert.Equal(t, want["items"], got["items"], "list through %s", v)
		assert.Equal(t, want["apiVersion"], got["apiVersion"])
		assert.Equal(t, want["kind"], got["kind"])
		assert.Equal(t, warnings, c.CRD().Warnings(v))
	}
}

// TestRecordedUnserved: v2 is not served: no route, 404 "404 page not found".
func TestRecordedUnserved(t *testing.T) {
	c := recordedCRD(t)
	for _, tc := range []struct{ name, verb string }{{"get-w1-v2", "get"}, {"create-v2", "create"}} {
		want, code, _ := readRecorded(t, tc.name)
		_, _, err := c.CRD().Plan(conversion.Request{Verb: tc.verb, Version: "v2"})
		var ns *conversion.NotServedError
		require.ErrorAs(t, err, &ns)
		assert.Equal(t, code, ns.StatusCode())
		assert.Equal(t, want["text"], err.Error())
	}
}

// TestRecordedKubectlWarning: kubectl prints the warning header of a read through a deprecated
// version as "Warning: <text>".
func TestRecordedKubectlWarning(t *testing.T) {
	c := recordedCRD(t)
	stderr, err := os.ReadFile(recorded + "kubectl-get-v1alpha1.stderr")
	require.NoError(t, err)
	var want []string
	for _, w := range c.CRD().Warnings("v1alpha1") {
		want = append(want, "Warning: "+w)
	}
	assert.Equal(t, strings.Join(want, "\n")+"\n", string(stderr))
}
