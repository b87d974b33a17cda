package hardware

import "testing"

func TestBuiltinCatalogHasTheAWSAcceleratedTypesWithSources(t *testing.T) {
	c := Builtin()
	for _, name := range []string{"p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge",
		"trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "g5.48xlarge", "g6e.48xlarge"} {
		ty, ok := c.Lookup(name)
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if ty.Source == "" || ty.Accelerators <= 0 || ty.VCPUs <= 0 || ty.MemoryGiB <= 0 || ty.AccelMemoryGiB <= 0 || ty.Speed <= 0 {
			t.Errorf("%s incomplete: %+v", name, ty)
		}
	}
}

func TestTypesWithoutPublishedPriceAreUnpriced(t *testing.T) {
	c := Builtin()
	var unpriced []string
	for _, n := range c.Names() {
		if ty, _ := c.Lookup(n); !ty.Priced {
			unpriced = append(unpriced, n)
		}
	}
	if len(unpriced) != 2 || unpriced[0] != "p5e.48xlarge" || unpriced[1] != "trn2.48xlarge" {
		t.Errorf("unpriced %v, want p5e.48xlarge and trn2.48xlarge", unpriced)
	}
	p5, _ := c.Lookup("p5.48xlarge")
	if p5.PricePerHour != 55.04 || p5.Accelerators != 8 || p5.Resource != ResourceNvidiaGPU {
		t.Errorf("p5: %+v", p5)
	}
	trn, _ := c.Lookup("trn1.32xlarge")
	if trn.Resource != ResourceNeuron || trn.Accelerators != 16 {
		t.Errorf("trn1: %+v", trn)
	}
}

func TestBuiltinReturnsIndependentCopies(t *testing.T) {
	a := Builtin()
	if err := a.Add(&InstanceType{Name: "x", Accelerators: 1, Speed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Builtin().Lookup("x"); ok {
		t.Error("adding to one catalog changed another")
	}
	if err := a.Add(&InstanceType{Name: "x", Accelerators: 1, Speed: 1}); err == nil {
		t.Error("a duplicate type was accepted")
	}
}

func TestSpeedPerWorkloadClassOverridesTheDefault(t *testing.T) {
	ty := InstanceType{Name: "x", Speed: 2, SpeedByClass: map[string]float64{"bert": 3}}
	if ty.SpeedFor("bert") != 3 || ty.SpeedFor("resnet") != 2 {
		t.Error("class speed")
	}
}
