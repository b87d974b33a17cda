// Package cycle runs allot cycle: the policy core's scheduling cycle on a
// snapshot file, timed. It joins scenarios (the file) and policies (the
// run).
package cycle

import (
	"fmt"
	"time"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
)

// Run loads the snapshot at path and runs its cycle repeat times (at
// least once), each on a fresh load since a cycle changes the jobs. It
// returns the last load and its result, and how long each decision took,
// loading left out.
func Run(path string, repeat int) (*scenarios.SnapshotFile, *policies.CycleResult, []time.Duration, error) {
	var (
		sf   *scenarios.SnapshotFile
		res  *policies.CycleResult
		took []time.Duration
	)
	for range max(repeat, 1) {
		var err error
		if sf, err = scenarios.LoadSnapshot(path); err != nil {
			return nil, nil, nil, err
		}
		res, err = policies.RunSnapshotWith(sf.Snapshot, func(decide func()) {
			start := time.Now()
			decide()
			took = append(took, time.Since(start))
		})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return sf, res, took, nil
}
