package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command's --help example runs as written, in a folder laid out like
// a checkout (see runShellBlock). A line may exit 1 (the command ran and
// found a problem: FIFO missing the scenario's objectives is the story
// some examples tell), never 2 (bad input or usage). Commands marked
// needsDaemon are skipped: their examples start or talk to a live daemon,
// which live_test.go runs for real.
func TestEveryHelpExampleRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example: a few seconds")
	}
	// Beside the tests that wait on a control plane (TestKueueDifferential
	// most), not before them.
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "..", "shared")
	_, err = os.Stat(shared)
	haveShared := err == nil
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example != "" {
			t.Run(strings.ReplaceAll(c.CommandPath(), " ", "_"), func(t *testing.T) {
				if why, ok := c.Annotations[needsDaemon]; ok {
					t.Skip("the example " + why + " (a live daemon): the live tests run these commands against a real one")
				}
				if strings.Contains(c.Example, "../shared/") && !haveShared {
					t.Skip("needs ../shared traces: " + shared + " is absent")
				}
				script := exampleScript(c.Example)
				runShellBlock(t, root, bin, shared, haveShared, docBlock{file: c.CommandPath() + " --help", line: 1, lang: "sh", body: script})
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(os.Stdout, os.Stderr))
}

// exampleScript turns a cobra Example into a bash script: "allot" is
// bin/allot, continued lines are joined, and each command may exit 0 or 1.
func exampleScript(ex string) string {
	var b strings.Builder
	var cur string
	for _, l := range strings.Split(ex, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		l, cur = cur+l, ""
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		l = strings.Replace(l, "allot ", "bin/allot ", 1)
		b.WriteString("{ " + l + "; } || { s=$?; [ $s -eq 1 ] || exit $s; }\n")
	}
	return b.String()
}
