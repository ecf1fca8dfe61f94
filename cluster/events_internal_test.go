package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The correlator's eventLogger: an Event identical to one recorded before (same object, type,
// reason and message) is that Event again, its count one more, with the first one's name and
// firstTimestamp, and the newest lastTimestamp; a different message is another Event.
func TestIdenticalEventsCountedUp(t *testing.T) {
	r := newEventRecorder("replicaset-controller")
	var names eventNames
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	involved := map[string]any{"kind": "ReplicaSet", "namespace": "demo", "name": "web-1", "uid": "u", "apiVersion": "apps/v1"}
	ev := func(msg string, at time.Time) *event {
		return &event{name: "web-1.x", namespace: "demo", involved: involved, typ: "Warning", reason: "FailedDelete", message: msg,
			first: at, last: at, count: 1, reporting: true}
	}
	first, skip := r.correlate(ev("Error deleting: no", t0), t0, &names)
	require.False(t, skip)
	assert.Equal(t, int64(1), first.count)
	r.updateState(map[string]any{"metadata": map[string]any{"name": "web-1.x", "namespace": "demo", "resourceVersion": "7"},
		"involvedObject": involved, "type": "Warning", "reason": "FailedDelete", "message": "Error deleting: no", "count": int64(1),
		"firstTimestamp": "2026-12-01T00:00:00Z"})
	again, skip := r.correlate(ev("Error deleting: no", t0.Add(time.Minute)), t0.Add(time.Minute), &names)
	require.False(t, skip)
	assert.Equal(t, int64(2), again.count)
	assert.Equal(t, "web-1.x", again.name)
	assert.Equal(t, "7", again.resourceVersion)
	assert.Equal(t, t0, again.first)
	assert.Equal(t, t0.Add(time.Minute), again.last)
	other, _ := r.correlate(ev("Error deleting: other", t0.Add(time.Minute)), t0.Add(time.Minute), &names)
	assert.Equal(t, int64(1), other.count)
}
