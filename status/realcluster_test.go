package status_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// realClusterDir holds the Status bodies recorded from kube-apiserver 1.37 by
// testdata/status/realcluster/record.sh.
const realClusterDir = "../testdata/status/realcluster"

// TestRealClusterBodies checks, for every recorded response, that the
// constructor the apiserver used, given the same inputs, marshals to the very
// bytes the apiserver sent, and that the body decodes and re-encodes unchanged.
func TestRealClusterBodies(t *testing.T) {
	configmaps := status.GroupResource{Resource: "configmaps"}
	widgets := status.GroupResource{Group: "fielderrors.writepath.io", Resource: "widgets"}
	meta := field.NewPath("metadata")
	cases := map[string]*status.Error{
		"notfound":      status.NotFound(configmaps, "missing"),
		"notfound-crd":  status.NotFound(widgets, "missing"),
		"notfound-html": status.NotFound(configmaps, "a<b>&é"),
		"alreadyexists": status.AlreadyExists(configmaps, "cm1"),
		"conflict": status.Conflict(configmaps, "cm1",
			errors.New("the object has been modified; please apply your changes to the latest version and try again")),
		"forbidden": status.Forbidden(configmaps, "cm1",
			errors.New(`User "fielderrors-nobody" cannot get resource "configmaps" in API group "" in the namespace "fielderrors-rec"`)),
		"invalid": status.Invalid(status.GroupKind{Kind: "ConfigMap"}, "Bad_Name", field.ErrorList{
			field.Invalid(meta.Child("name"), "Bad_Name", "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
			field.Invalid(meta.Child("labels"), "-x", "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
			field.Invalid(field.NewPath("data").Key("a/b"), "a/b", "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"),
		}),
		"invalid-deployment": status.Invalid(status.GroupKind{Group: "apps", Kind: "Deployment"}, "d", field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), int64(-1), "must be greater than or equal to 0"),
			field.Invalid(field.NewPath("spec", "template", "metadata", "labels"), map[string]string{"app": "y"}, "`selector` does not match template `labels`"),
			field.Required(field.NewPath("spec", "template", "spec", "containers"), ""),
		}),
		"badrequest": status.BadRequest("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({\"data\":\n)"),
		"toolarge":   status.RequestEntityTooLarge("limit is 3145728"),
		"unsupportedmediatype-crd": status.UnknownBodyFormat([]string{
			"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}),
		"unsupportedmediatype": status.RouteError(415, "415: Unsupported Media Type"),
		"methodnotallowed":     status.RouteError(405, "405: Method Not Allowed"),
	}
	files, err := filepath.Glob(filepath.Join(realClusterDir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, len(cases), "every recorded body has a case")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			want, ok := cases[name]
			require.True(t, ok, "no case for %s", file)
			body, err := os.ReadFile(file)
			require.NoError(t, err)
			codeText, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".code")
			require.NoError(t, err)
			code, err := strconv.Atoi(strings.TrimSpace(string(codeText)))
			require.NoError(t, err)

			got, err := json.Marshal(want)
			require.NoError(t, err)
			assert.Equal(t, string(body), string(got)+"\n", "constructor output vs the apiserver's body for %s", name)
			assert.Equal(t, code, want.StatusCode(), "HTTP code of %s", name)

			var back status.Error
			require.NoError(t, json.Unmarshal(body, &back))
			again, err := json.Marshal(&back)
			require.NoError(t, err)
			assert.Equal(t, string(body), string(again)+"\n", "decode and re-encode of %s", name)
			assert.Equal(t, want.Error(), back.Error())
		})
	}
}
