package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// restoredFromKueue are the settings Kueue cannot express (the exporter
// warns of each it drops, the importer writes allot's defaults for them
// and says so in warnings.txt): the round trip takes them from the
// original, and nothing else.
var restoredFromKueue = []string{
	"policy.preemption.grace_period", "policy.preemption.checkpoint_save", "policy.preemption.restore",
	"policy.preemption.max_retries", "policy.preemption.min_runtime", "policy.preemption.prefer_least_lost_work",
	"policy.backfill", "policy.backfill_depth", "policy.runtime_estimate", "policy.admission",
	"names the export had to make Kubernetes names (teams, priority classes, cohorts)",
	"teams[].weight and cohorts[].weight under idle_allocation first-come (the export writes a weight only with fair sharing, the one place Kueue uses it)",
}

// kueueScenarios are the shipped scenarios with a fleet whose policy
// Kueue can express (policy.kind quota).
func kueueScenarios(t *testing.T) []string {
	var out []string
	for _, pat := range []string{"scenarios/*.yaml", "scenarios/bench/stress/*.yaml", "docs/examples/*.yaml", "scenarios/replay/*.yaml"} {
		ps, err := filepath.Glob(filepath.Join("..", "..", pat))
		require.NoError(t, err)
		for _, p := range ps {
			s, err := export.Load(p)
			if err == nil && s.Policy.Kind == "quota" && len(s.Fleet.Groups) > 0 {
				out = append(out, p)
			}
		}
	}
	require.GreaterOrEqual(t, len(out), 14)
	return out
}

// Export to Kueue, import back: the imported policy, with the settings
// Kueue cannot hold restored, builds the original's model and simulates
// to a byte-identical summary (the workload cut to 5000 jobs; a replay
// whose trace is not imported checks the model alone).
func TestKueueExportThenImportSimulatesLikeTheOriginal(t *testing.T) {
	for _, p := range kueueScenarios(t) {
		for _, accelOnly := range []bool{false, true} {
			name := strings.TrimPrefix(p, "../../")
			if accelOnly {
				name += "/accelerators-only"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				kueueRoundTripCase(t, p, accelOnly)
			})
		}
	}
}

// kueueRoundTripCase is one scenario's round trip, exported by default
// (cpu and memory covered) or --accelerators-only.
func kueueRoundTripCase(t *testing.T, p string, accelOnly bool) {
	orig, err := export.Load(p)
	require.NoError(t, err)
	if !accelOnly && len(orig.NodeResourcesUnknown()) > 0 {
		t.Skip("the catalog gives no vCPUs or memory for its types: exported --accelerators-only only")
	}
	policy := kueueRoundTrip(t, p, orig, accelOnly)
	data, err := os.ReadFile(policy)
	require.NoError(t, err)
	back, err := export.Load(onOriginalFleet(t, p, policy))
	require.NoError(t, err)
	require.Equal(t, orig.Build().Model, back.Build().Model, "the imported policy builds the original's model")

	full, err := scenarios.Load(p)
	if err != nil && strings.Contains(p, "replay") {
		t.Skipf("model checked; not simulated: %v (make traces imports ../shared/traces)", err)
	}
	require.NoError(t, err)
	imported, err := full.WithPolicyData(policy, data)
	require.NoError(t, err)
	require.Equal(t, summaryJSON(t, full), summaryJSON(t, imported))
}

// onOriginalFleet writes the original p with its policy sections
// replaced by the policy file's, as --policy does, but without the
// workload (a replay's trace need not be there): the path written.
func onOriginalFleet(t *testing.T, p, policy string) string {
	var orig, pol map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(mustRead(t, p)), &orig))
	require.NoError(t, yaml.Unmarshal([]byte(mustRead(t, policy)), &pol))
	for _, key := range []string{"workload", "sim", "objectives"} {
		delete(orig, key)
	}
	for _, key := range []string{"policy", "teams", "cohorts", "priority_classes"} {
		if v, ok := pol[key]; ok {
			orig[key] = v
		}
	}
	data, err := yaml.Marshal(orig)
	require.NoError(t, err)
	out := filepath.Join(filepath.Dir(policy), "merged.yaml")
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

// kueueRoundTrip exports p to Kueue, imports it with allot import kueue
// and restores restoredFromKueue from orig: the policy file's path.
func kueueRoundTrip(t *testing.T, p string, orig *scenarios.Scenario, accelOnly bool) string {
	dir := t.TempDir()
	k, err := export.ToKueue(orig, export.KueueOptions{AcceleratorsOnly: accelOnly})
	require.NoError(t, err)
	objs, err := k.ObjectsYAML()
	require.NoError(t, err)
	cfg, err := k.ConfigYAML()
	require.NoError(t, err)
	objPath, cfgPath := filepath.Join(dir, "objects.yaml"), filepath.Join(dir, "kueue-config.yaml")
	require.NoError(t, os.WriteFile(objPath, objs, 0o644))
	require.NoError(t, os.WriteFile(cfgPath, cfg, 0o644))
	out := filepath.Join(dir, "imported.yaml")
	code, _, errs := cli("import", "kueue", objPath, cfgPath, "-o", out)
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, errs, "policy.preemption: a preempted job's grace period, checkpoint and restore times are the jobs' own")

	var imp, src map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(mustRead(t, out)), &imp))
	require.NoError(t, yaml.Unmarshal([]byte(mustRead(t, p)), &src))
	pol, srcPol := imp["policy"].(map[string]any), src["policy"].(map[string]any)
	for _, key := range restoredFromKueue {
		path, ok := strings.CutPrefix(key, "policy.")
		if !ok {
			continue
		}
		dst, from := pol, srcPol
		if sub, leaf, nested := strings.Cut(path, "."); nested {
			d, _ := pol[sub].(map[string]any)
			f, _ := srcPol[sub].(map[string]any)
			if d == nil {
				d = map[string]any{}
				pol[sub] = d
			}
			dst, from, path = d, f, leaf
		}
		if v, ok := from[path]; ok {
			dst[path] = v
		} else {
			delete(dst, path)
		}
	}
	restoreNames(imp, orig)
	if orig.Policy.IdleAllocation != "fair-share" {
		restoreWeights(imp, orig)
	}
	data, err := yaml.Marshal(imp)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

// restoreNames gives back the names the export changed (app_131 is
// app-131 in Kubernetes): teams and priority classes are in the
// original's order on both sides; cohorts are matched by the renaming.
func restoreNames(imp map[string]any, orig *scenarios.Scenario) {
	rename := map[string]string{}
	teams, _ := imp["teams"].([]any)
	for i, tm := range teams {
		m := tm.(map[string]any)
		if name := m["name"].(string); name != orig.Teams[i].Name {
			m["name"] = orig.Teams[i].Name
			if m["namespace"] == nil && orig.Teams[i].Namespace != orig.Teams[i].Name {
				m["namespace"] = orig.Teams[i].Namespace
			}
		}
		if ns, ok := m["namespace"].(string); ok && ns == orig.Teams[i].Namespace && ns == orig.Teams[i].Name {
			delete(m, "namespace")
		}
	}
	classes, _ := imp["priority_classes"].([]any)
	for i, c := range classes {
		c.(map[string]any)["name"] = orig.Priority[i].Name
	}
	for _, c := range orig.Cohorts {
		if k := kubeName(c.Name); k != c.Name {
			rename[k] = c.Name
		}
	}
	cohorts, _ := imp["cohorts"].([]any)
	for _, c := range cohorts {
		m := c.(map[string]any)
		for _, key := range []string{"name", "parent"} {
			if n, ok := rename[str(m[key])]; ok {
				m[key] = n
			}
		}
	}
	for _, tm := range teams {
		m := tm.(map[string]any)
		if n, ok := rename[str(m["cohort"])]; ok {
			m["cohort"] = n
		}
	}
}

// restoreWeights gives teams and cohorts their original weights.
func restoreWeights(imp map[string]any, orig *scenarios.Scenario) {
	teams, _ := imp["teams"].([]any)
	for i, tm := range teams {
		m := tm.(map[string]any)
		delete(m, "weight")
		if w := orig.Teams[i].Weight; w != 1 {
			m["weight"] = w
		}
	}
	cohorts, _ := imp["cohorts"].([]any)
	for _, c := range cohorts {
		m := c.(map[string]any)
		for _, oc := range orig.Cohorts {
			if oc.Name == m["name"] && oc.Weight != 1 {
				m["weight"] = oc.Weight
			}
		}
	}
}

func str(v any) string { s, _ := v.(string); return s }

// kubeName is the export's renaming of a name, for the tests: lower case,
// other characters '-'.
func kubeName(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-.")
}

// summaryJSON simulates s cut to 5000 jobs, measured from the start,
// and returns its summary, the run's wall time left out.
func summaryJSON(t *testing.T, s *scenarios.Scenario) string {
	if s.Synthetic != nil && (s.Synthetic.Count == 0 || s.Synthetic.Count > 5000) {
		s.Synthetic.Count = 5000
	}
	s.Warmup = 0 // the cut workload may end before the warmup would

	sum, err := simrun.Summary(s, s.Seed)
	require.NoError(t, err)
	sum.Sim.WallS = 0
	data, err := json.MarshalIndent(sum, "", " ")
	require.NoError(t, err)
	return string(data)
}

// allot import kueue reads files or a cluster, exactly one of them.
func TestImportKueueTakesFilesOrAKubeconfigNotBoth(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.yaml")
	for _, args := range [][]string{
		{"import", "kueue", "-o", out},
		{"import", "kueue", "x.yaml", "--kubeconfig", "kc", "-o", out},
	} {
		code, _, errs := cli(args...)
		require.Equal(t, exitBadInput, code, errs)
		require.Contains(t, errs, "give the files to read or --kubeconfig, not both and not neither")
	}
	code, _, errs := cli("import", "kueue", "x.yaml", "--since", "soon", "-o", out)
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, `--since "soon": want a duration such as 30d`)
}

// An imported history replays: the scenario and trace written load and
// simulate every job the cluster ran.
func TestAnImportedKueueHistoryReplays(t *testing.T) {
	dir := filepath.Join("..", "..", "scenarios", "export", "testdata", "kueue-history")
	out := filepath.Join(t.TempDir(), "cluster.yaml")
	code, stdout, errs := cli("import", "kueue", filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "workloads.yaml"), "-o", out)
	require.Equal(t, exitOK, code, errs)
	require.Contains(t, stdout, "(4 jobs)")
	require.Contains(t, errs, "warning: Workloads: 1 pending (never admitted), so with no duration: left out of the trace")
	code, stdout, errs = cli("sim", out, "--json")
	require.Equal(t, exitOK, code, errs)
	var sum struct {
		Jobs struct{ Submitted, Completed int } `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum))
	require.Equal(t, 4, sum.Jobs.Submitted)
	require.Equal(t, 4, sum.Jobs.Completed)
}
