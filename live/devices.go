package live

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kinds of discovered devices.
const (
	KindNVIDIA = "nvidia"
	KindNeuron = "neuron"
)

// DeviceEnv is the environment that shows a run the devices it was given:
// CUDA_VISIBLE_DEVICES for NVIDIA GPUs, NEURON_RT_VISIBLE_CORES (the
// devices' NeuronCores) for Neuron devices, and both, set to the device
// numbers, for declared devices.
func (f *FlavorDevices) DeviceEnv(devices []string) []string {
	ids := strings.Join(devices, ",")
	switch f.Kind {
	case KindNVIDIA:
		return []string{"CUDA_VISIBLE_DEVICES=" + ids}
	case KindNeuron:
		var cores []int
		for _, d := range devices {
			cores = append(cores, f.Cores[d]...)
		}
		return []string{"NEURON_RT_VISIBLE_CORES=" + VisibleCores(cores)}
	default:
		return []string{"CUDA_VISIBLE_DEVICES=" + ids, "NEURON_RT_VISIBLE_CORES=" + ids}
	}
}

// VisibleCores writes NeuronCore ids as NEURON_RT_VISIBLE_CORES: an
// inclusive range ("4-7") when they are contiguous, the form every Neuron
// runtime reads, else a comma list.
func VisibleCores(cores []int) string {
	if len(cores) == 0 {
		return ""
	}
	c := slices.Sorted(slices.Values(cores))
	switch {
	case len(c) == 1:
		return strconv.Itoa(c[0])
	case c[len(c)-1]-c[0] == len(c)-1:
		return fmt.Sprintf("%d-%d", c[0], c[len(c)-1])
	}
	parts := make([]string, len(c))
	for i, x := range c {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}
