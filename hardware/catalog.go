package hardware

import (
	"fmt"
	"sort"
)

// Resource names of accelerators, as Kubernetes names them.
const (
	ResourceNvidiaGPU = "nvidia.com/gpu"
	ResourceNeuron    = "aws.amazon.com/neuron"
)

// InstanceType is one kind of node.
type InstanceType struct {
	Name             string
	Accelerator      string  // kind label: a100-40g, h100, trainium1, ...
	AcceleratorModel string  // vendor model name, for people
	Accelerators     int     // per node
	AccelMemoryGiB   float64 // per accelerator
	Resource         string  // accelerator resource name
	VCPUs            float64
	MemoryGiB        float64
	// PricePerHour is the on-demand USD price of one node-hour; Priced
	// says whether one is known (a type without one is left out of cost).
	PricePerHour float64
	Priced       bool
	// Speed is the relative training throughput against an A100 (1.0).
	// SpeedByClass overrides it for named workload classes.
	Speed        float64
	SpeedByClass map[string]float64
	Source       string // where the figures come from
	Custom       bool   // declared by a scenario, not built in
}

// SpeedFor returns the speed factor for a workload class ("" = default).
func (t *InstanceType) SpeedFor(class string) float64 {
	if s, ok := t.SpeedByClass[class]; ok {
		return s
	}
	return t.Speed
}

// Catalog is a set of instance types by name.
type Catalog struct {
	types map[string]*InstanceType
	order []string
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{types: map[string]*InstanceType{}} }

// Builtin returns a fresh copy of the built-in catalog.
func Builtin() *Catalog {
	c := NewCatalog()
	for _, t := range builtinTypes() {
		t := t
		if err := c.Add(&t); err != nil {
			panic(err) // the built-in table is a constant; a clash is a programming error
		}
	}
	return c
}

// Add puts a type in the catalog; a name that is already there is an error.
func (c *Catalog) Add(t *InstanceType) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if _, ok := c.types[t.Name]; ok {
		return fmt.Errorf("instance type %q is already defined", t.Name)
	}
	c.types[t.Name] = t
	c.order = append(c.order, t.Name)
	return nil
}

// Lookup finds a type by name.
func (c *Catalog) Lookup(name string) (*InstanceType, bool) {
	t, ok := c.types[name]
	return t, ok
}

// Names lists the types in the order they were added.
func (c *Catalog) Names() []string { return append([]string(nil), c.order...) }

// SortedNames lists the type names alphabetically.
func (c *Catalog) SortedNames() []string {
	n := c.Names()
	sort.Strings(n)
	return n
}

// Validate checks that a type's figures make sense.
func (t *InstanceType) Validate() error {
	switch {
	case t.Name == "":
		return fmt.Errorf("instance type: name is required")
	case t.Accelerators < 0:
		return fmt.Errorf("instance type %s: accelerators must be >= 0, got %d", t.Name, t.Accelerators)
	case t.Accelerators == 0 && t.VCPUs <= 0:
		return fmt.Errorf("instance type %s: needs accelerators or vcpus", t.Name)
	case t.Speed <= 0:
		return fmt.Errorf("instance type %s: speed must be > 0, got %g", t.Name, t.Speed)
	case t.Priced && t.PricePerHour < 0:
		return fmt.Errorf("instance type %s: price_per_hour must be >= 0, got %g", t.Name, t.PricePerHour)
	}
	for class, s := range t.SpeedByClass {
		if s <= 0 {
			return fmt.Errorf("instance type %s: speed for class %q must be > 0, got %g", t.Name, class, s)
		}
	}
	return nil
}

// DefaultResource is the accelerator resource name of a kind label.
func DefaultResource(kind string) string {
	switch kind {
	case "trainium1", "trainium2", "inferentia", "inferentia2", "trainium":
		return ResourceNeuron
	}
	return ResourceNvidiaGPU
}
