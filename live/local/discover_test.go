package local

import (
	"slices"
	"strings"
	"testing"
)

func TestParseNvidiaSMIReadsIndexNameAndMemory(t *testing.T) {
	out := "0, NVIDIA H100 80GB HBM3, 81559 MiB\n1, NVIDIA H100 80GB HBM3, 81559 MiB\n\n"
	got, err := ParseNvidiaSMI(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []GPU{{"0", "NVIDIA H100 80GB HBM3", 81559}, {"1", "NVIDIA H100 80GB HBM3", 81559}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseNvidiaSMIRejectsALineItCannotRead(t *testing.T) {
	for _, bad := range []string{"0, A100\n", "x, A100, 40960 MiB\n", "0, A100, [N/A]\n"} {
		if _, err := ParseNvidiaSMI(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// neuron-ls gives each device's NeuronCores; an older neuron-ls without
// neuroncore_ids has them numbered on from the previous device's.
func TestParseNeuronLSReadsDevicesAndTheirNeuronCores(t *testing.T) {
	out := `[{"neuron_device": 0, "nc_count": 2, "neuroncore_ids": [0, 1], "memory_size": 34359738368, "instance_type": "trn1.32xlarge"},
	         {"neuron_device": 1, "nc_count": 2, "memory_size": 34359738368, "neuron_processes": []}]`
	got, err := ParseNeuronLS([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Index != 0 || !slices.Equal(got[0].Cores, []int{0, 1}) || got[0].InstanceType != "trn1.32xlarge" ||
		got[1].Index != 1 || !slices.Equal(got[1].Cores, []int{2, 3}) || got[1].MemoryBytes != 34359738368 {
		t.Errorf("got %+v", got)
	}
}

func TestParseNeuronLSRejectsADeviceItCannotRead(t *testing.T) {
	for bad, want := range map[string]string{
		`{"neuron_device": 0}`:   "cannot unmarshal",
		`[{"nc_count": 2}]`:      "device [0]: no neuron_device",
		`[{"neuron_device": 0}]`: "device [0]: nc_count missing",
		`[{"neuron_device": 0, "nc_count": 2, "neuroncore_ids": [0]}]`: "1 neuroncore_ids for nc_count 2",
	} {
		if _, err := ParseNeuronLS([]byte(bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", bad, err, want)
		}
	}
}
