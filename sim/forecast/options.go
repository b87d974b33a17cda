package forecast

import (
	"runtime"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
)

// Options say how a forecast samples its futures.
type Options struct {
	Samples int     // sampled futures (default 100)
	Seed    uint64  // the same seed, the same forecast
	Workers int     // futures run at once (default GOMAXPROCS)
	Horizon float64 // how far ahead a future runs, seconds (default 7 days)
	// Window is how far back submissions count toward arrival rates
	// (default 6 hours).
	Window float64
	// Catalog gives instance types' speeds by name (nil: every type runs
	// at speed 1, and the seen runtimes are taken as they are).
	Catalog *hardware.Catalog
	// Preemption is the cost of stopping a job (grace, save, restore).
	Preemption sim.Preemption
}

const (
	defaultSamples = 100
	defaultHorizon = 7 * 24 * 3600
	defaultWindow  = 6 * 3600
)

func (o Options) withDefaults() Options {
	if o.Samples <= 0 {
		o.Samples = defaultSamples
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Horizon <= 0 {
		o.Horizon = defaultHorizon
	}
	if o.Window <= 0 {
		o.Window = defaultWindow
	}
	return o
}

// Forecaster forecasts with fixed options; live mode asks it through
// live.Forecaster.
type Forecaster struct{ Options Options }

// Forecast runs p forward under the model m.
func (f *Forecaster) Forecast(m *policies.Model, p *workload.Present) ([]workload.Forecast, error) {
	return Run(m, p, f.Options)
}
