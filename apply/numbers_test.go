package apply_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// numbersWatched are, per recorded scenario, the paths whose values the replay compares when
// the apiserver's admission and REST strategy add fields Apply does not model (Pod, Service);
// nil compares the whole object (Deployment).
var numbersWatched = map[string][]string{
	"pod":     {"spec.terminationGracePeriodSeconds", "spec.activeDeadlineSeconds", "spec.containers[0].ports[0].containerPort"},
	"service": {"spec.ports[0].port", "spec.ports[0].targetPort"},
}

// numbersNotApply are the recorded requests that are not applies: their bodies are decoded by
// the apiserver's JSON serializer (PUT) or patched by the patch mechanisms, which Apply does
// not model. They document the difference with the apply path (README.md of the fixtures).
var numbersNotApply = regexp.MustCompile(`-(put|merge-patch|json-patch|strategic)-`)

// TestRecordedNumbers replays testdata/apply/realcluster-numbers: applies of built-in objects
// with integers beyond their Go type's range and numbers written as floats give the
// apiserver's object and managedFields, or its 500 with the converter's words. A 422 there is
// validation's answer (not modelled by Apply): the value it names is the one Apply stores.
func TestRecordedNumbers(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/apply/realcluster-numbers/*")
	require.NoError(t, err)
	replayed, validated := 0, 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		name := filepath.Base(dir)
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		require.NoError(t, err)
		sort.Strings(files)
		var live map[string]any // the stored object, from the last GET or stored apply
		for _, file := range files {
			step := name + "/" + filepath.Base(file)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var st recordedStep
			require.NoError(t, json.Unmarshal(data, &st))
			resp := decodeInts(t, st.Response)
			if st.Method == "GET" {
				live = resp
				continue
			}
			if st.ContentType != "application/apply-patch+yaml" {
				require.Regexp(t, numbersNotApply, step, "a recorded request that is neither an apply nor documented as another path")
				continue
			}
			// The apiserver reads every apply body as YAML (sigs.k8s.io/yaml, then
			// k8s.io/apimachinery's number conversion): 1.0 and 1e3 are integers there.
			config, err := codec.Options{Format: codec.FormatYAML}.DecodeObject([]byte(st.Body))
			require.NoError(t, err, step)
			req := apply.Request{Live: live, Config: config, Kind: kindOfPath(st.Path), Manager: st.Manager, Now: latestTime(resp), Types: apply.Builtin}
			res, err := apply.Apply(req)
			switch {
			case st.Code == 422:
				// Validation of the stored value (not Apply's): Apply's object holds the value
				// it names.
				require.NoError(t, err, step)
				want := statusOutcome(resp)
				require.Len(t, want.Causes, 1, step)
				parts := strings.SplitN(want.Causes[0], "|", 3)
				m := regexp.MustCompile(`^Invalid value: (-?[0-9]+):`).FindStringSubmatch(parts[2])
				require.NotNil(t, m, "%s: %s", step, parts[2])
				n, err := strconv.ParseInt(m[1], 10, 64)
				require.NoError(t, err)
				assert.Equal(t, n, valueAt(t, res.Object, parts[1]), "%s: the value validation sees at %s", step, parts[1])
				validated++
			case st.Code >= 300:
				assert.Equal(t, js(statusOutcome(resp)), js(resultOutcome(t, res.Object, err)), step)
			default:
				require.NoError(t, err, step)
				want, got := objectOutcome(resp), objectOutcome(res.Object)
				assert.Equal(t, want.Entries, got.Entries, "%s: managedFields", step)
				assert.Equal(t, timeChanges(live, resp), timeChanges(live, res.Object), "%s: managedFields times", step)
				if live != nil {
					// the storage layer wrote nothing when the converted object is the stored one
					assert.Equal(t, metadataValue(live, "resourceVersion") == metadataValue(resp, "resourceVersion"), res.NoOp, "%s: no-op", step)
				}
				if paths, ok := numbersWatched[name]; ok {
					for _, p := range paths {
						assert.Equal(t, valueAt(t, resp, p), valueAt(t, res.Object, p), "%s: %s", step, p)
					}
				} else {
					assert.Equal(t, js(comparable(resp)), js(comparable(res.Object)), step)
				}
			}
			replayed++
			if !st.DryRun && st.Code < 300 {
				live = resp
			}
		}
	}
	assert.GreaterOrEqual(t, replayed, 25)
	t.Logf("%d recorded applies replayed (%d rejected by validation with the value Apply stores)", replayed, validated)
}

func kindOfPath(path string) schema.GroupVersionKind {
	switch {
	case strings.Contains(path, "/deployments/"):
		return schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	case strings.Contains(path, "/pods/"):
		return schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	case strings.Contains(path, "/services/"):
		return schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	}
	panic("unknown kind of " + path)
}

// valueAt reads a field path as the apiserver's causes write it (spec.ports[0].port); nil
// when absent.
func valueAt(t *testing.T, obj map[string]any, path string) any {
	var cur any = obj
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[name]
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			require.True(t, ok, path)
			i, err := strconv.Atoi(idx)
			require.NoError(t, err, path)
			l, _ := cur.([]any)
			if i >= len(l) {
				return nil
			}
			cur = l[i]
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return cur
}
