package live

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Gauges is what the metrics' gauges are read from at each scrape: a
// controller, local or on Kubernetes.
type Gauges interface {
	Usage() []FlavorUsage
	JobCounts() map[string]map[string]int
	SetObserver(Observer)
}

// Metrics are live mode's Prometheus metrics, with the names and labels
// spec/cli.md fixes. Gauges are read from the controller at each scrape;
// counters and the wait histogram hear of decisions as they are made.
type Metrics struct {
	c           Gauges
	reg         *prometheus.Registry
	admissions  *prometheus.CounterVec
	preemptions *prometheus.CounterVec
	wait        *prometheus.HistogramVec

	allocated, borrowed, lent, quota, jobs, util *prometheus.Desc
}

// NewMetrics registers the metrics of c.
func NewMetrics(c Gauges) *Metrics {
	m := &Metrics{c: c, reg: prometheus.NewRegistry(),
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "allot_admissions_total",
			Help: "Runs started, by team."}, []string{"team"}),
		preemptions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "allot_preemptions_total",
			Help: "Runs preempted, by team and reason."}, []string{"team", "reason"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "allot_wait_seconds",
			Help: "Time from joining the queue to starting, by team.", Buckets: prometheus.ExponentialBuckets(0.01, 4, 12)}, []string{"team"}),
		allocated: prometheus.NewDesc("allot_team_allocated_accelerators", "Accelerators a team's running jobs hold.", []string{"team", "instance_type"}, nil),
		borrowed:  prometheus.NewDesc("allot_team_borrowed_accelerators", "Accelerators a team holds beyond its quota.", []string{"team", "instance_type"}, nil),
		lent:      prometheus.NewDesc("allot_team_lent_accelerators", "A team's idle quota that others hold.", []string{"team", "instance_type"}, nil),
		quota:     prometheus.NewDesc("allot_team_quota_accelerators", "A team's guaranteed accelerators.", []string{"team", "instance_type"}, nil),
		jobs:      prometheus.NewDesc("allot_jobs", "Jobs by team and state.", []string{"team", "state"}, nil),
		util:      prometheus.NewDesc("allot_utilization", "Share of the accelerators in use.", []string{"instance_type"}, nil),
	}
	m.reg.MustRegister(m.admissions, m.preemptions, m.wait, m)
	c.SetObserver(m)
	return m
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// Admitted counts a start and its wait.
func (m *Metrics) Admitted(team string, waitS float64) {
	m.admissions.WithLabelValues(team).Inc()
	m.wait.WithLabelValues(team).Observe(waitS)
}

// Preempted counts a preemption.
func (m *Metrics) Preempted(team, reason string) { m.preemptions.WithLabelValues(team, reason).Inc() }

// Describe sends the gauges' descriptions.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.allocated, m.borrowed, m.lent, m.quota, m.jobs, m.util} {
		ch <- d
	}
}

// Collect reads the gauges from the controller.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, f := range m.c.Usage() {
		for _, t := range f.Teams {
			for d, v := range map[*prometheus.Desc]int{m.allocated: t.Allocated, m.borrowed: t.Borrowed, m.lent: t.Lent, m.quota: t.Quota} {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), t.Team, f.InstanceType)
			}
		}
		u := 0.0
		if f.Devices > 0 {
			u = float64(f.InUse) / float64(f.Devices)
		}
		ch <- prometheus.MustNewConstMetric(m.util, prometheus.GaugeValue, u, f.InstanceType)
	}
	for team, byState := range m.c.JobCounts() {
		for _, st := range []string{StatePending, StateRunning, StatePreempted, StateSucceeded, StateFailed, StateCancelled} {
			ch <- prometheus.MustNewConstMetric(m.jobs, prometheus.GaugeValue, float64(byState[st]), team, st)
		}
	}
}
