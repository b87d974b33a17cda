package local

import (
	"slices"
	"testing"

	"github.com/allot-sim/allot/live"
)

// A machine's devices become one instance type per GPU model and one for
// its Neuron devices (trn1n counts as trn1), one node each.
func TestFleetIsOneTypePerGPUModelAndOneForNeuron(t *testing.T) {
	gpus := []GPU{{Index: "0", Name: "NVIDIA H100 80GB HBM3"}, {Index: "1", Name: "NVIDIA H100 80GB HBM3"}}
	neurons := []NeuronDevice{{Index: 0, Cores: []int{0, 1}, InstanceType: "trn1n.32xlarge"}}
	text, byType := Fleet(gpus, neurons)
	want := `instance_types:
  - {name: nvidia-h100-80gb-hbm3, accelerator: h100-80gb-hbm3, accelerators: 2}
  - {name: neuron-trn1, accelerator: trainium1, accelerators: 1}
nodes:
  - {type: nvidia-h100-80gb-hbm3, count: 1}
  - {type: neuron-trn1, count: 1}
`
	if text != want {
		t.Errorf("fleet:\n%s\nwant:\n%s", text, want)
	}
	if d := byType["nvidia-h100-80gb-hbm3"]; d.Kind != live.KindNVIDIA || !slices.Equal(d.Devices, []string{"0", "1"}) {
		t.Errorf("GPUs: %+v", d)
	}
	if d := byType["neuron-trn1"]; d.Kind != live.KindNeuron || !slices.Equal(d.Cores["0"], []int{0, 1}) {
		t.Errorf("Neuron devices: %+v", d)
	}
	if f, chip := neuronFamily(""); f != "device" || chip != "neuron" {
		t.Errorf("neuron-ls without an instance type: %s, %s", f, chip)
	}
}
