package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// runRounds runs a search spread over shards round by round, as the
// machines of a sweep would, and returns what the merge of its last round
// printed.
func runRounds(t *testing.T, search []string, shards int) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	for round := 1; round <= 60; round++ {
		dir := filepath.Join(t.TempDir(), "round")
		for i := 0; i < shards; i++ {
			t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i))
			code, _, errOut := cli(append(search, "--shards", strconv.Itoa(shards), "--state", state, "--out", dir)...)
			require.Equal(t, 0, code, errOut)
		}
		code, out, errOut := cli("sweep", "merge", dir, "--state", state, "--json")
		require.Equal(t, 0, code, errOut)
		if !strings.HasPrefix(out, "round ") {
			return out
		}
		require.Contains(t, out, "round "+strconv.Itoa(round+1)+" needs ")
	}
	t.Fatal("no answer after 60 rounds")
	return ""
}

func TestShardedPlanMergedRoundByRoundGivesTheUnshardedAnswer(t *testing.T) {
	for _, search := range [][]string{
		{"plan", planSmall, "--vary", "big=0..8", "--vary", "small=0..10", "--seeds", "2"},
		{"plan", planSmall, "--vary", "big=0..8", "--vary", "small=0..10", "--seeds", "1", "--demand-scales", "1,1.5"},
	} {
		code, want, errOut := cli(append(search, "--json")...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, want, runRounds(t, search, 3), strings.Join(search, " "))
	}
}

func TestShardedTuneMergedRoundByRoundGivesTheUnshardedAnswer(t *testing.T) {
	search := []string{"tune", planSmall, "--maximize", "utilization.mean", "--param", "teams[b].weight=1..4", "--param", "teams[*].borrow_limit=0%..100%", "--seeds", "2", "--rounds", "4"}
	code, want, errOut := cli(append(search, "--json")...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, runRounds(t, search, 2))
}

func TestRoundMergeRefusesAMissingOrForeignShard(t *testing.T) {
	search := []string{"plan", planSmall, "--vary", "big=0..8", "--vary", "small=0..10", "--seeds", "2"}
	state, dir := filepath.Join(t.TempDir(), "state"), t.TempDir()
	code, _, errOut := cli(append(search, "--shards", "2", "--shard", "1", "--state", state, "--out", dir)...)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli("sweep", "merge", dir, "--state", state)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "shard 2 of 2 of round 1 is missing")
	other := []string{"plan", planSmall, "--vary", "big=0..8", "--vary", "small=0..9", "--seeds", "2"}
	code, _, errOut = cli(append(other, "--shards", "2", "--shard", "2", "--state", state, "--out", dir)...)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = cli("sweep", "merge", dir, "--state", state)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "shard 2 of 2 is of another search")
	code, _, errOut = cli(append(search, "--shards", "2", "--state", state, "--out", dir)...)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "give --shard I (1 to 2), or run as an Indexed Job (JOB_COMPLETION_INDEX)")
}

// The emitted round is an Indexed Job the API server accepts; running each
// index's command where the claim would be mounted, then the merge Job's,
// round after round, gives the unsharded answer.
func TestEmittedRoundsRunAsIndexedJobsGiveTheUnshardedAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := kubetest.Start(t)
	mount := t.TempDir()
	data, err := os.ReadFile(planSmall)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(mount, "plan-small.yaml"), data, 0o644))
	search := []string{"plan", "plan-small.yaml", "--vary", "big=0..8", "--vary", "small=0..10", "--seeds", "2"}
	t.Chdir(mount)
	code, want, errOut := cli(append(search, "--json")...)
	require.Equal(t, 0, code, errOut)

	for round := 1; round <= 60; round++ {
		code, out, errOut := cli(append(search, "--shards", "3", "--state", "state", "--emit", "kubernetes", "--mount", mount)...)
		require.Equal(t, 0, code, errOut)
		var jobs []*batchv1.Job
		for _, doc := range strings.Split(out, "\n---\n") {
			var j batchv1.Job
			require.NoError(t, sigsyaml.Unmarshal([]byte(doc), &j))
			jobs = append(jobs, &j)
		}
		require.Len(t, jobs, 2)
		shard, merge := jobs[0], jobs[1]
		require.Equal(t, "allot-plan-round-"+strconv.Itoa(round), shard.Name)
		require.Equal(t, batchv1.IndexedCompletion, *shard.Spec.CompletionMode)
		require.Equal(t, int32(3), *shard.Spec.Completions)
		for _, j := range jobs {
			_, err := c.Client.BatchV1().Jobs("default").Create(context.Background(), j, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.NoError(t, err, "the API server accepts %s", j.Name)
		}
		for i := 0; i < 3; i++ {
			t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i))
			code, _, errOut := cli(shard.Spec.Template.Spec.Containers[0].Args...)
			require.Equal(t, 0, code, errOut)
		}
		code, out, errOut = cli(append(merge.Spec.Template.Spec.Containers[0].Args, "--json")...)
		require.Equal(t, 0, code, errOut)
		if !strings.HasPrefix(out, "round ") {
			require.Equal(t, want, out)
			return
		}
	}
	t.Fatal("no answer after 60 rounds")
}
