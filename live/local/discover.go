package local

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// GPU is one device nvidia-smi reports.
type GPU struct {
	Index     string
	Name      string
	MemoryMiB int
}

// nvidiaSMIArgs is the query ParseNvidiaSMI reads.
var nvidiaSMIArgs = []string{"--query-gpu=index,name,memory.total", "--format=csv,noheader"}

// DiscoverNVIDIA lists this machine's NVIDIA GPUs through nvidia-smi.
func DiscoverNVIDIA(ctx context.Context) ([]GPU, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nvidia-smi", nvidiaSMIArgs...).Output()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi %s: %w", strings.Join(nvidiaSMIArgs, " "), err)
	}
	return ParseNvidiaSMI(string(out))
}

// ParseNvidiaSMI reads `nvidia-smi --query-gpu=index,name,memory.total
// --format=csv,noheader`: one "0, NVIDIA H100 80GB HBM3, 81559 MiB" a line.
func ParseNvidiaSMI(out string) ([]GPU, error) {
	var gpus []GPU
	for n, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("nvidia-smi line %d: %q: want index, name, memory.total", n+1, line)
		}
		idx, name, mem := strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2])
		if _, err := strconv.Atoi(idx); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: index %q: %w", n+1, idx, err)
		}
		mib, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(mem, "MiB")))
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: memory.total %q: %w", n+1, mem, err)
		}
		gpus = append(gpus, GPU{Index: idx, Name: name, MemoryMiB: mib})
	}
	return gpus, nil
}
