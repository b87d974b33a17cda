package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompareOutSaysWhatItWrote(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cli("compare", "../../docs/examples/two-teams.yaml", "--policy", "fifo", "--policy", "quota", "--seeds", "2", "--out", dir)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "wrote "+dir+"/{comparison.json,report.md,report.html,charts/}\n", errOut)
	for _, f := range []string{"comparison.json", "report.md", "report.html"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	require.DirExists(t, filepath.Join(dir, "charts"))
}
