package schemacrd

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/runtime"
	kjsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/writepath/writepath/schema"
)

var builtinSamples = []string{
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"},"annotations":{"a":"b"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],"resources":{"limits":{"cpu":"1"}}}],"volumes":[{"name":"v","configMap":{"name":"cm","items":[{"key":"k","path":"p"}]}}],"tolerations":[{"key":"k","operator":"Exists"}]}}}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"u"}]},"spec":{"containers":[{"name":"c","image":"i","command":["a"],"securityContext":{"capabilities":{"add":["NET_ADMIN"]}}}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":["v"]}]}]}}}}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}],"type":"ClusterIP"}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"},"binaryData":{"b":"YWJj"}}`,
	`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}}`,
	`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i"},"spec":{"rules":[{"host":"h","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}}`,
}

// injectUnknown adds unknown fields at random object nodes of v.
func injectUnknown(r *rand.Rand, v any, depth int) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			injectUnknown(r, x[k], depth+1)
		}
		if r.Float64() < 0.25 {
			names := []string{"zzUnknown", "Name", "extra", "spec", "items"}
			n := names[r.Intn(len(names))]
			if _, exists := x[n]; !exists {
				x[n] = "x"
			}
		}
	case []any:
		for _, e := range x {
			injectUnknown(r, e, depth+1)
		}
	}
}

// TestBuiltinUnknownFields compares UnknownFields over the built-in catalogue's SMD types with
// the unknown fields the apiserver's strict JSON decoding into the Go types reports.
func TestBuiltinUnknownFields(t *testing.T) {
	r := rand.New(rand.NewSource(99))
	serializer := kjsonserializer.NewSerializerWithOptions(kjsonserializer.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjsonserializer.SerializerOptions{Strict: true})
	n := sampleSize() / 5
	compared, unknownTotal := 0, 0
	var disagreements []string
	for i := 0; i < n; i++ {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(builtinSamples[i%len(builtinSamples)]), &obj))
		injectUnknown(r, obj, 0)
		data, err := json.Marshal(obj)
		require.NoError(t, err)
		_, _, err = serializer.Decode(data, nil, nil)
		var ref []string
		if err != nil {
			se, ok := runtime.AsStrictDecodingError(err)
			if !ok {
				continue // not a strict error: the object does not decode at all
			}
			for _, e := range se.Errors() {
				msg := e.Error()
				if p, ok := strings.CutPrefix(msg, "unknown field "); ok {
					s, err := strconv.Unquote(p)
					require.NoError(t, err)
					ref = append(ref, s)
				}
			}
		}
		av, _ := obj["apiVersion"].(string)
		gv, _ := schema.ParseAPIVersion(av)
		k, err := schema.Builtin(gv.WithKind(obj["kind"].(string)))
		require.NoError(t, err)
		st, err := k.SMDType()
		require.NoError(t, err)
		var wobj map[string]any
		require.NoError(t, json.Unmarshal(data, &wobj))
		mine := schema.UnknownFields(st, wobj)
		sort.Strings(ref)
		sort.Strings(mine)
		compared++
		unknownTotal += len(ref)
		if !reflect.DeepEqual(nilIfEmpty(ref), nilIfEmpty(mine)) && len(disagreements) < 5 {
			disagreements = append(disagreements, string(data)+"\nref="+strings.Join(ref, ",")+"\nmine="+strings.Join(mine, ","))
		}
	}
	t.Logf("built-in unknown fields: objects=%d unknown fields=%d disagreements=%d", compared, unknownTotal, len(disagreements))
	assert.Empty(t, disagreements)
	assert.Greater(t, unknownTotal, compared/2)
}
