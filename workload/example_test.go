package workload_test

import (
	"errors"
	"fmt"
	"io"

	"github.com/allot-sim/allot/workload"
)

// A prefetching source hands out the same jobs in the same order; the
// jobs are made ahead on a goroutine of its own.
func ExampleNewPrefetchSource() {
	jobs := []workload.Job{{ID: "b", Submit: 20}, {ID: "a", Submit: 10}}
	src := workload.NewPrefetchSource(workload.NewSliceSource(jobs, nil))
	defer src.Close()
	for {
		j, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		fmt.Println(j.ID, j.Submit)
	}
	// Output:
	// a 10
	// b 20
}
