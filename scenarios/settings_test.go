package scenarios

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSettingsWriteAtKeyPathsAsErrorsNameThem(t *testing.T) {
	out, err := EditYAML([]byte(resizeBase), []Setting{
		{"teams[b].weight", "3"},
		{"teams[*].borrow_limit", "50%"},
		{"teams[a].quota.p5.48xlarge", "16"},
		{"policy.preemption.min_runtime", "30m"},
		{"policy.idle_allocation", "fair-share"},
	})
	require.NoError(t, err)
	s, err := Parse("tuned.yaml", out)
	require.NoError(t, err)
	require.Equal(t, 3.0, s.Teams[1].Weight)
	require.Equal(t, 1.0, s.Teams[0].Weight, "the default stays")
	require.Equal(t, 16.0, s.Teams[0].Quota["p5.48xlarge"].Accelerators)
	require.Equal(t, 1800.0, s.Policy.Preemption.MinRuntime)
	require.Equal(t, "fair-share", s.Policy.IdleAllocation)
	for _, tm := range s.Teams {
		require.Equal(t, 0.5, tm.BorrowLimit, tm.Name)
		require.True(t, tm.BorrowLimitPct, tm.Name)
	}
}

func TestSettingsRejectPathsThatNameNothing(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"teams[zz].weight", `teams[zz].weight: no item of teams is named "zz"`},
		{"teams[7].weight", "teams[7].weight: teams has no item 7"},
		{"nothing[a].weight", `nothing[a].weight: no key "nothing" to select items of`},
		{"teams[a", "teams[a: unclosed [ in the key path"},
		{"teams[a].quota", "teams[a].quota: holds a mapping, not a value"},
	} {
		_, err := EditYAML([]byte(resizeBase), []Setting{{c.path, "1"}})
		require.EqualError(t, err, c.want, c.path)
	}
}

func TestPolicyFileKeepsOnlyThePolicySections(t *testing.T) {
	out, err := PolicyFileYAML([]byte(resizeBase), "tuned by allot tune")
	require.NoError(t, err)
	require.Contains(t, string(out), "# tuned by allot tune")
	require.NotContains(t, string(out), "workload:")
	require.Contains(t, string(out), "fleet:", "live serve takes its fleet from the file")
	s, err := Parse("resize.yaml", []byte(resizeBase))
	require.NoError(t, err)
	p, err := s.WithPolicyData("policy.yaml", out)
	require.NoError(t, err)
	for i := range s.Teams {
		s.Teams[i].Line, p.Teams[i].Line = 0, 0 // the policy file has its own lines
	}
	require.Equal(t, fmt.Sprint(s.Teams), fmt.Sprint(p.Teams)) // NaN quotas compare unequal
}

func TestWithoutSectionDropsOneTopLevelKey(t *testing.T) {
	out, dropped, err := WithoutSection([]byte(resizeBase), "fleet")
	require.NoError(t, err)
	require.True(t, dropped)
	require.NotContains(t, string(out), "fleet:")
	require.Contains(t, string(out), "teams:")
	same, dropped, err := WithoutSection(out, "fleet")
	require.NoError(t, err)
	require.False(t, dropped)
	require.Equal(t, out, same)
}
