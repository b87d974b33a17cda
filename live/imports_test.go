package live_test

import (
	"os/exec"
	"strings"
	"testing"
)

// live and its backends import, of this project, only policies, hardware
// and workload (DESIGN.md): never sim, reports, scenarios or cmd.
func TestLiveImportsOnlyPoliciesHardwareAndWorkload(t *testing.T) {
	const mod = "github.com/allot-sim/allot/"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{"policies": true, "hardware": true, "workload": true}
	for _, p := range strings.Fields(string(out)) {
		rest, ours := strings.CutPrefix(p, mod)
		if !ours || rest == "live" || strings.HasPrefix(rest, "live/") {
			continue
		}
		if top, _, _ := strings.Cut(rest, "/"); !allowed[top] {
			t.Errorf("live depends on %s", p)
		}
	}
}
