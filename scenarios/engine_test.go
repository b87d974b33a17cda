package scenarios

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const engineBase = `name: engines
fleet:
  nodes: [{type: p5.48xlarge, count: 4}]
cohorts:
  - {name: org}
  - {name: research, parent: org}
teams:
  - {name: a, cohort: research, quota: {p5.48xlarge: 16}, weight: 2.5, lending_limit: 50%, preempt_within_team: lower-or-newer-equal}
  - {name: b, cohort: org, quota: {p5.48xlarge: 16}, borrow_limit: 100%}
priority_classes: [{name: normal, value: 1}]
policy:
  kind: quota
  admission: first-come
  preemption: {min_runtime: 30m, prefer_least_lost_work: true, max_retries: 3}
workload:
  synthetic:
    count: 10
    classes:
      - {name: c, team: a, priority_class: normal, arrival: {rate_per_hour: 1}, duration: {dist: fixed, value: 1h}, accelerators: 8}
sim: {horizon: 1d}
`

func TestEngineRulesReplaceWhatTheEngineCannotExpress(t *testing.T) {
	s, err := Parse("engines.yaml", []byte(engineBase))
	require.NoError(t, err)

	k, notes, err := s.AsEngine("kueue")
	require.NoError(t, err)
	require.Equal(t, []string{
		"policy.preemption.min_runtime 1800s: none (kueue has no protection after a start)",
		"policy.preemption.prefer_least_lost_work: off",
		"policy.admission first-come: task-ranking (priority, then creation)",
		"policy.preemption.max_retries 3: unlimited",
	}, notes)
	require.Zero(t, k.Policy.Preemption.MinRuntime)
	require.Equal(t, -1, k.Policy.Preemption.MaxRetries)
	require.Equal(t, "task-ranking", k.Policy.Admission)
	require.Len(t, k.Cohorts, 2, "Kueue nests cohorts")

	h, notes, err := s.AsEngine("hyperpod")
	require.NoError(t, err)
	require.Contains(t, notes, "cohorts: one cohort of every team")
	require.Contains(t, notes, "teams[a].lending_limit: all (HyperPod lends all or none)")
	require.Contains(t, notes, "teams[a].borrow_limit: 500% (HyperPod's most)")
	require.Contains(t, notes, "teams[a].weight 2.5: 3")
	require.Contains(t, notes, "teams[a].preempt_within_team: lower-priority")
	require.NotContains(t, notes, "teams[b].borrow_limit: 500% (HyperPod's most)", "b has its own limit")
	require.Empty(t, h.Cohorts)
	require.Equal(t, "default", h.Teams[0].Cohort)
	require.Equal(t, 3.0, h.Teams[0].Weight)
	require.Equal(t, 5.0, h.Teams[0].BorrowLimit)
	require.Equal(t, "lower-priority", h.Teams[0].PreemptWithinTeam)

	b, notes, err := s.AsEngine("aws-batch")
	require.NoError(t, err)
	require.Contains(t, notes, "policy.kind quota: fairshare with quota_shares (Batch quota shares)")
	require.Equal(t, "fairshare", b.Policy.Kind)
	require.True(t, b.Policy.QuotaShares)

	_, _, err = s.AsEngine("slurm")
	require.EqualError(t, err, `--engine "slurm": want one of kueue, hyperpod, aws-batch`)
}
