package local

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/live"
)

// DiscoverFleet is this machine's devices as a fleet, for a policy file
// without one: its fleet section (Fleet) and its devices by instance
// type. No device at all is an error that says what each tool answered.
func DiscoverFleet(ctx context.Context) (string, map[string]live.FlavorDevices, error) {
	gpus, gerr := DiscoverNVIDIA(ctx)
	neurons, nerr := DiscoverNeuron(ctx)
	if len(gpus) == 0 && len(neurons) == 0 {
		return "", nil, fmt.Errorf("no accelerators found (%w; %w)", orNone(gerr, "nvidia-smi"), orNone(nerr, "neuron-ls"))
	}
	text, byType := Fleet(gpus, neurons)
	return text, byType, nil
}

func orNone(err error, tool string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s lists no devices", tool)
}

// Fleet is the fleet section of these devices: one node of one instance
// type per GPU model (nvidia-<model>, e.g. nvidia-h100-80gb-hbm3) and one
// for the Neuron devices (neuron-<family>, e.g. neuron-trn1, one
// accelerator per device), with their devices.
func Fleet(gpus []GPU, neurons []NeuronDevice) (string, map[string]live.FlavorDevices) {
	byType := map[string]live.FlavorDevices{}
	var order []string
	add := func(name string, kind, dev string, cores []int) {
		d, ok := byType[name]
		if !ok {
			order = append(order, name)
			d.Kind = kind
		}
		d.Devices = append(d.Devices, dev)
		if cores != nil {
			if d.Cores == nil {
				d.Cores = map[string][]int{}
			}
			d.Cores[dev] = cores
		}
		byType[name] = d
	}
	accel := map[string]string{}
	for _, g := range gpus {
		model := slug(strings.TrimPrefix(g.Name, "NVIDIA "))
		accel["nvidia-"+model] = model
		add("nvidia-"+model, live.KindNVIDIA, g.Index, nil)
	}
	for _, n := range neurons {
		family, chip := neuronFamily(n.InstanceType)
		accel["neuron-"+family] = chip
		add("neuron-"+family, live.KindNeuron, strconv.Itoa(n.Index), n.Cores)
	}
	var b strings.Builder
	b.WriteString("instance_types:\n")
	for _, n := range order {
		fmt.Fprintf(&b, "  - {name: %s, accelerator: %s, accelerators: %d}\n", n, accel[n], len(byType[n].Devices))
	}
	b.WriteString("nodes:\n")
	for _, n := range order {
		fmt.Fprintf(&b, "  - {type: %s, count: 1}\n", n)
	}
	return b.String(), byType
}

// slug lowers a model name to letters, digits and single dashes.
func slug(s string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(s)), "-")
}

// neuronFamily names a Neuron machine's family (trn1 of trn1.32xlarge)
// and its chip (trainium1); "device" and "neuron" when neuron-ls does not
// say which instance it runs on.
func neuronFamily(instanceType string) (family, chip string) {
	family, _, _ = strings.Cut(instanceType, ".")
	family = strings.TrimSuffix(family, "n") // trn1n is a trn1 with more network
	switch family {
	case "trn1":
		return family, "trainium1"
	case "trn2":
		return family, "trainium2"
	case "inf2":
		return family, "inferentia2"
	case "":
		return "device", "neuron"
	}
	return slug(family), "neuron"
}
