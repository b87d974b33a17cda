package export

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// tres is a TRES string as sacct and scontrol print it
// ("billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1"): a job's
// (or a node's) totals.
type tres struct {
	set      bool
	gpus     float64    // gres/gpu, or the typed counts' sum without it
	gpuTypes []gresType // gres/gpu:TYPE, most first
	cpus     float64
	memGiB   float64
	nodes    float64
	other    []string // TRES names not mapped (billing, energy, licenses, ...)
}

// gresType is a count of one GPU type.
type gresType struct {
	name  string
	count float64
}

// parseTRES reads a TRES string; "" is a zero tres with set false.
func parseTRES(s string) (tres, error) {
	var t tres
	s = strings.TrimSpace(s)
	if s == "" {
		return t, nil
	}
	t.set = true
	total, typed := math.NaN(), 0.0
	for _, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(item, "=")
		if !ok || name == "" {
			return t, fmt.Errorf("%q is not NAME=VALUE (in %q)", item, s)
		}
		if name == "mem" {
			gib, err := slurmMemGiB(val)
			if err != nil {
				return t, err
			}
			t.memGiB = gib
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return t, fmt.Errorf("%s=%q is not a count (in %q)", name, val, s)
		}
		switch {
		case name == "cpu":
			t.cpus = v
		case name == "node":
			t.nodes = v
		case name == "gres/gpu":
			total = v
		case strings.HasPrefix(name, "gres/gpu:"):
			t.gpuTypes = append(t.gpuTypes, gresType{strings.TrimPrefix(name, "gres/gpu:"), v})
			typed += v
		default:
			t.other = append(t.other, name)
		}
	}
	t.gpus = typed
	if !math.IsNaN(total) {
		t.gpus = total
	}
	sort.SliceStable(t.gpuTypes, func(a, b int) bool { return t.gpuTypes[a].count > t.gpuTypes[b].count })
	return t, nil
}

// slurmMemGiB reads a memory figure: a number with Slurm's unit suffix
// (K, M, G, T, P, powers of 1024), megabytes without one.
func slurmMemGiB(s string) (float64, error) {
	orig, mult := s, 1.0/1024 // MiB
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mult, s = 1.0/(1024*1024), s[:n-1]
		case 'M', 'm':
			s = s[:n-1]
		case 'G', 'g':
			mult, s = 1, s[:n-1]
		case 'T', 't':
			mult, s = 1024, s[:n-1]
		case 'P', 'p':
			mult, s = 1024*1024, s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("mem=%q is not a memory size (a number with K, M, G, T or P)", orig)
	}
	return v * mult, nil
}
