package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodSnapshot = `kind: cycle
flavors: [a]
queues:
- name: q
  resource_groups:
  - flavors:
    - flavor: a
      resources: {cpu: {nominal: 4}}
running:
- name: r
  queue: q
  podsets: [{name: main, count: 1, per_pod: {cpu: 1}, flavors: {cpu: a}}]
pending:
- name: p
  queue: q
  priority: 1
  podsets: [{name: main, count: 1, per_pod: {cpu: 2}}]
`

func TestGoodSnapshotLoads(t *testing.T) {
	if _, err := ParseSnapshot("snap.yaml", []byte(goodSnapshot)); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotErrorsNameFileLineAndKeyPath(t *testing.T) {
	for _, tc := range []badCase{
		{"unknown top-level key", "queues:\n", "queus:\n", 3, "queus", `did you mean "queues"?`},
		{"unknown kind", "kind: cycle\n", "kind: weekly\n", 1, "kind", `"weekly" is not one of cycle, preemption_targets, steady_state, queue_order`},
		{"bad quantity", "{nominal: 4}", "{nominal: lots}", 8, "queues[q].resource_groups[0].flavors[0].resources.cpu.nominal", `bad quantity "lots"`},
		{"negative quantity", "per_pod: {cpu: 2}", "per_pod: {cpu: -2}", 17, "pending[p].podsets[main].per_pod.cpu", `bad quantity "-2"`},
		{"unknown queue", "  queue: q\n  priority: 1\n", "  queue: nowhere\n  priority: 1\n", 15, "pending[p].queue", `unknown queue "nowhere"`},
		{"text for a priority", "priority: 1\n", "priority: high\n", 16, "pending[p].priority", `expected a whole number, got "high"`},
		{"unknown flavor in a queue", "- flavor: a\n", "- flavor: b\n", 7, "queues[q].resource_groups[0].flavors[0].flavor", `unknown flavor "b" (flavors: a)`},
		{"unknown flavor of a running podset", "flavors: {cpu: a}", "flavors: {cpu: b}", 12, "running[r].podsets[main].flavors.cpu", `unknown flavor "b"`},
		{"job name used twice", "- name: p\n", "- name: r\n", 14, "pending[r].name", `job name "r" is used twice (also running[r])`},
		{"bad strategy", "- name: q\n", "- name: q\n  strategy: Random\n", 5, "queues[q].strategy", `"Random" is not BestEffortFIFO or StrictFIFO`},
		{"bad preemption policy", "- name: q\n", "- name: q\n  preemption: {within_queue: Sometimes}\n", 5, "queues[q].preemption.within_queue", `unknown preemption policy "Sometimes"`},
		{"unknown podset key", "[{name: main, count: 1, per_pod: {cpu: 2}}]", "[{name: main, count: 1, size: 3, per_pod: {cpu: 2}}]", 17, "pending[p].podsets[main].size", `unknown key "size"`},
		{"fair sharing neither false nor a mapping", "flavors: [a]\n", "flavors: [a]\nsettings: {fair_sharing: maybe}\n", 3, "settings.fair_sharing", `expected true or false, got "maybe"`},
		{"pending job without podsets", "  podsets: [{name: main, count: 1, per_pod: {cpu: 2}}]\n", "", 14, "pending[p].podsets", "required, at least one podset"},
		{"tab", "  queue: q\n  priority: 1\n", "\tqueue: q\n  priority: 1\n", 15, "pending[p].queue", "indented with a tab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(goodSnapshot, tc.old) {
				t.Fatalf("fixture text %q not found", tc.old)
			}
			_, err := ParseSnapshot("snap.yaml", []byte(strings.Replace(goodSnapshot, tc.old, tc.new, 1)))
			assertPlaced(t, err, "snap.yaml", tc.line, tc.path, tc.msg)
		})
	}
}

func TestLoadSnapshotNamesTheFileItRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(p, []byte("kind: cycle\nflavors: [a]\nqueus: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSnapshot(p)
	assertPlaced(t, err, p, 3, "queus", "unknown key")
}
