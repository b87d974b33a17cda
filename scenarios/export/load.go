package export

import (
	"fmt"
	"os"
	"strings"

	"github.com/allot-sim/allot/scenarios"
)

// Load reads a scenario or policy file for export: its policy and fleet.
// The workload is left out (a replay's trace need not be there), and the
// fleet is required: its instance types are what the engines get.
func Load(path string) (*scenarios.Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data = commentOut(data, "workload")
	return scenarios.ParseLive(path, data, func() (string, error) {
		return "", fmt.Errorf("the export needs the fleet's instance types: give a scenario or a policy file with a fleet section")
	})
}

// commentOut turns a top-level section into comments, line for line, so
// that errors still name the file's own lines.
func commentOut(data []byte, key string) []byte {
	lines := strings.Split(string(data), "\n")
	in := false
	for i, l := range lines {
		top := l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '#' && l[0] != '-'
		if top {
			in = strings.HasPrefix(l, key+":")
		}
		if in {
			lines[i] = "#" + l
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
