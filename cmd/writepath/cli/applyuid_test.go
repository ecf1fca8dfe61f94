package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without --uid a dry-run create gets a random version 4 UUID, as the apiserver generates one
// (k8s.io/apimachinery/pkg/util/uuid): a fresh one each run.
func TestApplyDryRunRandomUID(t *testing.T) {
	uuidV4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	config := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1"}}`
	uids := map[string]bool{}
	for range 2 {
		var stdout, stderr bytes.Buffer
		code := run([]string{"apply", "--server-side", "-f", "-", "--dry-run", "-o", "json", "--now", "2026-01-02T00:00:00Z"},
			bytes.NewReader([]byte(config)), &stdout, &stderr)
		require.Equal(t, exitOK, code, stderr.String())
		var got map[string]any
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
		uid, _ := got["metadata"].(map[string]any)["uid"].(string)
		assert.Regexp(t, uuidV4, uid)
		uids[uid] = true
	}
	assert.Len(t, uids, 2, "each run draws a new uid")
}
