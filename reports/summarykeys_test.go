package reports

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/allot-sim/allot/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The list of summary keys that objectives are checked against when a
// file loads must be the summary's own numbers: each open level (a team,
// a class, a type) stands for its names.
func TestSummaryKeysAreEveryNumberOfTheSummary(t *testing.T) {
	one := 1.0
	s := &Summary{
		Capacity:        Capacity{ByType: map[string]int{"{type}": 8}},
		Utilization:     Utilization{ByType: map[string]float64{"{type}": 0.5}},
		ByTeam:          map[string]TeamStats{"{team}": {UsageVsEntitled: &one}},
		ByPriorityClass: map[string]ClassStats{"{class}": {}},
		Extra:           &Extra{},
		Fidelity:        &Fidelity{},
		Objectives:      []ObjectiveResult{{Objective: "goodput >= 0"}},
	}
	data, err := json.Marshal(s)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	var numbers []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case float64:
			numbers = append(numbers, at)
		case map[string]any:
			for k, x := range v {
				if at != "" {
					k = at + "." + k
				}
				walk(x, k)
			}
		}
	}
	walk(m, "")
	slices.Sort(numbers)
	keys := slices.Sorted(slices.Values(scenarios.SummaryKeys))
	assert.Equal(t, numbers, keys)
}
