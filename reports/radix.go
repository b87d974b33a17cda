package reports

import (
	"math"
	"sort"
)

// sortFloat64s sorts xs ascending, as sort.Float64s does (NaNs first), by
// radix on the values' bits for long lists: a run's waits are sorted at
// its end, a million or more of them, while the run is otherwise done.
// scratch, grown as needed, holds the keys: reused from list to list, its
// memory is not asked of the system again (a page fault each 4 KiB).
func sortFloat64s(xs []float64, scratch *[]uint64) {
	if len(xs) < 4096 {
		sort.Float64s(xs)
		return
	}
	n := len(xs)
	if cap(*scratch) < 2*n {
		*scratch = make([]uint64, 2*n)
	}
	keys, buf := (*scratch)[:n], (*scratch)[n:2*n]
	for i, x := range xs {
		keys[i] = floatKey(x)
	}
	radixSort(keys, buf)
	for i, k := range keys {
		xs[i] = keyFloat(k)
	}
}

// floatKey maps a float to a key whose unsigned order is the float order:
// negatives flipped whole, positives with the sign bit set; NaN lowest.
func floatKey(x float64) uint64 {
	if x != x {
		return 0
	}
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// keyFloat undoes floatKey (a NaN comes back as the canonical NaN).
func keyFloat(k uint64) float64 {
	if k == 0 {
		return math.NaN()
	}
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// radixSort sorts keys by 11-bit digits, least significant first, using
// buf (as long) as the other buffer; a digit every key shares is skipped.
func radixSort(keys, buf []uint64) {
	const bits, size = 11, 1 << 11
	out := keys
	var count [size]int
	for shift := uint(0); shift < 64; shift += bits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(size-1)]++
		}
		if count[(keys[0]>>shift)&(size-1)] == len(keys) {
			continue
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for _, k := range keys {
			d := (k >> shift) & (size - 1)
			buf[count[d]] = k
			count[d]++
		}
		keys, buf = buf, keys
	}
	if &keys[0] != &out[0] { // an odd number of passes ended in buf
		copy(out, keys)
	}
}
