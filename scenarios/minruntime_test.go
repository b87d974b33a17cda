package scenarios

import (
	"strings"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// protectionSnapshot: team a runs old (admitted and started at 0) and
// young (admitted at 400, restarted at 500); urgent (priority 10) needs
// one of the two units. Candidate order prefers young, admitted last.
const protectionSnapshot = `
id: protection
title: min_runtime
tests: a job protected by min_runtime is passed over
kind: cycle
%NOW%
settings: {%SETTINGS%}
flavors: [unit]
queues:
- name: a
  preemption: {within_queue: LowerPriority}
  resource_groups:
  - flavors:
    - flavor: unit
      resources: {gpu: {nominal: 2}}
running:
- {name: old, queue: a, admitted: 0, podsets: [{name: main, count: 1, per_pod: {gpu: 1}, flavors: {gpu: unit}}]}
- {name: young, queue: a, admitted: 400, started: 500, podsets: [{name: main, count: 1, per_pod: {gpu: 1}, flavors: {gpu: unit}}]}
pending:
- {name: urgent, queue: a, priority: 10, created: 700, podsets: [{name: main, count: 1, per_pod: {gpu: 1}}]}
`

func preemptedIn(t *testing.T, now, settings string) []string {
	t.Helper()
	doc := strings.NewReplacer("%NOW%", now, "%SETTINGS%", settings).Replace(protectionSnapshot)
	sf, err := ParseSnapshot("protection.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := policies.RunSnapshot(sf.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range res.Preempted {
		out = append(out, p.Name)
	}
	return out
}

// settings.min_runtime protects a running job for that long from
// running[].started (its admission when absent); now defaults to the
// latest time in the file (700 s here).
func TestSnapshotMinRuntimeCountsFromEachJobsStartAtNow(t *testing.T) {
	for _, tc := range []struct {
		name, now, settings string
		want                string
	}{
		{"no min_runtime: the job admitted last", "", "", "young"},
		{"young protected until 1100 s, old free since 600 s", "", "min_runtime: 600", "old"},
		{"both protected at 599 s", "now: 599", "min_runtime: 600", ""},
		{"both free at 1100 s", "now: 1100", "min_runtime: 600", "young"},
		{"young protected until 1100 s at 1099 s", "now: 1099", "min_runtime: 600", "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(preemptedIn(t, tc.now, tc.settings), ",")
			if got != tc.want {
				t.Errorf("preempted %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSnapshotNegativeMinRuntimeIsAnErrorNamingTheKey(t *testing.T) {
	doc := strings.NewReplacer("%NOW%", "", "%SETTINGS%", "min_runtime: -5").Replace(protectionSnapshot)
	_, err := ParseSnapshot("protection.yaml", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), "settings.min_runtime") || !strings.Contains(err.Error(), "protection.yaml") {
		t.Fatalf("got %v, want an error naming protection.yaml and settings.min_runtime", err)
	}
}

// A live snapshot keeps min_runtime and each running job's last start, so
// that allot cycle replays the decision the live core made.
func TestWrittenSnapshotKeepsMinRuntimeAndStarts(t *testing.T) {
	doc := strings.NewReplacer("%NOW%", "", "%SETTINGS%", "min_runtime: 600").Replace(protectionSnapshot)
	sf, err := ParseSnapshot("protection.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	m := sf.Snapshot.Model
	jobs := []SnapshotJob{
		{Name: "old", Queue: "a", Admitted: 0, Flavor: 0, Want: 0, Accelerators: 1},
		{Name: "young", Queue: "a", Admitted: 400, Started: 500, HasStarted: true, Flavor: 0, Want: 0, Accelerators: 1},
		{Name: "urgent", Queue: "a", Priority: 10, Created: 700, Flavor: -1, Want: 0, Accelerators: 1},
	}
	m.Flavors[0].AccelResource = 0
	out, err := MarshalSnapshot(m, 700, jobs, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"min_runtime: 600", "started: 500"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("written snapshot lacks %q:\n%s", want, out)
		}
	}
	back, err := ParseSnapshot("live.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	res, err := policies.RunSnapshot(back.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Preempted) != 1 || res.Preempted[0].Name != "old" {
		t.Errorf("replayed: preempted %+v, want old", res.Preempted)
	}
}
