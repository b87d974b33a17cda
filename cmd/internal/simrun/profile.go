package simrun

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile profiles the simulation into path; the returned function
// stops it. An empty path profiles nothing.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// openAllocProfile creates path up front (so that a bad path fails before
// a long run) and returns the function that writes the allocations made by
// then into it: the allocs profile, every allocation since start, sampled.
func openAllocProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("memory profile: %w", err)
	}
	return func() error {
		err := pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("memory profile: %w", err)
		}
		return nil
	}, nil
}
