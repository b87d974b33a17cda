package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RoundShards says whether the paths (files, or directories as --out left
// them) hold the shards of a plan or tune round rather than of a
// comparison.
func RoundShards(paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "round-shard-") {
			return true
		}
		if found, _ := filepath.Glob(filepath.Join(p, "round-shard-*-of-*.json")); len(found) > 0 {
			return true
		}
	}
	return false
}

// MergeRounds adds a round's shards (files, or directories holding them)
// to the state in the directory state, and returns the command that
// replays the search from it: it prints the next round's instructions,
// or the answer.
func MergeRounds(paths []string, state string) ([]string, error) {
	shards, err := readShards(paths)
	if err != nil {
		return nil, err
	}
	if state == "" {
		return nil, &InputError{fmt.Errorf("merging the shards of a plan or tune round needs --state DIR: where the merged rounds are kept")}
	}
	st := roundState{Kind: shards[0].Kind, Args: shards[0].Args, Digest: shards[0].Digest}
	if data, err := os.ReadFile(filepath.Join(state, stateFile)); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			return nil, &InputError{fmt.Errorf("%s: not a search state: %w", filepath.Join(state, stateFile), err)}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := checkShards(shards, &st); err != nil {
		return nil, &InputError{err}
	}
	slices.SortFunc(shards, func(a, b *roundShard) int { return a.Index - b.Index })
	for _, s := range shards {
		st.Runs = append(st.Runs, s.Runs...)
	}
	st.Rounds++
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(state, stateFile), st); err != nil {
		return nil, err
	}
	return append(slices.Clone(st.Args), "--state", state, "--replay-only"), nil
}

// readShards reads the shard files named, or found in the directories
// named.
func readShards(paths []string) ([]*roundShard, error) {
	var shards []*roundShard
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			return nil, &InputError{err}
		} else if st.IsDir() {
			found, _ := filepath.Glob(filepath.Join(p, "round-shard-*-of-*.json"))
			if len(found) == 0 {
				return nil, &InputError{fmt.Errorf("%s: no round shard files (round-shard-K-of-N.json) in this directory", p)}
			}
			files = found
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, &InputError{err}
			}
			var s roundShard
			if err := json.Unmarshal(data, &s); err != nil {
				return nil, &InputError{fmt.Errorf("%s: not a round shard file: %w", f, err)}
			}
			shards = append(shards, &s)
		}
	}
	return shards, nil
}

// checkShards checks the shards are every shard of the state's next
// round, each once.
func checkShards(shards []*roundShard, st *roundState) error {
	seen := map[int]bool{}
	for _, s := range shards {
		switch {
		case s.Kind != st.Kind || !slices.Equal(s.Args, st.Args) || s.Digest != st.Digest:
			return fmt.Errorf("shard %d of %d is of another search ('allot %s')", s.Index, s.Of, strings.Join(s.Args, " "))
		case s.Round != st.Rounds+1:
			return fmt.Errorf("shard %d of %d is of round %d; the state has %d rounds, so round %d is next", s.Index, s.Of, s.Round, st.Rounds, st.Rounds+1)
		case s.Of != shards[0].Of:
			return fmt.Errorf("shards of %d and of %d: one split per round", shards[0].Of, s.Of)
		case seen[s.Index]:
			return fmt.Errorf("shard %d of %d is given twice", s.Index, s.Of)
		}
		seen[s.Index] = true
	}
	for i := 1; i <= shards[0].Of; i++ {
		if !seen[i] {
			return fmt.Errorf("shard %d of %d of round %d is missing", i, shards[0].Of, st.Rounds+1)
		}
	}
	return nil
}
