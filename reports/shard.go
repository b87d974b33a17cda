package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// A comparison split over machines: each shard runs some of the runs and
// writes what each adds to its variant; merging adds them back in the order
// one machine would have, so the merged comparison is the one a single
// machine produces, to the last bit (wall times aside).

// ComparePlan identifies a comparison: its variants, in order, and the seeds
// each runs. Every shard of one comparison carries the same plan.
type ComparePlan struct {
	Variants []PlannedVariant `json:"variants"`
	Seeds    int              `json:"seeds"`
}

// PlannedVariant is one scenario under one policy.
type PlannedVariant struct {
	Name     string `json:"name"`
	Scenario string `json:"scenario"`
	Policy   string `json:"policy"`
	BaseSeed uint64 `json:"base_seed"`
	// Digest fingerprints the scenario and policy files, so that shards
	// run from different copies of them do not merge.
	Digest string `json:"digest"`
}

// Runs is the number of runs in the plan; run i is seed i%Seeds of
// variant i/Seeds.
func (p *ComparePlan) Runs() int { return len(p.Variants) * p.Seeds }

// ShardCompare is the kind of a comparison's shard.
const ShardCompare = "compare"

// Shard is the part of a comparison one machine ran.
type Shard struct {
	Kind  string      `json:"kind"`
	Plan  ComparePlan `json:"plan"`
	Index int         `json:"shard"`  // 1-based
	Of    int         `json:"shards"` // how many shards the plan is split into
	Runs  []ShardRun  `json:"runs"`
}

// ShardRun is one run's contribution, with its place in the plan.
type ShardRun struct {
	Run int `json:"run"`
	RunContribution
}

// Owns says whether run i of a plan belongs to shard k (1-based) of n:
// runs are dealt out in turn, so every shard gets seeds of every variant.
func Owns(i, k, n int) bool { return i%n == k-1 }

// ShardFileName is the file a shard is written to in its directory.
func ShardFileName(k, n int) string { return fmt.Sprintf("shard-%d-of-%d.json", k, n) }

// WriteShard writes a shard's file into dir and returns its path.
func WriteShard(dir string, s *Shard) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, ShardFileName(s.Index, s.Of))
	return path, os.WriteFile(path, b, 0o644)
}

// ReadShards reads shard files; a directory stands for every shard file in it.
func ReadShards(paths []string) ([]*Shard, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := filepath.Glob(filepath.Join(p, "shard-*-of-*.json"))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no shard files (shard-K-of-N.json) in this directory", p)
		}
		files = append(files, found...)
	}
	var out []*Shard
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var s Shard
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: not a shard file: %w", f, err)
		}
		if s.Kind != ShardCompare {
			return nil, fmt.Errorf("%s: kind %q: this allot merges only %q shards", f, s.Kind, ShardCompare)
		}
		if s.Of < 1 || s.Index < 1 || s.Index > s.Of {
			return nil, fmt.Errorf("%s: shard %d of %d is out of range", f, s.Index, s.Of)
		}
		out = append(out, &s)
	}
	return out, nil
}

// MergeShards puts the shards of one comparison back together. Every shard
// must be present once, all with the same plan.
func MergeShards(shards []*Shard) (*Comparison, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no shards to merge")
	}
	first := shards[0]
	seen := make([]bool, first.Of+1)
	for _, s := range shards {
		if s.Index < 1 || s.Index > s.Of {
			return nil, fmt.Errorf("shard %d of %d is out of range", s.Index, s.Of)
		}
		if s.Of != first.Of || !reflect.DeepEqual(s.Plan, first.Plan) {
			return nil, fmt.Errorf("shard %d of %d and shard %d of %d are parts of different comparisons (scenarios, policies, seeds or files differ)",
				first.Index, first.Of, s.Index, s.Of)
		}
		if seen[s.Index] {
			return nil, fmt.Errorf("shard %d of %d is given twice", s.Index, s.Of)
		}
		seen[s.Index] = true
	}
	var missing []string
	for k := 1; k <= first.Of; k++ {
		if !seen[k] {
			missing = append(missing, fmt.Sprint(k))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing shard %s of %d", strings.Join(missing, ", "), first.Of)
	}
	plan := &first.Plan
	byRun := make([]*RunContribution, plan.Runs())
	for _, s := range shards {
		for i := range s.Runs {
			r := &s.Runs[i]
			if r.Run < 0 || r.Run >= len(byRun) || !Owns(r.Run, s.Index, s.Of) || byRun[r.Run] != nil || r.Summary == nil {
				return nil, fmt.Errorf("shard %d of %d: run %d does not belong to it or is repeated", s.Index, s.Of, r.Run)
			}
			byRun[r.Run] = &r.RunContribution
		}
	}
	if i := slices.Index(byRun, nil); i >= 0 {
		return nil, fmt.Errorf("shard %d of %d lacks run %d (variant %s, seed %d)", i%first.Of+1, first.Of, i,
			plan.Variants[i/plan.Seeds].Name, plan.Variants[i/plan.Seeds].BaseSeed+uint64(i%plan.Seeds))
	}
	return Assemble(plan, byRun)
}

// Assemble makes the comparison of a plan from every run's contribution,
// indexed as the plan numbers runs, adding them in that order.
func Assemble(plan *ComparePlan, byRun []*RunContribution) (*Comparison, error) {
	c := &Comparison{}
	for vi, pv := range plan.Variants {
		v := &VariantResult{Name: pv.Name, Scenario: pv.Scenario, Policy: pv.Policy}
		for k := 0; k < plan.Seeds; k++ {
			v.Add(byRun[vi*plan.Seeds+k])
		}
		c.Variants = append(c.Variants, v)
	}
	return c, c.Finish()
}
