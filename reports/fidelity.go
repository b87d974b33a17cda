package reports

// Fidelity compares a replay with what the traced system did: the
// original and simulated allocation over time, and the distributions of
// waits and completion (end − submit) times.
type Fidelity struct {
	Jobs int `json:"jobs_compared"`
	// Mean accelerators in use per bucket, originally and in the replay.
	OrigInUse []float64 `json:"-"`
	SimInUse  []float64 `json:"-"`
	Wait      Compared  `json:"wait_s"`
	Complete  Compared  `json:"completion_s"`
	// UtilizationMAE is the mean absolute error of the bucket utilisation.
	UtilizationMAE float64 `json:"utilization_mae"`
}

// Compared is one distribution, original against simulated.
type Compared struct {
	MeanErr float64   `json:"mean_relative_error"`
	KS      float64   `json:"ks_distance"`
	Orig    Quantiles `json:"original"`
	Sim     Quantiles `json:"simulated"`
}

// Quantiles summarise a distribution.
type Quantiles struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}
