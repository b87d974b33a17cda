package reports

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
	var scratch []uint64
	return s.sortedWith(&scratch)
}

// sortedWith is values with the sort's scratch space given.
func (s *samples) sortedWith(scratch *[]uint64) []float64 {
	if s.sorted == nil {
		s.sorted = make([]float64, 0, s.n)
		for _, c := range s.chunks {
			s.sorted = append(s.sorted, c...)
		}
		s.chunks = nil
		sortFloat64s(s.sorted, scratch)
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
	rank := rankIndex(n, p) + 1 // how many counts reach it
	seen := 0
	for k, c := range h {
		if seen += c; seen >= rank {
			return float64(k)
		}
	}
	return float64(len(h) - 1)
}

// waitStats summarises the waits held in ascending lists as mean() and
// percentile() would over their merge, without making it: the sum is taken
// in ascending order, as over the merged list, and the percentiles are the
// values at their ranks. The lists are walked once, smallest head first.
func waitStats(lists [][]float64) WaitStats {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n == 0 {
		return WaitStats{}
	}
	r50, r95, r99 := rankIndex(n, 50), rankIndex(n, 95), rankIndex(n, 99)
	// A min-heap of the lists' heads; pos is how far each list is read.
	h := make([]int, 0, len(lists))
	pos := make([]int, len(lists))
	less := func(a, b int) bool { return lists[a][pos[a]] < lists[b][pos[b]] }
	down := func(i int) {
		for {
			m, l := i, 2*i+1
			if l < len(h) && less(h[l], h[m]) {
				m = l
			}
			if r := l + 1; r < len(h) && less(h[r], h[m]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i, l := range lists {
		if len(l) > 0 {
			h = append(h, i)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	var ws WaitStats
	sum := 0.0
	for k := 0; k < n; k++ {
		li := h[0]
		v := lists[li][pos[li]]
		sum += v
		if k == r50 {
			ws.P50 = v
		}
		if k == r95 {
			ws.P95 = v
		}
		if k == r99 {
			ws.P99 = v
		}
		ws.Max = v
		if pos[li]++; pos[li] == len(lists[li]) {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		if len(h) > 0 {
			down(0)
		}
	}
	ws.Mean = sum / float64(n)
	return ws
}
