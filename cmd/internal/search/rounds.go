package search

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/atomicfile"
)

// A plan or a tune searches in rounds whose runs depend on the rounds
// before. Spread over machines, each round's runs are split into shards
// (--shards N, --shard I or JOB_COMPLETION_INDEX), each shard writes its
// runs' results, and `allot sweep merge --state DIR` adds them to the
// state of finished rounds and replays the search: it prints the next
// round to run, or the answer, the same as one machine's.

// storedRun is one simulation's result as a search reads it.
type storedRun struct {
	Key      string    `json:"key"`
	Value    float64   `json:"value,omitempty"` // tune: the key tuned
	Values   []float64 `json:"values"`          // per objective or constraint
	Met      []bool    `json:"met"`             // per objective or constraint
	At       []string  `json:"at,omitempty"`    // plan: a wildcard's worst key
	Frontier float64   `json:"frontier"`        // plan: the frontier objective
	KPIs     []float64 `json:"kpis,omitempty"`  // plan: planKPIs
}

// roundState is what the finished rounds of a sharded search found.
type roundState struct {
	Kind   string      `json:"kind"` // plan | tune
	Args   []string    `json:"args"` // the command, without the round flags
	Digest string      `json:"digest"`
	Rounds int         `json:"rounds"`
	Runs   []storedRun `json:"runs"`
}

// roundShard is one shard's runs of one round.
type roundShard struct {
	Kind   string   `json:"kind"`
	Args   []string `json:"args"`
	Digest string   `json:"digest"`
	Round  int      `json:"round"`
	Index  int      `json:"shard"`
	Of     int      `json:"shards"`
	// Needed is how many runs the round has over every shard.
	Needed int         `json:"needed"`
	Runs   []storedRun `json:"runs"`
}

const stateFile = "state.json"

func roundShardFile(i, n int) string { return fmt.Sprintf("round-shard-%d-of-%d.json", i, n) }

// RoundOptions are the flags of a search spread over machines.
type RoundOptions struct {
	Shards, Shard int
	State         string // the directory of the merged rounds
	ReplayOnly    bool
	Emit          string // kubernetes: print the next round's Jobs
	Image         string // with Emit: the image allot runs in
	Claim         string // with Emit: the claim holding the files
	Mount         string // with Emit: where the claim is mounted
}

// Rounds holds the runs of the rounds merged so far and decides, for
// each batch a search asks for, which runs this process makes.
type Rounds struct {
	f        RoundOptions
	state    roundState
	runs     map[string]storedRun
	produced []storedRun
	needed   int
}

// errRoundRun ends a shard's process once it has run its share of the
// first round not merged yet.
var errRoundRun = errors.New("this shard's runs of the round are done")

// needRoundError says the search cannot go on without another round.
type needRoundError struct{ runs int }

func (e *needRoundError) Error() string {
	return fmt.Sprintf("the next round needs %d runs", e.runs)
}

// OpenRounds reads the state of a search (nil when no round flag is set)
// and checks the command (args: its name, arguments and flags but the
// round flags) and its files (digest) are the ones it was made with.
// jobIndex is JOB_COMPLETION_INDEX; warn hears of an emit from other
// files.
func OpenRounds(f RoundOptions, kind string, args []string, digest, jobIndex string, warn io.Writer) (*Rounds, error) {
	sharded := f.Shards > 1 || f.State != "" || f.Emit != "" || f.ReplayOnly
	if !sharded {
		return nil, nil
	}
	if err := f.check(jobIndex); err != nil {
		return nil, &InputError{err}
	}
	c := &Rounds{f: f, runs: map[string]storedRun{}, state: roundState{Kind: kind, Args: args, Digest: digest}}
	path := filepath.Join(f.State, stateFile)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, err
	}
	var st roundState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, &InputError{fmt.Errorf("%s: not a search state: %w", path, err)}
	}
	if st.Kind != kind || !slices.Equal(st.Args, c.state.Args) {
		return nil, &InputError{fmt.Errorf("%s holds the rounds of 'allot %s', not of this command", path, strings.Join(st.Args, " "))}
	}
	if st.Digest != digest {
		msg := fmt.Sprintf("%s was made from other scenario or policy files, or another build of allot", path)
		if f.Emit == "" {
			return nil, &InputError{errors.New(msg)}
		}
		fmt.Fprintf(warn, "warning: %s: the Jobs emitted run the image's build\n", msg)
	}
	c.state = st
	for _, r := range st.Runs {
		c.runs[r.Key] = r
	}
	return c, nil
}

// check checks the round flags and sets the shard from jobIndex when
// none is given.
func (f *RoundOptions) check(jobIndex string) error {
	if f.Shards < 1 {
		return fmt.Errorf("--shards: must be at least 1, got %d", f.Shards)
	}
	if f.State == "" {
		return fmt.Errorf("--shards, --emit and --replay-only need --state DIR: the directory the merged rounds are kept in")
	}
	if f.Emit != "" && f.Emit != "kubernetes" {
		return fmt.Errorf("--emit %q: want kubernetes", f.Emit)
	}
	runs := f.Shards > 1 && f.Emit == "" && !f.ReplayOnly
	if runs && f.Shard == 0 {
		n, err := strconv.Atoi(jobIndex)
		if jobIndex == "" || err != nil || n < 0 {
			return fmt.Errorf("--shards %d: give --shard I (1 to %d), or run as an Indexed Job (JOB_COMPLETION_INDEX)", f.Shards, f.Shards)
		}
		f.Shard = n + 1
	}
	if runs && (f.Shard < 1 || f.Shard > f.Shards) {
		return fmt.Errorf("--shards %d --shard %d: want 1 <= shard <= shards", f.Shards, f.Shard)
	}
	return nil
}

// split says which runs of a batch (by key, in the batch's order) this
// process simulates: all the missing ones when it is alone, its share of
// them when it is a shard, none when it only replays (or emits).
func (c *Rounds) split(keys []string) ([]int, error) {
	var missing []int
	for i, k := range keys {
		if c == nil {
			missing = append(missing, i)
		} else if _, ok := c.runs[k]; !ok {
			missing = append(missing, i)
		}
	}
	if c == nil || len(missing) == 0 || (c.f.Shards == 1 && c.f.Emit == "" && !c.f.ReplayOnly) {
		return missing, nil
	}
	if c.f.ReplayOnly || c.f.Emit != "" {
		return nil, &needRoundError{runs: len(missing)}
	}
	c.needed = len(missing)
	var mine []int
	for j, i := range missing {
		if j%c.f.Shards == c.f.Shard-1 {
			mine = append(mine, i)
		}
	}
	return mine, nil
}

// get is a merged run.
func (c *Rounds) get(key string) (storedRun, bool) {
	if c == nil {
		return storedRun{}, false
	}
	r, ok := c.runs[key]
	return r, ok
}

// put files a run just made; a shard's runs end its process after its batch.
func (c *Rounds) put(r storedRun) {
	if c == nil {
		return
	}
	c.runs[r.Key] = r
	if c.f.Shards > 1 {
		c.produced = append(c.produced, r)
	}
}

// afterBatch ends a shard once it has run its share of a round.
func (c *Rounds) afterBatch() error {
	if c != nil && c.f.Shards > 1 && c.needed > 0 {
		return errRoundRun
	}
	return nil
}

// Digest fingerprints what a search reads: its files (a path "" is
// skipped) and the build.
func Digest(build string, paths ...string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		h.Write(data)
		h.Write([]byte{0})
	}
	h.Write([]byte(build))
	return fmt.Sprintf("%x", h.Sum(nil)[:12]), nil
}

// writeJSONFile writes v whole or not at all.
func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'))
}
