package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/events.golden from this build")

// Every decision a run makes shows in its event stream: who starts where
// and when, who is preempted and why. The digests pin them for shipped
// scenarios under every policy, so a change meant to be only faster (or
// only tidier) cannot move a single decision unnoticed. After a deliberate
// change of semantics, rerun with -update and say why in the commit.
func TestEventStreamsMatchTheRecordedDigests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shipped scenarios under every policy")
	}
	cases := []struct {
		scenario string
		jobs     int // cut the synthetic workload to this many jobs; 0 = as shipped
	}{
		{"amazon-search.yaml", 0},
		{"hyperpod-teams.yaml", 0},
		{"bench/1m-jobs.yaml", 5000},
	}
	got := map[string]string{}
	for _, c := range cases {
		for _, p := range []string{"fifo", "priority", "fairshare", "quota"} {
			s, err := loadScenario(filepath.Join("..", "..", "scenarios", c.scenario), p)
			if err != nil {
				t.Fatal(err)
			}
			if c.jobs > 0 {
				s.Synthetic.Count = c.jobs
				s.Horizon = float64(c.jobs)/680*3600 + 2*86400
			}
			r := simulateScenario(t, s, s.Seed, true)
			h := sha256.New()
			for _, e := range r.rec.events {
				fmt.Fprintf(h, "%.6f %d %d %d %d %s\n", e.Time, e.Kind, e.Job, e.Type, e.Nodes, e.Reason)
			}
			got[c.scenario+" "+p] = fmt.Sprintf("%x %d", h.Sum(nil), len(r.rec.events))
		}
	}
	const golden = "testdata/events.golden"
	if *update {
		var lines []string
		for k, v := range got {
			lines = append(lines, k+" "+v)
		}
		sort.Strings(lines)
		if err := os.WriteFile(golden, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to record it)", err, t.Name())
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 {
			want[fs[0]+" "+fs[1]] = fs[2] + " " + fs[3]
		}
	}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("%s: event stream digest %s, recorded %s", k, v, want[k])
		}
	}
}
