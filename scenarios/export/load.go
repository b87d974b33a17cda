package export

import (
	"fmt"
	"os"

	"github.com/allot-sim/allot/scenarios"
)

// Load reads a scenario or policy file for export: its policy and fleet.
// The workload is not read (a replay's trace need not be there), and the
// fleet is required: its instance types are what the engines get.
func Load(path string) (*scenarios.Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return scenarios.ParsePolicy(path, data, func() (string, error) {
		return "", fmt.Errorf("the export needs the fleet's instance types: give a scenario or a policy file with a fleet section")
	})
}
