package kueuehistory

import (
	"testing"
	"time"

	"github.com/allot-sim/allot/scenarios/export"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// history.yaml's workload, for its seed 5: 217 Jobs over the four teams
// in two minutes, each one node-sized pod running 15 to 30 whole
// seconds, queued to its team's LocalQueue with its class.
func TestHistoryJobsAreTheScenariosWorkloadInWholeNodesAndSeconds(t *testing.T) {
	s, err := Scenario()
	require.NoError(t, err)
	k, err := export.ToKueue(s, export.KueueOptions{})
	require.NoError(t, err)
	jobs, err := Jobs(s, k)
	require.NoError(t, err)
	require.Len(t, jobs, 217)
	byQueue := map[string]int{}
	nodeSeconds := 0.0
	for _, j := range jobs {
		q := j.Labels["kueue.x-k8s.io/queue-name"]
		assert.Equal(t, q, j.Namespace, "the export names a team's namespace and LocalQueue after it")
		byQueue[q+" "+j.Labels["kueue.x-k8s.io/priority-class"]]++
		assert.Equal(t, 1, j.Pods)
		assert.Equal(t, 8, j.PerPod)
		assert.Equal(t, "nvidia.com/gpu", j.Resource)
		assert.True(t, j.RunFor >= 15*time.Second && j.RunFor <= 30*time.Second && j.RunFor%time.Second == 0, "%s runs %v", j.Name, j.RunFor)
		nodeSeconds += j.RunFor.Seconds()
	}
	assert.Equal(t, map[string]int{"search low": 42, "search high": 13, "ads low": 37, "ads high": 13, "research low": 53, "vision low": 59}, byQueue)
	// 5,004 node-seconds of work on 32 nodes in two minutes, before each
	// pod's start and finish: queues form.
	assert.Equal(t, 5004.0, nodeSeconds)
	assert.Equal(t, "research-000", jobs[0].Name)
	assert.Equal(t, 2*time.Minute+500*time.Millisecond, jobs[len(jobs)-1].At)
}

// A team's Jobs are created half a second into distinct seconds, in
// submit order: a record's whole-second creation times then order each
// queue as Kueue saw it.
func TestHistoryJobsOfATeamAreCreatedInSecondsOfTheirOwn(t *testing.T) {
	s, err := Scenario()
	require.NoError(t, err)
	k, err := export.ToKueue(s, export.KueueOptions{})
	require.NoError(t, err)
	jobs, err := Jobs(s, k)
	require.NoError(t, err)
	last := map[string]time.Duration{}
	for i, j := range jobs {
		assert.Equal(t, 500*time.Millisecond, j.At%time.Second, j.Name)
		if l, ok := last[j.Namespace]; ok {
			assert.Greater(t, j.At, l, "%s: a second of its own", j.Name)
		}
		last[j.Namespace] = j.At
		if i > 0 {
			assert.GreaterOrEqual(t, j.At, jobs[i-1].At, "in submit order")
		}
	}
}
