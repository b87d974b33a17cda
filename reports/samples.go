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

// countHist counts small whole numbers (preemptions per job): h[k] is how
// many times k was counted. A slice, not a map: it is counted once a job.
type countHist []int

func (h *countHist) add(k int) {
	if k >= len(*h) {
		*h = append(*h, make([]int, k+1-len(*h))...)
	}
	(*h)[k]++
}

// percentile is the nearest-rank percentile, as percentile() of the
// sorted list of counts would give.
func (h countHist) percentile(p float64) float64 {
	n := 0
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return 0
	}
	rank := max(1, min(n, int(math.Ceil(p/100*float64(n)))))
	seen := 0
	for k, c := range h {
		if seen += c; seen >= rank {
			return float64(k)
		}
	}
	return float64(len(h) - 1)
}

// mergeSorted merges ascending lists into one, pairwise: O(n log k). The
// passes alternate between two buffers, and a step takes the smaller head
// without a branch on the comparison, which data would make unpredictable.
func mergeSorted(lists [][]float64) []float64 {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if len(lists) == 0 {
		return nil
	}
	if len(lists) == 1 {
		return lists[0]
	}
	bufs := [2][]float64{make([]float64, n), make([]float64, n)}
	next := make([][]float64, 0, (len(lists)+1)/2)
	for pass := 0; len(lists) > 1; pass++ {
		out := bufs[pass%2]
		next = next[:0]
		at := 0
		for i := 0; i < len(lists); i += 2 {
			if i+1 == len(lists) {
				k := copy(out[at:], lists[i])
				next = append(next, out[at:at+k])
				at += k
				continue
			}
			m := merge2(out[at:], lists[i], lists[i+1])
			next = append(next, out[at:at+m])
			at += m
		}
		lists = append(lists[:0:0], next...)
	}
	return lists[0]
}

// merge2 writes the merge of ascending a and b to out, equal values from a
// first, and returns how many it wrote.
func merge2(out, a, b []float64) int {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		takeB := 0
		if y < x {
			takeB = 1
		}
		v := [2]float64{x, y}
		out[k] = v[takeB]
		j += takeB
		i += 1 - takeB
		k++
	}
	k += copy(out[k:], a[i:])
	k += copy(out[k:], b[j:])
	return k
}
