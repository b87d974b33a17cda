package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/scenarios"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const roundTripARN = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh"

// hyperPodCannotExpress is what HyperPod task governance cannot carry
// (docs/export.md), restored from the original after the round trip.
var hyperPodCannotExpress = []restoreRule{
	{path: "cohorts"},                             // every team in one cohort
	{path: "teams[*].cohort"},                     // likewise
	{path: "teams[*].lending_limit"},              // lends all or none
	{path: "teams[*].borrow_limit", when: absent}, // unlimited: at most 500%
	{path: "teams[*].weight", when: func(_, v *yaml.Node) bool { // whole numbers 0..100
		var w float64
		return v != nil && (v.Decode(&w) != nil || w != math.Round(w) || w < 0 || w > 100)
	}},
	{path: "teams[*].preempt_within_team", when: func(_, v *yaml.Node) bool { return v != nil && v.Value == "lower-or-newer-equal" }},
	{path: "priority_classes", when: func(_, v *yaml.Node) bool { // weights 0..100
		var pcs []struct{ Value int }
		_ = v.Decode(&pcs)
		for _, p := range pcs {
			if p.Value < 0 || p.Value > 100 {
				return true
			}
		}
		return false
	}},
	// HyperPod's scheduler configuration carries fair share (and kind
	// quota) only: queueing, admission, reclaim, fallback, the preemption
	// model and the rest of the policy are allot's.
	{path: "policy", keep: []string{"kind", "idle_allocation"}},
}

func TestHyperPodRoundTripSimulatesLikeTheOriginal(t *testing.T) {
	t.Parallel()
	for _, p := range roundTripScenarios(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cut := cutScenario(t, p, dir)
			hp := filepath.Join(dir, "hp")
			code, _, errOut := cli("export", "hyperpod", cut, "--cluster-arn", roundTripARN, "-o", hp)
			if strings.Contains(errOut, "HyperPod offers no") {
				require.Equal(t, exitBadInput, code)
				t.Logf("not expressible: %s", strings.TrimSpace(errOut))
				return
			}
			require.Equal(t, 0, code, errOut)
			args := []string{"import", "hyperpod", "--scheduler-config", filepath.Join(hp, "scheduler-config.json")}
			for _, team := range teamOrder(t, cut) {
				args = append(args, "--compute-quotas", filepath.Join(hp, "compute-quota-"+team+".json"))
			}
			if !strings.Contains(mustRead(t, cut), "quota:") {
				// HyperPod's files hold no fleet: the import sizes one from
				// the quotas, and a policy without any has none to size.
				code, _, errOut := cli(append(args, "-o", filepath.Join(dir, "p.yaml"))...)
				require.Equal(t, exitBadInput, code)
				require.Contains(t, errOut, "the fleet cannot be sized")
				t.Logf("not expressible: %s", strings.TrimSpace(errOut))
				return
			}
			changed := roundTrip(t, cut, dir, args, hyperPodCannotExpress)
			t.Logf("restored: %s", strings.Join(changed, ", "))
		})
	}
}

// usesQuotaShares says whether the original goes to Batch as quota
// shares (kind quota, or fairshare with quota_shares).
func usesQuotaShares(doc *yaml.Node) bool {
	qs := yamlGet(yamlGet(doc, "policy"), "quota_shares")
	return policyKind(doc) == "quota" || policyKind(doc) == "fairshare" && qs != nil && qs.Value == "true"
}

// wholeNodes says whether a team's quota (v) is whole nodes of each type.
func wholeNodes(doc, v *yaml.Node) bool {
	var quota map[string]float64
	if v == nil || v.Decode(&quota) != nil {
		return v == nil
	}
	per := map[string]int{}
	var custom []*yaml.Node
	if its := yamlGet(yamlGet(doc, "fleet"), "instance_types"); its != nil {
		custom = its.Content
	}
	for _, it := range custom {
		var t struct {
			Name         string
			Accelerators int
		}
		_ = it.Decode(&t)
		per[t.Name] = t.Accelerators
	}
	for typ, acc := range quota {
		n := per[typ]
		if t, ok := hardware.Builtin().Lookup(typ); ok {
			n = t.Accelerators
		}
		if n == 0 || math.Mod(acc, float64(n)) != 0 {
			return false
		}
	}
	return true
}

// batchCannotExpress is what AWS Batch cannot carry (docs/export.md),
// restored from the original after the round trip.
var batchCannotExpress = []restoreRule{
	// kind quota goes as quota shares: fairshare with quota_shares.
	{path: "policy.kind", when: func(doc, _ *yaml.Node) bool { return policyKind(doc) == "quota" }},
	{path: "policy.quota_shares", when: func(doc, _ *yaml.Node) bool { return policyKind(doc) == "quota" }},
	// The scheduling policy carries fair share's decay and reservation,
	// or nothing (quota shares): the rest of the policy is allot's.
	{path: "policy", keep: []string{"kind", "quota_shares", "share_decay", "compute_reservation"}},
	{path: "cohorts"},
	{path: "teams[*].cohort"},
	{path: "teams[*].lending_limit"},
	// Quota shares carry no weight; a fair-share policy no quota or
	// sharing; quota shares count whole instances.
	{path: "teams[*].weight", when: func(doc, _ *yaml.Node) bool { return usesQuotaShares(doc) }},
	{path: "teams[*].quota", when: func(doc, v *yaml.Node) bool { return !usesQuotaShares(doc) || !wholeNodes(doc, v) }},
	{path: "teams[*].borrow_limit", when: func(doc, v *yaml.Node) bool {
		return !usesQuotaShares(doc) || v != nil && !strings.HasSuffix(v.Value, "%")
	}},
	{path: "teams[*].preempt_within_team", when: func(doc, v *yaml.Node) bool {
		return !usesQuotaShares(doc) || v != nil && v.Value != "never" && v.Value != "lower-priority"
	}},
	// A job queue without a scheduling policy has no teams.
	{path: "teams", when: func(doc, _ *yaml.Node) bool { return policyKind(doc) == "fifo" || policyKind(doc) == "priority" }},
}

// ceResponse is describe-compute-environments output for a fleet: one
// environment, named as the export's job queue names it, of every type.
func ceResponse(t *testing.T, cut string) []byte {
	s, err := scenarios.Load(cut)
	require.NoError(t, err)
	var types []string
	vcpus := 0.0
	for _, it := range s.Fleet.Types() {
		types = append(types, strings.TrimPrefix(it.Name, "ml."))
		vcpus += it.VCPUs * float64(s.Fleet.Nodes(it.Name))
	}
	data, err := json.Marshal(map[string]any{"computeEnvironments": []any{map[string]any{
		"computeEnvironmentName": "gpus", "computeEnvironmentArn": "arn:aws:batch:us-east-1:123456789012:compute-environment/gpus",
		"type": "MANAGED", "state": "ENABLED", "status": "VALID",
		"computeResources": map[string]any{"type": "EC2", "minvCpus": 0, "maxvCpus": int(vcpus), "instanceTypes": types},
	}}})
	require.NoError(t, err)
	return data
}

func TestAWSBatchRoundTripSimulatesLikeTheOriginal(t *testing.T) {
	t.Parallel()
	type tc struct {
		name, path string
		edits      []scenarios.Setting
	}
	var cases []tc
	for _, p := range roundTripScenarios(t) {
		cases = append(cases, tc{filepath.Base(p), p, nil})
	}
	// No shipped scenario is fair share: amazon-search as each policy
	// Batch expresses.
	as := "../../scenarios/amazon-search.yaml"
	cases = append(cases,
		tc{"amazon-search-fairshare", as, []scenarios.Setting{{Path: "policy.kind", Value: "fairshare"},
			{Path: "policy.share_decay", Value: "1h"}, {Path: "policy.compute_reservation", Value: "25%"}}},
		tc{"amazon-search-quota-shares", as, []scenarios.Setting{{Path: "policy.kind", Value: "fairshare"}, {Path: "policy.quota_shares", Value: "true"}}},
		tc{"amazon-search-fifo", as, []scenarios.Setting{{Path: "policy.kind", Value: "fifo"}}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cut := cutScenario(t, c.path, dir, c.edits...)
			b := filepath.Join(dir, "batch")
			code, _, errOut := cli("export", "aws-batch", cut, "--region", "us-east-1", "--account-id", "123456789012",
				"--compute-environment", "gpus", "--service-environment", "training", "-o", b)
			if strings.Contains(errOut, "a Batch quota share takes at most 5") {
				require.Equal(t, exitBadInput, code)
				t.Logf("not expressible: %s", strings.TrimSpace(errOut))
				return
			}
			require.Equal(t, 0, code, errOut)
			ce := filepath.Join(dir, "compute-environments.json")
			require.NoError(t, os.WriteFile(ce, ceResponse(t, cut), 0o644))
			args := []string{"import", "aws-batch", "--job-queue", filepath.Join(b, "job-queue.json"), "--compute-environments", ce}
			if _, err := os.Stat(filepath.Join(b, "scheduling-policy.json")); err == nil {
				args = append(args, "--scheduling-policy", filepath.Join(b, "scheduling-policy.json"))
			}
			for _, team := range teamOrder(t, cut) {
				if p := filepath.Join(b, "quota-share-"+team+".json"); fileExists(p) {
					args = append(args, "--quota-shares", p)
				}
			}
			if c.name == "mm16.yaml" || c.name == "mm16-2x8.yaml" {
				// A FIFO queue's fleet is its compute environments,
				// and no environment names a custom type (unit-gpu).
				code, _, errOut := cli(append(args, "-o", filepath.Join(dir, "imported", "policy.yaml"))...)
				require.Equal(t, exitBadInput, code)
				require.Contains(t, errOut, "no fleet: give the compute environments")
				t.Logf("not expressible: %s", strings.TrimSpace(errOut))
				return
			}
			changed := roundTrip(t, cut, dir, args, batchCannotExpress)
			t.Logf("restored: %s", strings.Join(changed, ", "))
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// allot import aws-batch and hyperpod write the scenario (or policy
// file), the trace and warnings.txt, which load and run; bad input is
// exit 2 naming the file and the member.
func TestImportAWSCommandsWriteFilesThatRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ex := "../../docs/examples/aws-batch/"
	scen := filepath.Join(dir, "batch", "scenario.yaml")
	code, out, errOut := cli("import", "aws-batch", "--jobs", ex+"describe-jobs.json", "--jobs", ex+"list-jobs-page1.json", "--jobs", ex+"list-jobs-page2.json",
		"--scheduling-policy", ex+"scheduling-policy.json", "--job-queue", ex+"job-queue.json", "--compute-environments", ex+"compute-environments.json", "-o", scen)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "wrote "+scen+" (4 teams, 2 node groups)\nwrote "+filepath.Join(dir, "batch", "scenario.parquet")+" (7 jobs)\nwrote "+
		filepath.Join(dir, "batch", "warnings.txt")+" (17 warnings)\n", out)
	require.Equal(t, 17, strings.Count(mustRead(t, filepath.Join(dir, "batch", "warnings.txt")), "\n"))
	code, out, errOut = cli("sim", scen)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "7 submitted: 7 started, 7 completed")

	hp := filepath.Join(dir, "hp", "policy.yaml")
	code, _, errOut = cli("import", "hyperpod", "--scheduler-config", "../../docs/examples/hyperpod/scheduler-config.json",
		"--compute-quotas", "../../docs/examples/hyperpod/compute-quotas.json", "--compute-quotas", "../../docs/examples/hyperpod/compute-quotas-page2.json", "-o", hp)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "warning: ComputeQuotas[team-c-quota]: ActivationState: Disabled: left out")
	require.False(t, fileExists(filepath.Join(dir, "hp", "policy.parquet")), "no history: no trace")

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"jobs": [{"jobId": "a", "createdAt": "noon"}]}`), 0o644))
	code, _, errOut = cli("import", "aws-batch", "--jobs", bad, "-o", filepath.Join(dir, "x", "s.yaml"))
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errOut, bad+`: jobs[0].createdAt: want a whole number (int64), got the string "noon"`)
	require.False(t, fileExists(filepath.Join(dir, "x", "s.yaml")))
}
