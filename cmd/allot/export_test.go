package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExportKueueWritesObjectsConfigAndWarnings(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cli("export", "kueue", "../../scenarios/hyperpod-teams.yaml", "-o", dir)
	require.Equal(t, 0, code, errOut)
	objs, err := os.ReadFile(filepath.Join(dir, "objects.yaml"))
	require.NoError(t, err)
	docs := strings.Split(string(objs), "\n---\n")
	require.True(t, strings.HasPrefix(docs[0], "apiVersion: v1\nkind: Namespace\n"), "namespaces first:\n%s", docs[0])
	require.Contains(t, string(objs), "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n")
	require.NotContains(t, string(objs), "status:")
	conf, err := os.ReadFile(filepath.Join(dir, "kueue-config.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(conf), "# Fields of Kueue's Configuration (config.kueue.x-k8s.io/v1beta2) that the policy of\n# ../../scenarios/hyperpod-teams.yaml needs.")
	require.NotContains(t, string(conf), "kind:", "a fragment to merge, not a whole Configuration")
	warnings, err := os.ReadFile(filepath.Join(dir, "warnings.txt"))
	require.NoError(t, err)
	require.Empty(t, string(warnings), "hyperpod-teams sets nothing Kueue lacks")
	require.NotContains(t, errOut, "warning:")

	dir = t.TempDir()
	code, _, errOut = cli("export", "kueue", "../../scenarios/amazon-search.yaml", "-o", dir)
	require.Equal(t, 0, code, errOut)
	warnings, err = os.ReadFile(filepath.Join(dir, "warnings.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(warnings)))
	for _, w := range strings.Split(strings.TrimSpace(string(warnings)), "\n") {
		require.Contains(t, errOut, "warning: "+w, "each warning is on standard error too")
	}

	code, out, errOut := cli("export", "kueue", "../../scenarios/amazon-search.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "name: ranking-prod")

	code, out, errOut = cli("export", "aws-batch", "../../scenarios/amazon-search.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"quota-share-ranking-prod"`)
	require.Contains(t, errOut, "warning: the job queue names its scheduling policy by ARN: give --region and --account-id")
	code, _, errOut = cli("export", "slurm", "../../scenarios/amazon-search.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `"slurm": want kueue, hyperpod or aws-batch`)
	code, _, errOut = cli("export", "kueue", "../../scenarios/live/kubernetes.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "the export needs the fleet's instance types")
}

func TestExportNamesTeamsAsKubernetesNamesAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "odd.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`name: odd
fleet:
  nodes: [{type: p5.48xlarge, count: 2}]
teams:
  - {name: app_131, quota: {p5.48xlarge: 8}}
  - {name: App-131, quota: {p5.48xlarge: 8}}
priority_classes: [{name: normal, value: 1}]
policy: {kind: quota}
`), 0o644))
	code, out, errOut := cli("export", "kueue", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `team app_131: "app_131" is not a Kubernetes name; exported as "app-131"`)
	require.Contains(t, errOut, `team App-131: "App-131" is not a Kubernetes name; exported as "app-131-2"`)
	require.Contains(t, out, "clusterQueue: app-131-2")
}

func TestExportHyperPodWritesOneInputFilePerCall(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cli("export", "hyperpod", "../../scenarios/hyperpod-teams.yaml", "--cluster-arn", "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh", "-o", dir)
	require.Equal(t, 0, code, errOut)
	for _, f := range []string{"scheduler-config.json", "compute-quota-team-a.json", "compute-quota-team-b.json", "warnings.txt"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	data, err := os.ReadFile(filepath.Join(dir, "compute-quota-team-a.json"))
	require.NoError(t, err)
	require.Contains(t, string(data), `"InstanceType": "ml.g5.8xlarge"`)
	require.NotContains(t, string(data), "null")
	code, _, errOut = cli("export", "hyperpod", "../../scenarios/hyperpod-teams.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "export hyperpod needs --cluster-arn ARN")
}

// A warning said of nine teams is one line naming them, on standard error
// and in warnings.txt alike.
func TestAWSExportWarningsAreOneLinePerKind(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cli("export", "hyperpod", "../../scenarios/amazon-search.yaml", "--cluster-arn", "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh", "-o", dir)
	require.Equal(t, 0, code, errOut)
	line := "teams[ranking-prod, retrieval-prod, ads-prod, nlp-research, vision-research, ranking-research, ranking-sweeps, retrieval-sweeps, ads-sweeps]: " +
		"borrowing without limit: HyperPod's BorrowLimit is at most 500% of the team's allocation"
	require.Equal(t, "warning: "+line+"\nwrote "+dir+": 10 inputs; 1 warnings\n", errOut)
	require.Equal(t, line+"\n", mustRead(t, filepath.Join(dir, "warnings.txt")))

	dir = t.TempDir()
	code, _, errOut = cli("export", "aws-batch", "../../scenarios/bench/20k-gpus-month.yaml", "--region", "us-east-1", "--account-id", "123456789012", "--service-environment", "training", "-o", dir)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, []string{
		"policy.kind quota: exported as Batch quota shares; Batch has no cohorts, lending limits or fair sharing across shares, and idle capacity goes first come",
		"teams[team-01, team-02, team-03, team-04, team-05, team-06, team-07, team-08, team-09, team-10, team-11, team-12, team-13, team-14, team-15, team-16, team-17, team-18, team-19, team-20]" +
			".quota.p5.48xlarge: Batch counts whole instances; 300 accelerators rounded up to 38 nodes",
		"teams[team-01, team-02, team-03, team-04, team-05, team-06, team-07, team-08, team-09, team-10, team-11, team-12, team-13, team-14, team-15, team-16, team-17, team-18, team-19, team-20]" +
			".quota.g6e.48xlarge: Batch counts whole instances; 300 accelerators rounded up to 38 nodes",
	}, strings.Split(strings.TrimSpace(mustRead(t, filepath.Join(dir, "warnings.txt"))), "\n"), "40 warnings before")
}

// Exporting again into the same directory leaves one export: a removed
// team's input file goes, saying so.
func TestExportAgainRemovesTheInputsOfTeamsNoLongerThere(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cli("export", "aws-batch", "../../scenarios/amazon-search.yaml", "-o", dir)
	require.Equal(t, 0, code, errOut)
	_, err := os.Stat(filepath.Join(dir, "quota-share-ranking-prod.json"))
	require.NoError(t, err)
	data, err := os.ReadFile("../../scenarios/amazon-search.yaml")
	require.NoError(t, err)
	fewer := strings.Replace(string(data), "  - {name: ranking-prod, quota: {p5.48xlarge: 64, p4d.24xlarge: 80}, weight: 2}\n", "", 1)
	require.NotEqual(t, string(data), fewer)
	fewer = strings.ReplaceAll(fewer, "team: ranking-prod", "team: retrieval-prod")
	path := filepath.Join(t.TempDir(), "fewer.yaml")
	require.NoError(t, os.WriteFile(path, []byte(fewer), 0o644))
	code, _, errOut = cli("export", "aws-batch", path, "-o", dir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "removed "+filepath.Join(dir, "quota-share-ranking-prod.json")+": a team this export does not have")
	_, err = os.Stat(filepath.Join(dir, "quota-share-ranking-prod.json"))
	require.True(t, os.IsNotExist(err), "%v", err)
	_, err = os.Stat(filepath.Join(dir, "quota-share-retrieval-prod.json"))
	require.NoError(t, err)
}
