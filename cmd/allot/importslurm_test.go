package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The shipped example (docs/examples/slurm) imports, loads and
// simulates under each policy kind the import chooses: every recorded
// job that ran is replayed.
func TestImportedSlurmClusterSimulates(t *testing.T) {
	ex := "../../docs/examples/slurm/"
	shares := []string{"--nodes", ex + "nodes.txt", "--shares", ex + "sshare.txt", "--qos", ex + "qos.txt"}
	for kind, flags := range map[string][]string{"quota": append([]string{"--assoc", ex + "assoc.txt"}, shares...), "fairshare": shares, "priority": nil} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			scen := filepath.Join(dir, "scenario.yaml")
			var o, e bytes.Buffer
			code := run(append([]string{"import", "slurm", "--sacct", ex + "sacct.txt", "-o", scen}, flags...), &o, &e)
			require.Equal(t, 0, code, e.String())
			require.Contains(t, o.String(), "wrote "+filepath.Join(dir, "scenario.parquet")+" (52 jobs)")
			warnings, err := os.ReadFile(filepath.Join(dir, "warnings.txt"))
			require.NoError(t, err)
			require.Contains(t, string(warnings), "policy: kind: "+kind+": ")
			o.Reset()
			code = run([]string{"sim", scen, "--json"}, &o, &e)
			require.Equal(t, 0, code, e.String())
			var sum struct {
				Policy string `json:"policy"`
				Jobs   struct {
					Submitted, Started int
				} `json:"jobs"`
			}
			require.NoError(t, json.Unmarshal(o.Bytes(), &sum))
			require.Equal(t, kind, sum.Policy)
			require.Equal(t, 52, sum.Jobs.Submitted)
			require.Equal(t, 52, sum.Jobs.Started)
		})
	}
}

func TestImportSlurmBadInputExitsTwoNamingTheLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "sacct.txt")
	require.NoError(t, os.WriteFile(bad, []byte("JobID|Account|Submit|Start|State|Elapsed|AllocTRES\n1|a|yesterday|Unknown|PENDING|00:00:00|\n"), 0o644))
	var o, e bytes.Buffer
	code := run([]string{"import", "slurm", "--sacct", bad, "-o", filepath.Join(dir, "s.yaml")}, &o, &e)
	require.Equal(t, 2, code)
	require.Equal(t, bad+`: line 2: column Submit: "yesterday" is not a time as Slurm prints it (2024-03-01T10:00:00; SLURM_TIME_FORMAT unset)`, strings.TrimSpace(e.String()))
	_, err := os.Stat(filepath.Join(dir, "s.yaml"))
	require.True(t, os.IsNotExist(err), "nothing written")
}
