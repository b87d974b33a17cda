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
	"sync"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
)

var update = flag.Bool("update", false, "rewrite testdata/events.golden from this build")

const goldenFile = "testdata/events.golden"

// goldenCases are the runs whose event streams are pinned: shipped scenarios
// under every policy.
func goldenCases() []digestCase {
	var out []digestCase
	for _, c := range []struct {
		scenario string
		jobs     int // cut the synthetic workload to this many jobs; 0 = as shipped
	}{
		{"amazon-search.yaml", 0},
		{"hyperpod-teams.yaml", 0},
		{"bench/1m-jobs.yaml", 5000},
	} {
		for _, p := range []string{"fifo", "priority", "fairshare", "quota"} {
			out = append(out, digestCase{c.scenario, p, c.jobs})
		}
	}
	return out
}

type digestCase struct {
	scenario, policy string
	jobs             int
}

func (c digestCase) key() string { return c.scenario + " " + c.policy }

// digest runs the case and hashes its event stream. It returns errors rather
// than failing the test, so that it can run on any goroutine.
func (c digestCase) digest() (string, error) {
	s, err := loadScenario(filepath.Join("..", "..", "scenarios", c.scenario), c.policy)
	if err != nil {
		return "", err
	}
	if c.jobs > 0 {
		s.Synthetic.Count = c.jobs
		s.Horizon = float64(c.jobs)/680*3600 + 2*86400
	}
	in, err := simrun.Input(s, s.Seed)
	if err != nil {
		return "", err
	}
	defer in.Source.Close()
	rec := &recorder{}
	chk := sim.NewChecker(in)
	if err := sim.Run(in, workload.Tee(rec, chk)); err != nil {
		return "", err
	}
	if len(chk.Errors) > 0 {
		return "", fmt.Errorf("invariant violated: %s", chk.Errors[0])
	}
	h := sha256.New()
	for _, e := range rec.events {
		fmt.Fprintf(h, "%.6f %d %d %d %d %s\n", e.Time, e.Kind, e.Job, e.Type, e.Nodes, e.Reason)
	}
	return fmt.Sprintf("%x %d", h.Sum(nil), len(rec.events)), nil
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestEventStreamsMatchTheRecordedDigests -update to record it)", err)
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
	return want
}

// Every decision a run makes shows in its event stream: who starts where
// and when, who is preempted and why. The digests pin them for shipped
// scenarios under every policy, so a change meant to be only faster (or
// only tidier) cannot move a single decision unnoticed. After a deliberate
// change of semantics, rerun with -update and say why in the commit.
func TestEventStreamsMatchTheRecordedDigests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shipped scenarios under every policy")
	}
	got := map[string]string{}
	for _, c := range goldenCases() {
		d, err := c.digest()
		if err != nil {
			t.Fatalf("%s: %v", c.key(), err)
		}
		got[c.key()] = d
	}
	if *update {
		var lines []string
		for k, v := range got {
			lines = append(lines, k+" "+v)
		}
		sort.Strings(lines)
		if err := os.WriteFile(goldenFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readGolden(t)
	for k, v := range got {
		if want[k] != v {
			t.Errorf("%s: event stream digest %s, recorded %s", k, v, want[k])
		}
	}
}

// Runs share nothing: any number of them at once, in one process, make the
// same decisions as each alone (compare and sweeps rely on it). Every pinned
// case runs three times over, all at the same time.
func TestConcurrentRunsMakeTheSameDecisionsAsRunsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shipped scenarios under every policy")
	}
	want := readGolden(t)
	cases := goldenCases()
	const copies = 3
	got := make([]string, len(cases)*copies)
	errs := make([]error, len(got))
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = cases[i%len(cases)].digest()
		}()
	}
	wg.Wait()
	for i, d := range got {
		c := cases[i%len(cases)]
		if errs[i] != nil {
			t.Fatalf("%s: %v", c.key(), errs[i])
		}
		if d != want[c.key()] {
			t.Errorf("%s, run %d of %d at once: event stream digest %s, recorded %s", c.key(), i, len(got), d, want[c.key()])
		}
	}
}
