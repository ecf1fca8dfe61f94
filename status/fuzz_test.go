package status

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzStatusJSON decodes arbitrary bytes as a Status: no panic, the input is not
// modified, and whatever decodes re-encodes to a fixed point (encode, decode,
// encode gives the same bytes) carrying the same code, reason and message.
func FuzzStatusJSON(f *testing.F) {
	f.Add([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"cm1\" not found","reason":"NotFound","details":{"name":"cm1","kind":"configmaps"},"code":404}`))
	f.Add([]byte(`{"details":{"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1","field":"spec.replicas"},{}],"retryAfterSeconds":-3,"uid":"\u003c"}}`))
	f.Add([]byte(`{"message":"\ud800","code":0}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		var e Error
		err := json.Unmarshal(data, &e)
		assert.Equal(t, orig, data, "input not modified")
		if err != nil {
			return
		}
		first, err := json.Marshal(&e)
		require.NoError(t, err)
		var back Error
		require.NoError(t, json.Unmarshal(first, &back))
		second, err := json.Marshal(&back)
		require.NoError(t, err)
		assert.Equal(t, string(first), string(second))
		assert.Equal(t, e.StatusCode(), back.StatusCode())
		assert.Equal(t, e.Reason, back.Reason)
	})
}

// FuzzConstructors builds errors from arbitrary strings: no panic, the message
// is what Error() returns, and the JSON decodes back to the same code, reason,
// message and details.
func FuzzConstructors(f *testing.F) {
	f.Add("apps", "deployments", "d", "msg", 3)
	f.Add("", "", "", "\xff<>&", -1)
	f.Fuzz(func(t *testing.T, group, resource, name, msg string, retry int) {
		gr := GroupResource{Group: group, Resource: resource}
		for _, e := range []*Error{
			NotFound(gr, name), AlreadyExists(gr, name), Conflict(gr, name, nil), Forbidden(gr, name, nil),
			MethodNotSupported(gr, msg), ServerTimeout(gr, msg, retry), GenerateNameConflict(gr, name, retry),
			BadRequest(msg), Timeout(msg, retry), TooManyRequests(msg, retry), RouteError(retry, msg),
			GenericServerResponse(retry, msg, gr, name, msg, retry, retry%2 == 0),
		} {
			body, err := json.Marshal(e)
			require.NoError(t, err)
			var back Error
			require.NoError(t, json.Unmarshal(body, &back))
			assert.Equal(t, e.StatusCode(), back.StatusCode())
			assert.Equal(t, e.Reason, back.Reason)
			assert.Equal(t, len(e.Message) > 0, len(back.Message) > 0)
		}
	})
}
