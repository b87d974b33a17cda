package scenarios

import (
	"os"
	"strings"
	"testing"
)

func withLive(t *testing.T, section string) (*Scenario, error) {
	t.Helper()
	base, err := os.ReadFile("live/two-teams.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return Parse("two-teams.yaml", append(base, []byte(section)...))
}

func TestLiveSectionGrantsTeamsAndAdmin(t *testing.T) {
	s, err := withLive(t, `
live:
  socket_mode: "0660"
  socket_group: mlteam
  access:
    - {user: alice, teams: [research]}
    - {group: ml-admins, admin: true}
`)
	if err != nil {
		t.Fatal(err)
	}
	l := s.Live
	if l == nil || l.SocketMode != 0o660 || l.SocketGroup != "mlteam" || len(l.Access) != 2 ||
		l.Access[0].User != "alice" || l.Access[0].Teams[0] != "research" || !l.Access[1].Admin || l.Access[1].Group != "ml-admins" {
		t.Errorf("live section read as %+v", l)
	}
}

func TestLiveSectionErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct{ section, want string }{
		{"live:\n  socket_mode: rw\n", `live.socket_mode: "rw": want an octal file mode`},
		{"live:\n  access:\n    - {user: a, group: b, admin: true}\n", "live.access[0]: give exactly one of user or group"},
		{"live:\n  access:\n    - {user: a}\n", "live.access[0]: grants nothing"},
		{"live:\n  access:\n    - {user: a, teams: [nope]}\n", `live.access[0].teams: unknown team "nope"`},
		{"live:\n  tokens: x\n", "tokens"},
	} {
		_, err := withLive(t, c.section)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.section, err, c.want)
		}
	}
}

// live serve takes a policy file: no workload or sim needed, and a
// missing fleet is the one the machine's devices make.
func TestLoadLiveTakesAPolicyFileAndADiscoveredFleet(t *testing.T) {
	path := t.TempDir() + "/policy.yaml"
	os.WriteFile(path, []byte("teams: [{name: a, quota: {gpu: 2}}]\npolicy: {kind: quota}\n"), 0o644)
	s, err := LoadLive(path, func() (string, error) {
		return "instance_types: [{name: gpu, accelerator: generic, accelerators: 2}]\nnodes: [{type: gpu, count: 1}]\n", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "policy" || s.Fleet.Nodes("gpu") != 1 || s.Teams[0].Quota["gpu"].Accelerators != 2 {
		t.Errorf("loaded %q with %d gpu nodes and quota %v", s.Name, s.Fleet.Nodes("gpu"), s.Teams[0].Quota)
	}
	if _, err := LoadLive("live/two-teams.yaml", nil); err != nil {
		t.Errorf("a whole scenario: %v", err)
	}
}
