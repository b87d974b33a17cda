package presets

import (
	"os/exec"
	"strings"
	"testing"
)

// The core and its presets import nothing of the project but the core
// (DESIGN.md): no I/O, no clock, no scenario types.
func TestPoliciesImportNothingOfTheProject(t *testing.T) {
	const mod = "github.com/allot-sim/allot/"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "..", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if rest, ours := strings.CutPrefix(p, mod); ours && rest != "policies" && rest != "policies/presets" {
			t.Errorf("policies depends on %s", p)
		}
	}
}
