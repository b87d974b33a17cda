package live

import (
	"slices"
	"testing"
)

// A run is shown its devices the way its kind of device reads them:
// NVIDIA GPUs by CUDA_VISIBLE_DEVICES, Neuron devices by the NeuronCores
// they hold (a range when contiguous), declared devices by both.
func TestDeviceEnvShowsEachKindItsDevices(t *testing.T) {
	neuron := &FlavorDevices{Kind: KindNeuron, Cores: map[string][]int{"0": {0, 1}, "1": {2, 3}, "3": {6, 7}}}
	for _, c := range []struct {
		f       *FlavorDevices
		devices []string
		want    []string
	}{
		{&FlavorDevices{Kind: KindNVIDIA}, []string{"0", "3"}, []string{"CUDA_VISIBLE_DEVICES=0,3"}},
		{neuron, []string{"1", "0"}, []string{"NEURON_RT_VISIBLE_CORES=0-3"}},
		{neuron, []string{"1", "3"}, []string{"NEURON_RT_VISIBLE_CORES=2,3,6,7"}},
		{neuron, []string{"3"}, []string{"NEURON_RT_VISIBLE_CORES=6-7"}},
		{&FlavorDevices{}, []string{"1", "2"}, []string{"CUDA_VISIBLE_DEVICES=1,2", "NEURON_RT_VISIBLE_CORES=1,2"}},
	} {
		if got := c.f.DeviceEnv(c.devices); !slices.Equal(got, c.want) {
			t.Errorf("%s %v: %v, want %v", c.f.Kind, c.devices, got, c.want)
		}
	}
	if got := VisibleCores([]int{5}); got != "5" {
		t.Errorf("one core: %q, want 5", got)
	}
}
