package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --policy takes a whole scenario and uses only its policy sections: a
// scenario run under its own file as the policy runs exactly as itself.
func TestAWholeScenarioServesAsAPolicyFile(t *testing.T) {
	p := filepath.Join("..", "..", "scenarios", "hyperpod-teams.yaml")
	summary := func(args ...string) map[string]any {
		code, out, errs := cli(append([]string{"sim", p, "--json"}, args...)...)
		require.Equal(t, exitOK, code, errs)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		delete(m["sim"].(map[string]any), "wall_s")
		return m
	}
	assert.Equal(t, summary(), summary("--policy", p))
}

// A policy file may carry a fleet (spec/scenario.md); --policy ignores it.
func TestAPolicyFileMayCarryAFleet(t *testing.T) {
	dir := t.TempDir()
	pf := writeFile(t, dir, "policy.yaml", `
fleet:
  nodes: [{type: p5.48xlarge, count: 1}]
teams: [{name: a, quota: {one: 1}}, {name: b}]
policy: {kind: priority}
`)
	code, out, errs := cli("sim", starving(t, ""), "--policy", pf, "--json")
	require.Equal(t, exitOK, code, errs)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	assert.Equal(t, "priority", m["policy"])
	assert.Equal(t, 1.0, m["capacity"].(map[string]any)["accelerators"], "the scenario's fleet, not the policy file's")
}
