package managedfields

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonIdentifier is Identifier through encoding/json only (the apiserver's way).
func jsonIdentifier(e Entry) string {
	id := identity{Manager: e.Manager, Operation: string(e.Operation), Subresource: e.Subresource}
	if e.Operation != OperationApply {
		id.APIVersion = e.APIVersion
	}
	b, _ := json.Marshal(id)
	return string(b)
}

func jsonParseIdentifier(id string) (Entry, error) {
	var v struct {
		Manager     string `json:"manager"`
		Operation   string `json:"operation"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	}
	if err := json.Unmarshal([]byte(id), &v); err != nil {
		return Entry{}, err
	}
	return Entry{Manager: v.Manager, Operation: Operation(v.Operation), APIVersion: v.APIVersion, Subresource: v.Subresource}, nil
}

func TestIdentifierFastPathEqualsJSON(t *testing.T) {
	for _, e := range []Entry{
		{Manager: "kubectl", Operation: OperationApply, APIVersion: "apps/v1"},
		{Manager: "kube-controller-manager", Operation: OperationUpdate, APIVersion: "apps/v1", Subresource: "status"},
		{Operation: OperationUpdate},
		{Manager: "a<b>&c", Operation: OperationUpdate, APIVersion: "v1"},
		{Manager: `q"uote\back`, Operation: OperationApply},
		{Manager: "ünï", Operation: OperationApply},
		{Manager: "tab\there", Operation: OperationApply},
		{Manager: "bad\xffutf8", Operation: OperationApply},
		{},
	} {
		id := Identifier(e)
		assert.Equal(t, jsonIdentifier(e), id, "%#v", e)
		got, err := ParseIdentifier(id)
		require.NoError(t, err, id)
		want, _ := jsonParseIdentifier(id)
		assert.Equal(t, want, got, id)
	}
	for _, id := range []string{`{}`, `{"operation":"Apply","manager":"m"}`, `{"manager":"m","manager":"n"}`, `{"Manager":"m"}`,
		`{"manager":"m",}`, `{"manager":""}`, `{ "manager":"m"}`, `{"manager":"m","x":"y"}`, `not json`, `{"manager":"a\u003cb"}`} {
		got, err := ParseIdentifier(id)
		want, werr := jsonParseIdentifier(id)
		assert.Equal(t, werr != nil, err != nil, id)
		assert.Equal(t, want, got, id)
	}
}

// FuzzIdentifier: the reflection-free identifier encoder and decoder agree with encoding/json.
func FuzzIdentifier(f *testing.F) {
	f.Add("kubectl", "Apply", "apps/v1", "", `{"manager":"kubectl","operation":"Apply"}`)
	f.Add("a<b", "Update", "v1", "status", `{"manager":"m","subresource":"s"}`)
	f.Fuzz(func(t *testing.T, manager, op, apiVersion, subresource, id string) {
		e := Entry{Manager: manager, Operation: Operation(op), APIVersion: apiVersion, Subresource: subresource}
		if got, want := Identifier(e), jsonIdentifier(e); got != want {
			t.Fatalf("Identifier(%#v) = %s, encoding/json %s", e, got, want)
		}
		got, err := ParseIdentifier(id)
		want, werr := jsonParseIdentifier(id)
		if (err != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseIdentifier(%q) = %#v, %v; encoding/json %#v, %v", id, got, err, want, werr)
		}
	})
}
