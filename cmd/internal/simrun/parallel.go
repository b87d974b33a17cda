package simrun

import "golang.org/x/sync/errgroup"

// Parallel runs f(0..n-1) on workers goroutines; the first error wins.
// Compare, plan and tune each simulate their runs this way.
func Parallel(n, workers int, f func(int) error) error {
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for j := range n {
		g.Go(func() error { return f(j) })
	}
	return g.Wait()
}
