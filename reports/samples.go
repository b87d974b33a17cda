package reports

import (
	"math"
	"sort"
)

// samples collects values in chunks that never move: appending does not
// copy, so a 10M-job run does not hold a doubled slice while growing one.
type samples struct {
	chunks [][]float64
	n      int
	sorted []float64 // materialised on first use
}

func (s *samples) add(x float64) {
	if k := len(s.chunks); k == 0 || len(s.chunks[k-1]) == cap(s.chunks[k-1]) {
		size := 256 << min(k, 8) // small first, 64k at most
		s.chunks = append(s.chunks, make([]float64, 0, size))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, x)
	s.n++
}

// values returns every sample in ascending order; later adds are not seen.
func (s *samples) values() []float64 {
	if s.sorted == nil {
		s.sorted = make([]float64, 0, s.n)
		for _, c := range s.chunks {
			s.sorted = append(s.sorted, c...)
		}
		s.chunks = nil
		sort.Float64s(s.sorted)
	}
	return s.sorted
}

// countHist counts small whole numbers (preemptions per job).
type countHist map[int]int

// percentile is the nearest-rank percentile, as percentile() of the
// sorted list of counts would give.
func (h countHist) percentile(p float64) float64 {
	n := 0
	keys := make([]int, 0, len(h))
	for k, c := range h {
		keys = append(keys, k)
		n += c
	}
	if n == 0 {
		return 0
	}
	sort.Ints(keys)
	rank := max(1, min(n, int(math.Ceil(p/100*float64(n)))))
	seen := 0
	for _, k := range keys {
		if seen += h[k]; seen >= rank {
			return float64(k)
		}
	}
	return float64(keys[len(keys)-1])
}

// mergeSorted merges ascending lists into one, pairwise: O(n log k).
func mergeSorted(lists [][]float64) []float64 {
	if len(lists) == 0 {
		return nil
	}
	for len(lists) > 1 {
		var next [][]float64
		for i := 0; i < len(lists); i += 2 {
			if i+1 == len(lists) {
				next = append(next, lists[i])
				continue
			}
			a, b := lists[i], lists[i+1]
			out := make([]float64, 0, len(a)+len(b))
			for len(a) > 0 && len(b) > 0 {
				if b[0] < a[0] {
					out, b = append(out, b[0]), b[1:]
				} else {
					out, a = append(out, a[0]), a[1:]
				}
			}
			next = append(next, append(append(out, a...), b...))
		}
		lists = next
	}
	return lists[0]
}
