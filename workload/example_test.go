package workload_test

import (
	"errors"
	"fmt"
	"io"

	"github.com/allot-sim/allot/workload"
)

// A prefetching reader hands out the same jobs in the same order, each
// with what prepare made of it; both are made ahead, on a goroutine of its
// own, while the caller works on earlier jobs.
func ExampleNewPrefetch() {
	jobs := []workload.Job{{ID: "b", Submit: 20, Accelerators: 8}, {ID: "a", Submit: 10, Accelerators: 16}}
	nodes := func(j *workload.Job, n *int) { *n = int(j.Accelerators) / 8 } // 8 GPUs a node
	p := workload.NewPrefetch(workload.NewSliceSource(jobs, nil), nodes)
	defer p.Stop()
	for {
		j, n, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		fmt.Println(j.ID, j.Submit, *n)
	}
	// Output:
	// a 10 2
	// b 20 1
}
