package main

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"
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

// roundFlags are the flags of a search spread over machines.
type roundFlags struct {
	shards, shard int
	state         string
	replayOnly    bool
	emit          string
	image         string
	claim         string
	mount         string
}

// roundFlagNames are left out of the command a shard or merge repeats.
var roundFlagNames = []string{"shards", "shard", "state", "replay-only", "emit", "image", "claim", "mount", "out", "json", "workers"}

func addRoundFlags(cmd *cobra.Command, f *roundFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.shards, "shards", 1, "split each round's runs into this many shards (each run with --shard, then 'allot sweep merge --state')")
	fl.IntVar(&f.shard, "shard", 0, "with --shards: the shard to run, 1 to --shards (default: JOB_COMPLETION_INDEX + 1)")
	fl.StringVar(&f.state, "state", "", "directory holding the results of the rounds already merged (state.json)")
	fl.BoolVar(&f.replayOnly, "replay-only", false, "simulate nothing: replay the search from --state and say what the next round needs")
	fl.StringVar(&f.emit, "emit", "", "kubernetes: print the next round as an Indexed Job (one completion per shard) and its merge Job, and run nothing")
	fl.StringVar(&f.image, "image", "ghcr.io/allot-sim/allot:latest", "with --emit: the container image with allot in it (make image)")
	fl.StringVar(&f.claim, "claim", "allot-sweep", "with --emit: the PersistentVolumeClaim holding the scenario files, the state and the shards")
	fl.StringVar(&f.mount, "mount", "/sweep", "with --emit: where the claim is mounted; the commands run there")
	_ = fl.MarkHidden("replay-only")
}

// searchArgs is the command a shard or a merge repeats: its name, its
// arguments and every flag set, but the round flags, in a fixed order.
func searchArgs(cmd *cobra.Command, pos []string) []string {
	out := append([]string{cmd.Name()}, pos...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(roundFlagNames, f.Name) {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name, v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// roundCache holds the runs of the rounds merged so far and decides, for
// each batch a search asks for, which runs this process makes.
type roundCache struct {
	f        *roundFlags
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

// openRounds reads --state for a search (nil when no round flag is set)
// and checks the command and files are the ones it was made with.
func openRounds(cmd *cobra.Command, f *roundFlags, kind string, args []string, digest string) (*roundCache, error) {
	sharded := f.shards > 1 || f.state != "" || f.emit != "" || f.replayOnly
	if !sharded {
		return nil, nil
	}
	if f.shards < 1 {
		return nil, badInput(fmt.Errorf("--shards: must be at least 1, got %d", f.shards))
	}
	if f.state == "" {
		return nil, badInput(fmt.Errorf("--shards, --emit and --replay-only need --state DIR: the directory the merged rounds are kept in"))
	}
	if f.emit != "" && f.emit != "kubernetes" {
		return nil, badInput(fmt.Errorf("--emit %q: want kubernetes", f.emit))
	}
	if f.shards > 1 && f.emit == "" && !f.replayOnly && f.shard == 0 {
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		n, err := strconv.Atoi(idx)
		if idx == "" || err != nil || n < 0 {
			return nil, badInput(fmt.Errorf("--shards %d: give --shard I (1 to %d), or run as an Indexed Job (JOB_COMPLETION_INDEX)", f.shards, f.shards))
		}
		f.shard = n + 1
	}
	if f.shards > 1 && f.emit == "" && !f.replayOnly && (f.shard < 1 || f.shard > f.shards) {
		return nil, badInput(fmt.Errorf("--shards %d --shard %d: want 1 <= shard <= shards", f.shards, f.shard))
	}
	c := &roundCache{f: f, runs: map[string]storedRun{}, state: roundState{Kind: kind, Args: searchArgs(cmd, args), Digest: digest}}
	data, err := os.ReadFile(filepath.Join(f.state, stateFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, err
	}
	var st roundState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, badInput(fmt.Errorf("%s: not a search state: %w", filepath.Join(f.state, stateFile), err))
	}
	if st.Kind != kind || !slices.Equal(st.Args, c.state.Args) {
		return nil, badInput(fmt.Errorf("%s holds the rounds of 'allot %s', not of this command", filepath.Join(f.state, stateFile), strings.Join(st.Args, " ")))
	}
	if st.Digest != digest {
		msg := fmt.Sprintf("%s was made from other scenario or policy files, or another build of allot", filepath.Join(f.state, stateFile))
		if f.emit == "" {
			return nil, badInput(errors.New(msg))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: the Jobs emitted run the image's build\n", msg)
	}
	c.state = st
	for _, r := range st.Runs {
		c.runs[r.Key] = r
	}
	return c, nil
}

// split says which runs of a batch (by key, in the batch's order) this
// process simulates: all the missing ones when it is alone, its share of
// them when it is a shard, none when it only replays (or emits).
func (c *roundCache) split(keys []string) ([]int, error) {
	var missing []int
	for i, k := range keys {
		if c == nil {
			missing = append(missing, i)
		} else if _, ok := c.runs[k]; !ok {
			missing = append(missing, i)
		}
	}
	if c == nil || len(missing) == 0 || (c.f.shards == 1 && c.f.emit == "" && !c.f.replayOnly) {
		return missing, nil
	}
	if c.f.replayOnly || c.f.emit != "" {
		return nil, &needRoundError{runs: len(missing)}
	}
	c.needed = len(missing)
	var mine []int
	for j, i := range missing {
		if j%c.f.shards == c.f.shard-1 {
			mine = append(mine, i)
		}
	}
	return mine, nil
}

// get is a merged run.
func (c *roundCache) get(key string) (storedRun, bool) {
	if c == nil {
		return storedRun{}, false
	}
	r, ok := c.runs[key]
	return r, ok
}

// put files a run just made; a shard's runs end its process after its batch.
func (c *roundCache) put(r storedRun) {
	if c == nil {
		return
	}
	c.runs[r.Key] = r
	if c.f.shards > 1 {
		c.produced = append(c.produced, r)
	}
}

// afterBatch ends a shard once it has run its share of a round.
func (c *roundCache) afterBatch() error {
	if c != nil && c.f.shards > 1 && c.needed > 0 {
		return errRoundRun
	}
	return nil
}

// finish handles a search that stopped for a round: a shard writes its
// runs, a replay or an emit says what the next round needs. It returns
// handled=false when the search ran to its end.
func (c *roundCache) finish(cmd *cobra.Command, outDir string, err error) (handled bool, _ error) {
	var need *needRoundError
	switch {
	case c == nil:
		return false, err
	case errors.Is(err, errRoundRun):
		if outDir == "" {
			return true, badInput(fmt.Errorf("--shards needs --out: the directory the shard's file goes to"))
		}
		sh := roundShard{Kind: c.state.Kind, Args: c.state.Args, Digest: c.state.Digest, Round: c.state.Rounds + 1,
			Index: c.f.shard, Of: c.f.shards, Needed: c.needed, Runs: c.produced}
		if err := writeJSONFile(filepath.Join(outDir, roundShardFile(sh.Index, sh.Of)), sh); err != nil {
			return true, err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "round %d, shard %d of %d: %d of the round's %d runs; wrote %s (merge the round with 'allot sweep merge %s --state %s')\n",
			sh.Round, sh.Index, sh.Of, len(sh.Runs), sh.Needed, filepath.Join(outDir, roundShardFile(sh.Index, sh.Of)), outDir, c.f.state)
		return true, nil
	case errors.As(err, &need):
		if c.f.emit != "" {
			return true, emitRound(cmd, c, need.runs)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "round %d needs %d runs: run each shard of it (allot %s --shards N --shard I --state %s --out round-%d/), then 'allot sweep merge round-%d/ --state %s'\n",
			c.state.Rounds+1, need.runs, strings.Join(c.state.Args, " "), c.f.state, c.state.Rounds+1, c.state.Rounds+1, c.f.state)
		return true, nil
	case err != nil:
		return true, err
	case c.f.emit != "":
		fmt.Fprintf(cmd.OutOrStdout(), "# the search is complete: 'allot sweep merge' of its last round printed the answer\n")
		return true, nil
	}
	if c.f.shards > 1 && !c.f.replayOnly {
		fmt.Fprintf(cmd.ErrOrStderr(), "the search is complete: nothing left for shard %d to run\n", c.f.shard)
		return true, nil
	}
	return false, nil
}

// mergeRounds adds a round's shards to the state and replays the search:
// the next round's instructions, or the answer.
func mergeRounds(cmd *cobra.Command, paths []string, state, outDir string, asJSON bool) error {
	var shards []*roundShard
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			return badInput(err)
		} else if st.IsDir() {
			found, _ := filepath.Glob(filepath.Join(p, "round-shard-*-of-*.json"))
			if len(found) == 0 {
				return badInput(fmt.Errorf("%s: no round shard files (round-shard-K-of-N.json) in this directory", p))
			}
			files = found
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return badInput(err)
			}
			var s roundShard
			if err := json.Unmarshal(data, &s); err != nil {
				return badInput(fmt.Errorf("%s: not a round shard file: %w", f, err))
			}
			shards = append(shards, &s)
		}
	}
	if state == "" {
		return badInput(fmt.Errorf("merging the shards of a plan or tune round needs --state DIR: where the merged rounds are kept"))
	}
	st := roundState{Kind: shards[0].Kind, Args: shards[0].Args, Digest: shards[0].Digest}
	if data, err := os.ReadFile(filepath.Join(state, stateFile)); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			return badInput(fmt.Errorf("%s: not a search state: %w", filepath.Join(state, stateFile), err))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	seen := map[int]bool{}
	for _, s := range shards {
		switch {
		case s.Kind != st.Kind || !slices.Equal(s.Args, st.Args) || s.Digest != st.Digest:
			return badInput(fmt.Errorf("shard %d of %d is of another search ('allot %s')", s.Index, s.Of, strings.Join(s.Args, " ")))
		case s.Round != st.Rounds+1:
			return badInput(fmt.Errorf("shard %d of %d is of round %d; the state has %d rounds, so round %d is next", s.Index, s.Of, s.Round, st.Rounds, st.Rounds+1))
		case s.Of != shards[0].Of:
			return badInput(fmt.Errorf("shards of %d and of %d: one split per round", shards[0].Of, s.Of))
		case seen[s.Index]:
			return badInput(fmt.Errorf("shard %d of %d is given twice", s.Index, s.Of))
		}
		seen[s.Index] = true
	}
	for i := 1; i <= shards[0].Of; i++ {
		if !seen[i] {
			return badInput(fmt.Errorf("shard %d of %d of round %d is missing", i, shards[0].Of, st.Rounds+1))
		}
	}
	slices.SortFunc(shards, func(a, b *roundShard) int { return a.Index - b.Index })
	for _, s := range shards {
		st.Runs = append(st.Runs, s.Runs...)
	}
	st.Rounds++
	if err := os.MkdirAll(state, 0o755); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(state, stateFile), st); err != nil {
		return err
	}
	args := append(slices.Clone(st.Args), "--state", state, "--replay-only")
	if asJSON {
		args = append(args, "--json")
	}
	if outDir != "" {
		args = append(args, "--out", outDir)
	}
	if code := run(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
		return &exitCode{code}
	}
	return nil
}

// exitCode passes on the exit code of a command run in process.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit %d", e.code) }

// writeJSONFile writes v whole or not at all.
func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// searchDigest fingerprints what a search reads: its files and the build.
func searchDigest(paths ...string) (string, error) {
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
	h.Write([]byte(buildID()))
	return fmt.Sprintf("%x", h.Sum(nil)[:12]), nil
}

// emitRound prints the next round as an Indexed Job, one completion per
// shard, and the Job that merges it; both run allot in the image, in the
// claim's directory, which holds the scenario files, the state and the
// round's shards.
func emitRound(cmd *cobra.Command, c *roundCache, runs int) error {
	round := c.state.Rounds + 1
	n := int32(c.f.shards)
	state := path.Join(c.f.mount, c.f.state)
	if path.IsAbs(c.f.state) {
		state = c.f.state
	}
	out := path.Join(c.f.mount, fmt.Sprintf("round-%d", round))
	name := fmt.Sprintf("allot-%s-round-%d", c.state.Kind, round)
	shard := append(slices.Clone(c.state.Args), "--shards", strconv.Itoa(c.f.shards), "--state", state, "--out", out)
	merge := []string{"sweep", "merge", out, "--state", state}
	indexed := batchv1.IndexedCompletion
	job := func(name string, args []string, completions int32, mode *batchv1.CompletionMode) *batchv1.Job {
		return &batchv1.Job{
			TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app.kubernetes.io/name": "allot", "scheduling.allot.dev/sweep-round": strconv.Itoa(round)}},
			Spec: batchv1.JobSpec{
				Completions: &completions, Parallelism: &completions, CompletionMode: mode,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "allot", Image: c.f.image, Command: []string{"allot"}, Args: args, WorkingDir: c.f.mount,
						VolumeMounts: []corev1.VolumeMount{{Name: "sweep", MountPath: c.f.mount}}}},
					Volumes: []corev1.Volume{{Name: "sweep", VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.f.claim}}}},
				}},
			},
		}
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "# Round %d of 'allot %s': %d runs in %d shards.\n", round, strings.Join(c.state.Args, " "), runs, n)
	fmt.Fprintf(w, "# Apply the first Job; when it completes, apply the second (it merges the round\n# and prints the next round, or the answer); then emit again.\n")
	for i, j := range []*batchv1.Job{job(name, shard, n, &indexed), job(name+"-merge", merge, 1, nil)} {
		data, err := sigsyaml.Marshal(j)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		w.Write(data)
	}
	return nil
}
