package validation_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/schema/validation"
)

// recordedStep is one request of testdata/validation/kinds (record.sh) and the real
// apiserver's answer.
type recordedStep struct {
	Method   string         `json:"method"`
	Path     string         `json:"path"`
	Body     string         `json:"body"`
	Code     int            `json:"code"`
	Response map[string]any `json:"response"`
}

// TestRecordedInvalid replays the real apiserver's 422s: the request body defaulted as the
// registry holds it (for an update, with the stored object the earlier create answered and the
// metadata rest.BeforeUpdate copies from it), validated by Validate or ValidateUpdate; the
// causes (reason, field, message) must be the recorded ones, in order.
func TestRecordedInvalid(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/validation/kinds/*")
	require.NoError(t, err)
	replayed := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		require.NoError(t, err)
		sort.Strings(files)
		stored := map[string]map[string]any{} // object path -> last stored answer
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var st recordedStep
			require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(data, &st), f)
			objPath, sub := objectPath(st)
			if st.Code < 300 {
				stored[objPath] = st.Response
				continue
			}
			if st.Code != 422 {
				continue
			}
			replayed++
			var body map[string]any
			require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts([]byte(st.Body), &body), f)
			gvk, err := schema.FromAPIVersionAndKind(body["apiVersion"].(string), body["kind"].(string))
			require.NoError(t, err, f)
			obj, err := defaults.Builtin(gvk, body, defaults.Options{Now: time.Unix(0, 0)})
			require.NoError(t, err, f)
			md := obj["metadata"].(map[string]any)
			if ns := namespaceOf(st.Path); ns != "" && gvk.Kind != "Namespace" {
				md["namespace"] = ns
			}
			var got []string
			if spec, ok := obj["spec"].(map[string]any); ok && gvk.Kind == "Service" && st.Method == "POST" {
				// The Service storage's create step before validation (normalizeClusterIPs): a
				// clusterIP without clusterIPs becomes its first value. The registry's, not
				// validation's.
				if ip, _ := spec["clusterIP"].(string); ip != "" && spec["clusterIPs"] == nil {
					spec["clusterIPs"] = []any{ip}
				}
			}
			if st.Method == "POST" {
				for _, e := range validation.Validate(gvk, obj, validation.Options{}) {
					got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
				}
			} else {
				old := stored[objPath]
				require.NotNil(t, old, "%s: no stored object for %s", f, objPath)
				oldMD := old["metadata"].(map[string]any)
				for _, k := range []string{"uid", "creationTimestamp", "generation"} {
					if v, ok := oldMD[k]; ok {
						md[k] = v
					}
				}
				if sub == "status" {
					obj["spec"] = old["spec"]
				}
				if sub == "finalize" {
					obj["status"] = old["status"]
				}
				for _, e := range validation.ValidateUpdate(gvk, obj, old, validation.Options{Subresource: sub}) {
					got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
				}
			}
			var want []string
			details, _ := st.Response["details"].(map[string]any)
			causes, _ := details["causes"].([]any)
			for _, c := range causes {
				cm := c.(map[string]any)
				fieldName, _ := cm["field"].(string)
				want = append(want, cm["reason"].(string)+" "+fieldName+": "+cm["message"].(string))
			}
			// The apiserver walks a map's keys (data, labels) in Go's random order; writepath in
			// sorted order: a list with map-keyed errors is compared sorted.
			if mapKeyed(want) {
				sort.Strings(want)
				sort.Strings(got)
			}
			assert.Equal(t, want, got, "%s: %s %s\n%s", f, st.Method, st.Path, st.Body)
		}
	}
	t.Logf("%d recorded 422s replayed", replayed)
}

// objectPath is the path of the object a request writes (a POST's collection path plus the
// body's name) and the subresource it names.
func objectPath(st recordedStep) (string, string) {
	p := st.Path
	if st.Method == "POST" {
		var body map[string]any
		if json.Unmarshal([]byte(st.Body), &body) == nil {
			if md, ok := body["metadata"].(map[string]any); ok {
				if name, ok := md["name"].(string); ok {
					return p + "/" + name, ""
				}
			}
		}
		return p, ""
	}
	for _, sub := range []string{"/status", "/finalize", "/scale"} {
		if strings.HasSuffix(p, sub) {
			return strings.TrimSuffix(p, sub), sub[1:]
		}
	}
	return p, ""
}

func namespaceOf(path string) string {
	parts := strings.Split(path, "/")
	for i := range parts {
		if parts[i] == "namespaces" && i+2 < len(parts) {
			return parts[i+1]
		}
	}
	return ""
}

// mapKeyed reports whether two errors of the list are at keys of the same map.
func mapKeyed(lines []string) bool {
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.SplitN(l, " ", 3)[1]
		if i := strings.LastIndexByte(f, '['); i > 0 && !strings.ContainsAny(f[i+1:i+2], "0123456789") {
			if seen[f[:i]] {
				return true
			}
			seen[f[:i]] = true
		}
	}
	return false
}
