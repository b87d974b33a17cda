package scenarios

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/allot-sim/allot/policies"
)

// SnapshotFile is a loaded snapshot with its expected outcome.
type SnapshotFile struct {
	ID, Title, Tests string
	Snapshot         *policies.Snapshot
	Expected         *Expected
}

// Expected is a snapshot's expected outcome (ignored by allot cycle unless
// --check).
type Expected struct {
	Admitted  map[string]map[string]map[string]string
	Preempted map[string]string
	Pending   map[string]string
	PopOrder  []string
}

// LoadSnapshot reads a snapshot file.
func LoadSnapshot(path string) (*SnapshotFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSnapshot(path, data)
}

// ParseSnapshot validates snapshot YAML; path names the file in errors.
func ParseSnapshot(path string, data []byte) (*SnapshotFile, error) {
	var y snapshotYAML
	at, err := decodeStrict(path, data, &y)
	if err != nil {
		return nil, err
	}
	return buildSnapshot(path, at, &y)
}

// Check compares a result with the expected outcome; it returns the
// differences, one per line. An expected pending state "pending" accepts
// any pending state.
func (e *Expected) Check(r *policies.CycleResult) []string {
	var diffs []string
	got := map[string]map[string]map[string]string{}
	for _, a := range r.Admitted {
		got[a.Name] = a.Flavors
		want, ok := e.Admitted[a.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("admitted %s, expected not admitted", a.Name))
			continue
		}
		for ps, byRes := range want {
			for res, f := range byRes {
				if a.Flavors[ps][res] != f {
					diffs = append(diffs, fmt.Sprintf("admitted %s with %s/%s on %q, expected %q", a.Name, ps, res, a.Flavors[ps][res], f))
				}
			}
		}
	}
	for name := range e.Admitted {
		if _, ok := got[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("expected %s admitted, it was not", name))
		}
	}
	gotP := map[string]string{}
	for _, p := range r.Preempted {
		gotP[p.Name] = p.Reason
		if want, ok := e.Preempted[p.Name]; !ok {
			diffs = append(diffs, fmt.Sprintf("preempted %s (%s), expected not preempted", p.Name, p.Reason))
		} else if want != p.Reason {
			diffs = append(diffs, fmt.Sprintf("preempted %s with reason %s, expected %s", p.Name, p.Reason, want))
		}
	}
	for name := range e.Preempted {
		if _, ok := gotP[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("expected %s preempted, it was not", name))
		}
	}
	gotS := map[string]string{}
	for _, p := range r.Pending {
		gotS[p.Name] = p.State
	}
	for name, want := range e.Pending {
		st, ok := gotS[name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("expected %s pending (%s), it is not pending", name, want))
		case want != "pending" && st != want:
			diffs = append(diffs, fmt.Sprintf("%s is %s, expected %s", name, st, want))
		}
	}
	if e.PopOrder != nil && strings.Join(e.PopOrder, ",") != strings.Join(r.PopOrder, ",") {
		diffs = append(diffs, fmt.Sprintf("pop order %v, expected %v", r.PopOrder, e.PopOrder))
	}
	sort.Strings(diffs)
	return diffs
}

// latestTime is a snapshot's default now (spec/snapshot.md): the latest
// created, admitted or started time in the file.
func latestTime(y *snapshotYAML) float64 {
	t := 0.0
	for _, js := range [][]snapJobYAML{y.Running, y.Pending} {
		for _, j := range js {
			t = max(t, j.Created, j.Admitted)
			if j.Started != nil {
				t = max(t, *j.Started)
			}
		}
	}
	return t
}
