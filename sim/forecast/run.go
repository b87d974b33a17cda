package forecast

import (
	"errors"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// Run forecasts every pending job of p under the model m: one answer per
// job of p.Pending, in its order.
func Run(m *policies.Model, p *workload.Present, o Options) ([]workload.Forecast, error) {
	return nil, errors.New("forecast: not yet")
}
