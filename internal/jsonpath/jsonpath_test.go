package jsonpath_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/jsonpath"
)

const list = `{"kind":"List","items":[
 {"kind":"Pod","metadata":{"name":"a","labels":{"app.kubernetes.io/name":"web"}},"spec":{"containers":[{"name":"c1","image":"nginx"},{"name":"c2","image":"envoy"}]},"status":{"phase":"Running","restarts":3}},
 {"kind":"Pod","metadata":{"name":"b"},"spec":{"containers":[{"name":"c3","image":"busybox"}]},"status":{"phase":"Pending","restarts":0}},
 {"kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}}]}`

func TestExecute(t *testing.T) {
	data, err := codec.DecodeValue([]byte(list))
	require.NoError(t, err)
	for _, c := range []struct{ tmpl, want string }{
		{`{.kind}`, "List"},
		{`kind={.kind}.`, "kind=List."},
		{`{.items[0].metadata.name}`, "a"},
		{`{.items[-1].metadata.name}`, "s"},
		{`{.items[*].metadata.name}`, "a b s"},
		{`{.items[0:2].metadata.name}`, "a b"},
		{`{.items[::2].metadata.name}`, "a s"},
		{`{.items[0,2].metadata.name}`, "a s"},
		{`{.items[0].metadata['name']}`, "a"},
		{`{.items[0].metadata.labels.app\.kubernetes\.io/name}`, "web"},
		{`{.items[?(@.kind=="Pod")].metadata.name}`, "a b"},
		{`{.items[?(@.kind!="Pod")].metadata.name}`, "s"},
		{`{.items[?(@.status.restarts>1)].metadata.name}`, "a"},
		{`{.items[?(@.metadata.labels)].metadata.name}`, "a"},
		{`{range .items[*]}{.metadata.name}{"\t"}{.status.phase}{"\n"}{end}`, "a\tRunning\nb\tPending\ns\t\n"},
		{`{range .items[*]}[{range .spec.containers[*]}{.name},{end}]{end}`, "[c1,c2,][c3,][]"},
		{`{..image}`, "nginx envoy busybox"},
		{`{.items[1].spec}`, `{"containers":[{"image":"busybox","name":"c3"}]}`},
		{`{.items[0].status.restarts}`, "3"},
		{`{.items[*].spec.ports[*].port}`, "80"},
		{`{.missing}`, ""},
		{`{'x'}{"\u00e9"}`, "xé"},
		{`{}`, ""},
	} {
		tmpl, err := jsonpath.Parse(c.tmpl)
		require.NoError(t, err, c.tmpl)
		var b bytes.Buffer
		require.NoError(t, tmpl.Execute(&b, data, jsonpath.Options{AllowMissingKeys: true}), c.tmpl)
		if c.tmpl == `{}` {
			assert.Contains(t, b.String(), `"kind":"List"`, "{} prints the whole value")
			continue
		}
		assert.Equal(t, c.want, b.String(), c.tmpl)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ tmpl, parse, exec string }{
		{`{.metadata.name`, "unclosed action", ""},
		{`{.items[0}`, "unterminated array", ""},
		{`{.items[a]}`, "invalid array index a", ""},
		{`{.items[?(@.x=="y"}`, "unterminated filter", ""},
		{`{"abc}`, "unterminated quoted string", ""},
		{`{#}`, "unrecognized character in action: U+0023 '#'", ""},
		{`{....a}`, "invalid multiple recursive descent", ""},
		{`{end}`, "", "not in range, nothing to end"},
		{`{.kind[0]}`, "", "string is not array or slice"},
		{`{.items[5]}`, "", "array index out of bounds: index 5, length 3"},
		{`{.nope}`, "", "nope is not found"},
		{`{foo}`, "", "unrecognized identifier foo"},
	} {
		tmpl, err := jsonpath.Parse(c.tmpl)
		if c.parse != "" {
			assert.EqualError(t, err, c.parse, c.tmpl)
			continue
		}
		require.NoError(t, err, c.tmpl)
		data, _ := codec.DecodeValue([]byte(list))
		err = tmpl.Execute(&bytes.Buffer{}, data, jsonpath.Options{})
		assert.EqualError(t, err, c.exec, c.tmpl)
	}
}

// FuzzParse: any template parses or fails with an error, and a parsed one executes without a
// panic.
func FuzzParse(f *testing.F) {
	f.Add(`{range .items[*]}{.metadata.name}{"\n"}{end}`)
	f.Add(`{.items[?(@.a>=1)]..b['c','d'][1:-1:2]}`)
	data, _ := codec.DecodeValue([]byte(list))
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := jsonpath.Parse(s)
		if err != nil {
			return
		}
		_ = tmpl.Execute(&bytes.Buffer{}, data, jsonpath.Options{AllowMissingKeys: true})
	})
}
