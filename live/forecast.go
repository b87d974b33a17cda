package live

import (
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// Forecaster runs a present forward over sampled futures and says when
// each pending job is expected to start (sim/forecast's, which cmd wires
// in: live may not import sim). Its answers are in the order of
// p.Pending.
type Forecaster interface {
	Forecast(m *policies.Model, p *workload.Present) ([]workload.Forecast, error)
}

// ForecastRefresh is the longest a shown forecast may be old: the daemon
// and the controller on a cluster forecast again at most this often.
const ForecastRefresh = 30 // seconds
