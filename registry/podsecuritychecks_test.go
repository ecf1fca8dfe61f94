package registry

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPodSecurityCheckOrder: the checks are listed by ID, as the evaluator runs them, and each
// check's versions ascend; a restricted check overrides only a baseline one.
func TestPodSecurityCheckOrder(t *testing.T) {
	baseline := map[string]bool{}
	for _, list := range [][]psCheck{psBaselineChecks, psRestrictedChecks} {
		ids := make([]string, len(list))
		for i, c := range list {
			ids[i] = c.id
			for j := 1; j < len(c.versions); j++ {
				assert.Less(t, c.versions[j-1].minor, c.versions[j].minor, c.id)
			}
		}
		assert.True(t, sort.StringsAreSorted(ids), "%v", ids)
	}
	for _, c := range psBaselineChecks {
		baseline[c.id] = true
	}
	for _, c := range psRestrictedChecks {
		if c.overrides != "" {
			assert.True(t, baseline[c.overrides], c.id)
		}
	}
}
