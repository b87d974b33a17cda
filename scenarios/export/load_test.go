package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An export reads the policy and the fleet: the workload section is not
// read at all (its trace may be elsewhere), and an error after it still
// names the file's own line.
func TestExportLoadSkipsTheWorkloadAndKeepsLineNumbers(t *testing.T) {
	const good = `name: s
fleet:
  nodes: [{type: p5.48xlarge, count: 2}]
workload:
  trace: /nowhere/trace.parquet
  not_a_key: 1
teams:
  - {name: a, quota: {p5.48xlarge: 8}}
priority_classes: [{name: normal, value: 1}]
policy: {kind: quota}
`
	path := filepath.Join(t.TempDir(), "s.yaml")
	bad := strings.Replace(good, "{kind: quota}", "{kind: quota, reclaim: sometimes}", 1)
	require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
	_, err := Load(path)
	require.ErrorContains(t, err, path+":10: policy.reclaim")

	require.NoError(t, os.WriteFile(path, []byte(good), 0o644))
	s, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, "a", s.Teams[0].Name)
}
