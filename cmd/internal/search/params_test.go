package search

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParamLevelsKeepTheKeysUnits(t *testing.T) {
	for _, c := range []struct {
		arg     string
		levels  []string
		ordered bool
	}{
		{"teams[a].weight=1..4", []string{"1", "2", "3", "4"}, true},
		{"teams[a].weight=0..16", []string{"0", "2", "4", "6", "8", "10", "12", "14", "16"}, true},
		{"teams[a].weight=0.5..1.5", []string{"0.5", "0.625", "0.75", "0.875", "1", "1.125", "1.25", "1.375", "1.5"}, true},
		{"teams[*].borrow_limit=0%..100%", []string{"0%", "13%", "25%", "38%", "50%", "63%", "75%", "88%", "100%"}, true},
		{"policy.preemption.min_runtime=0s..2h", []string{"0s", "15m", "30m", "45m", "1h", "75m", "90m", "105m", "2h"}, true},
		{"policy.idle_allocation=fair-share|first-come", []string{"fair-share", "first-come"}, false},
	} {
		p, err := parseParam(c.arg)
		require.NoError(t, err, c.arg)
		require.Equal(t, c.levels, p.knob.Levels, c.arg)
		require.Equal(t, c.ordered, p.knob.Ordered, c.arg)
	}
}
