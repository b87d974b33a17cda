// Package forecast says when waiting jobs will start: it runs the
// scheduling core forward from a present (what runs, what waits) over many
// sampled futures (remaining runtimes drawn from what was seen to
// complete, later arrivals at the recent rates) and reads each pending
// job's start from them. Its backtest measures how right it was on a
// simulated run, against the queue-position baseline.
package forecast
