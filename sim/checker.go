package sim

import (
	"fmt"
	"math"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// Checker is a sink that asserts the invariants every run must keep,
// independently of the policy core's own bookkeeping:
//
//   - capacity: the accelerators held on a type never exceed those installed;
//   - quota: a team never holds more than its quota plus its borrowing
//     limit, and what teams borrow on a type comes only from capacity no
//     quota covers or from quota its owners lend (lending limits);
//   - jobs: a job starts only when pending, stops only when running, and
//     never runs twice at once; every submitted job is accounted for;
//   - progress: a stopped run never keeps less than its last periodic
//     checkpoint, and never more than it ran;
//   - accelerator-seconds: what the collector integrates equals the sum of
//     held × time over every run segment.
//
// Violations are collected, not fatal, so a test can report them all.
type Checker struct {
	in        *Input
	nominal   [][]float64 // [team][flavor]
	borrowCap [][]float64 // [team][flavor] max held; +Inf = unlimited
	lendCap   [][]float64 // [team][flavor] max lent
	installed []float64
	held      [][]float64 // [flavor][team]
	running   map[int64]bool
	atEnd     map[int64]bool
	submitted map[int64]bool
	records   map[int64]string
	heldSecs  float64
	Errors    []string
}

// NewChecker returns a checker for a run's input.
func NewChecker(in *Input) *Checker {
	c := &Checker{in: in, running: map[int64]bool{}, atEnd: map[int64]bool{}, submitted: map[int64]bool{}, records: map[int64]string{}}
	m := in.Model
	nF := len(m.Flavors)
	for qi, q := range m.Queues {
		nom, bcap, lcap := make([]float64, nF), make([]float64, nF), make([]float64, nF)
		for f := range nom {
			bcap[f] = math.Inf(1)
			lcap[f] = math.Inf(1)
		}
		for _, fq := range q.Groups[0].Flavors {
			r := m.Flavors[fq.Flavor].AccelResource
			if r < 0 {
				continue
			}
			qq := fq.Quotas[r]
			nom[fq.Flavor] = float64(qq.Nominal) / float64(policies.Milli)
			if qq.HasBorrow {
				bcap[fq.Flavor] = nom[fq.Flavor] + float64(qq.BorrowLimit)/float64(policies.Milli)
			}
			if qq.HasLend {
				lcap[fq.Flavor] = float64(qq.LendLimit) / float64(policies.Milli)
			}
		}
		_ = qi
		c.nominal = append(c.nominal, nom)
		c.borrowCap = append(c.borrowCap, bcap)
		c.lendCap = append(c.lendCap, lcap)
	}
	c.installed = make([]float64, nF)
	c.held = make([][]float64, nF)
	for f, fs := range m.Flavors {
		c.installed[f] = float64(fs.Nodes) * float64(fs.NodeAccel) / float64(policies.Milli)
		c.held[f] = make([]float64, len(m.Queues))
	}
	return c
}

func (c *Checker) fail(format string, args ...any) {
	if len(c.Errors) < 50 {
		c.Errors = append(c.Errors, fmt.Sprintf(format, args...))
	}
}

func (c *Checker) Begin(*workload.RunInfo) error { return nil }

const eps = 1e-6

func (c *Checker) Event(e *workload.Event) {
	switch e.Kind {
	case workload.EvSubmit:
		if c.submitted[e.Job] {
			c.fail("t=%g job %d submitted twice", e.Time, e.Job)
		}
		c.submitted[e.Job] = true
	case workload.EvStart:
		if !c.submitted[e.Job] {
			c.fail("t=%g job %d started before it was submitted", e.Time, e.Job)
		}
		if c.running[e.Job] {
			c.fail("t=%g job %d started while already running", e.Time, e.Job)
		}
		c.running[e.Job] = true
		f, t := e.Type, e.Team
		c.held[f][t] += e.Held
		c.checkType(int(f), e.Time)
	case workload.EvStop:
		if !c.running[e.Job] {
			c.fail("t=%g job %d stopped while not running", e.Time, e.Job)
		}
		delete(c.running, e.Job)
		if e.Reason == "horizon" {
			c.atEnd[e.Job] = true
		}
		c.held[e.Type][e.Team] -= e.Held
		c.heldSecs += e.Held * (e.Time - e.RunStart)
		pw := math.Max(0, e.ProgressEnd-e.ProgressStart)
		kept := e.KeptEnd - e.ProgressStart
		if kept > pw+eps || kept < -eps {
			c.fail("t=%g job %d keeps %gs of progress out of %gs run", e.Time, e.Job, kept, pw)
		}
		if e.Checkpoint > 0 && kept+eps < math.Floor(pw/e.Checkpoint)*e.Checkpoint {
			c.fail("t=%g job %d lost checkpointed progress: kept %gs, checkpoints covered %gs", e.Time, e.Job, kept, math.Floor(pw/e.Checkpoint)*e.Checkpoint)
		}
	case workload.EvCapacity:
		c.installed[e.Type] += float64(e.Nodes) * float64(c.in.Model.Flavors[e.Type].NodeAccel) / float64(policies.Milli)
	case workload.EvQuota:
		c.nominal[e.Team][e.Type] = e.Quota
	}
}

// checkType checks capacity and quota on one type after a job started.
func (c *Checker) checkType(f int, t float64) {
	sum, borrowed, lendable, quota := 0.0, 0.0, 0.0, 0.0
	quotas := c.in.Model.Kind == policies.KindQuota || c.in.Model.Reservations
	for q, h := range c.held[f] {
		sum += h
		nom := c.nominal[q][f]
		quota += nom
		if quotas && h > c.borrowCap[q][f]+eps {
			c.fail("t=%g team %s holds %g on %s, above quota %g plus its borrowing limit (%g)", t, c.in.Teams[q].Name, h, c.in.Types[f].Name, nom, c.borrowCap[q][f])
		}
		borrowed += math.Max(0, h-nom)
		lendable += math.Min(math.Max(0, nom-h), c.lendCap[q][f])
	}
	if sum > c.installed[f]+eps {
		c.fail("t=%g %s: %g accelerators held, %g installed", t, c.in.Types[f].Name, sum, c.installed[f])
	}
	pool := math.Max(0, c.installed[f]-quota)
	if quotas && borrowed > pool+lendable+eps {
		c.fail("t=%g %s: teams borrow %g, but only %g is unreserved and %g lendable", t, c.in.Types[f].Name, borrowed, pool, lendable)
	}
}

func (c *Checker) Job(r *workload.JobRecord) {
	if prev, ok := c.records[r.Seq]; ok {
		c.fail("job %d reported twice (%s, then %s)", r.Seq, prev, r.State)
	}
	c.records[r.Seq] = r.State
	if (r.State == workload.StateRunning) != c.atEnd[r.Seq] {
		c.fail("job %d reported %s, but its last run ended=%v at the horizon", r.Seq, r.State, c.atEnd[r.Seq])
	}
}

func (c *Checker) End(end *workload.RunEnd) error {
	for j := range c.submitted {
		if _, ok := c.records[j]; !ok {
			c.fail("job %d was submitted but never reported: lost", j)
		}
	}
	return nil
}

// HeldSeconds is the sum of held × time over all run segments.
func (c *Checker) HeldSeconds() float64 { return c.heldSecs }
