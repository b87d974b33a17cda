package scenarios

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/allot-sim/allot/hardware"
)

func (b *builder) fleet() error {
	fy, s := &b.f.Fleet, b.s
	s.Catalog = hardware.Builtin()
	for i, it := range fy.InstanceTypes {
		where := item("fleet.instance_types", it.Name, i)
		t := &hardware.InstanceType{Name: it.Name, Accelerator: it.Accelerator, Resource: it.Resource, Custom: true, Speed: 1, Source: "custom type from " + filepath.Base(b.file)}
		if it.Name == "" {
			return b.errAt(where+".name", "required")
		}
		if _, dup := s.Catalog.Lookup(it.Name); dup {
			return b.errAt(where+".name", "%q is already a type (built-in or declared above)", it.Name)
		}
		if it.Accelerators == nil {
			return b.errAt(where+".accelerators", "required (accelerators per node, 0 for CPU-only)")
		}
		if *it.Accelerators < 0 {
			return b.errAt(where+".accelerators", "must be >= 0, got %d", *it.Accelerators)
		}
		t.Accelerators = *it.Accelerators
		if t.Accelerator == "" {
			t.Accelerator = "generic"
		}
		if t.Resource == "" {
			t.Resource = hardware.DefaultResource(t.Accelerator)
		}
		if it.VCPUs != nil {
			t.VCPUs = *it.VCPUs
		}
		if t.Accelerators == 0 && t.VCPUs <= 0 {
			return b.errAt(where+".accelerators", "0 accelerators needs vcpus > 0 (a CPU-only type)")
		}
		if it.MemoryGiB != nil {
			t.MemoryGiB = *it.MemoryGiB
		}
		if it.AccelMemoryGiB != nil {
			t.AccelMemoryGiB = *it.AccelMemoryGiB
		}
		if it.PricePerHour != nil {
			if *it.PricePerHour < 0 {
				return b.errAt(where+".price_per_hour", "must be >= 0, got %g", *it.PricePerHour)
			}
			t.PricePerHour, t.Priced = *it.PricePerHour, true
		}
		if it.Speed.Set {
			if it.Speed.ByClass != nil {
				for _, class := range slices.Sorted(maps.Keys(it.Speed.ByClass)) {
					if v := it.Speed.ByClass[class]; !(v > 0) {
						return b.errAt(where+".speed."+class, "must be > 0, got %g", v)
					}
				}
				t.SpeedByClass = it.Speed.ByClass
				if d, ok := it.Speed.ByClass["default"]; ok {
					t.Speed = d // classes the map does not name
				}
			} else {
				if !(it.Speed.Default > 0) {
					return b.errAt(where+".speed", "must be > 0, got %g", it.Speed.Default)
				}
				t.Speed = it.Speed.Default
			}
		}
		if err := s.Catalog.Add(t); err != nil {
			return b.wrapAt(where, err, "%v", err)
		}
	}
	if len(fy.Nodes) == 0 {
		return b.errAt("fleet.nodes", "required, at least one group of nodes")
	}
	for i, g := range fy.Nodes {
		where := fmt.Sprintf("fleet.nodes[%d]", i)
		if g.Type == "" {
			return b.errAt(where+".type", "required: an instance type (see `allot catalog`)")
		}
		if _, ok := s.Catalog.Lookup(g.Type); !ok {
			return b.errAt(where+".type", "unknown instance type %q (see `allot catalog`, or declare it under fleet.instance_types)", g.Type)
		}
		if g.Count == nil {
			return b.errAt(where+".count", "required: a positive number of nodes")
		}
		if *g.Count <= 0 {
			return b.errAt(where+".count", "must be a positive number of nodes, got %d", *g.Count)
		}
		ng := hardware.NodeGroup{Type: g.Type, Count: *g.Count}
		if g.Failures != nil {
			m, err := b.failures(where+".failures", g.Failures)
			if err != nil {
				return err
			}
			ng.Failures = &m
		}
		s.Fleet.Groups = append(s.Fleet.Groups, ng)
	}
	s.Fleet.Catalog = s.Catalog
	if fl := fy.Failures; fl != nil {
		m, err := b.failures("fleet.failures", fl)
		if err != nil {
			return err
		}
		s.Fleet.Failures = m
	}
	return nil
}

// failures reads a failure model: the fleet's, or a node group's own.
func (b *builder) failures(where string, fl *failuresYAML) (hardware.Failures, error) {
	if !fl.NodeMTBF.Set {
		return hardware.Failures{}, b.errAt(where+".node_mtbf", "required with failures (e.g. 2000h)")
	}
	if fl.NodeMTBF.Seconds <= 0 {
		return hardware.Failures{}, b.errAt(where+".node_mtbf", "must be > 0")
	}
	if !fl.RepairTime.Set {
		return hardware.Failures{}, b.errAt(where+".repair_time", "required with failures (e.g. 6h)")
	}
	return hardware.Failures{MTBF: fl.NodeMTBF.Seconds, Repair: fl.RepairTime.Seconds}, nil
}
