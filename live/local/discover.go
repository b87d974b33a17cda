package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
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

// NeuronDevice is one Trainium or Inferentia device neuron-ls reports,
// with the NeuronCores (global ids) it holds.
type NeuronDevice struct {
	Index        int
	Cores        []int
	MemoryBytes  int64
	InstanceType string // e.g. trn1.32xlarge, when neuron-ls knows it
}

// DiscoverNeuron lists this machine's Neuron devices through neuron-ls.
func DiscoverNeuron(ctx context.Context) ([]NeuronDevice, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "neuron-ls", "--json-output").Output()
	if err != nil {
		return nil, fmt.Errorf("neuron-ls --json-output: %w", err)
	}
	return ParseNeuronLS(out)
}

// ParseNeuronLS reads `neuron-ls --json-output`: an array of devices with
// neuron_device, nc_count and, on newer tools, neuroncore_ids (else the
// cores are numbered on from the previous device's).
func ParseNeuronLS(data []byte) ([]NeuronDevice, error) {
	var raw []struct {
		Device       *int   `json:"neuron_device"`
		NCCount      *int   `json:"nc_count"`
		CoreIDs      []int  `json:"neuroncore_ids"`
		MemorySize   int64  `json:"memory_size"`
		InstanceType string `json:"instance_type"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("neuron-ls --json-output: %w", err)
	}
	var out []NeuronDevice
	next := 0
	for i, r := range raw {
		switch {
		case r.Device == nil:
			return nil, fmt.Errorf("neuron-ls --json-output: device [%d]: no neuron_device", i)
		case r.NCCount == nil || *r.NCCount <= 0:
			return nil, fmt.Errorf("neuron-ls --json-output: device [%d]: nc_count missing or not positive", i)
		case r.CoreIDs != nil && len(r.CoreIDs) != *r.NCCount:
			return nil, fmt.Errorf("neuron-ls --json-output: device [%d]: %d neuroncore_ids for nc_count %d", i, len(r.CoreIDs), *r.NCCount)
		}
		d := NeuronDevice{Index: *r.Device, Cores: r.CoreIDs, MemoryBytes: r.MemorySize, InstanceType: r.InstanceType}
		if d.Cores == nil {
			for c := range *r.NCCount {
				d.Cores = append(d.Cores, next+c)
			}
		}
		next = slices.Max(d.Cores) + 1
		out = append(out, d)
	}
	return out, nil
}
