package policies

// An engine is how a policy kind queues and admits jobs: fifo and priority
// (one queue, backfill, reservations), fairshare (AWS Batch shares) and
// quota (Kueue's cycle). The core's shared parts (the quota tree, nodes,
// the victim index, protections) serve every engine; an engine keeps its
// own queue and state and decides in schedule.
type engine interface {
	push(w *Workload)
	remove(w *Workload)
	pending() int
	// schedule runs the engine at now until nothing more changes.
	schedule(now float64)
	// admitted and released follow the core's commit and release.
	admitted(w *Workload, now float64)
	released(w *Workload, now float64)
	// oneQueue says whether a job waits behind earlier jobs of one queue
	// (fifo, priority, fairshare) rather than a team's head (quota).
	oneQueue() bool
}

func newEngine(c *Core, kind Kind) (engine, bool) {
	switch kind {
	case KindFIFO, KindPriority:
		return fifoEngine{c, newFIFO(kind == KindFIFO)}, true
	case KindFairShare:
		return batchEngine{c, newBatch(c.m, c)}, true
	case KindQuota, "":
		return quotaEngine{c}, true
	}
	return nil, false
}

// fifoEngine: fifo and priority (fifo.go).
type fifoEngine struct {
	c *Core
	s *fifoState
}

func (e fifoEngine) push(w *Workload)                  { e.s.push(w) }
func (e fifoEngine) remove(w *Workload)                { e.s.remove(w) }
func (e fifoEngine) pending() int                      { return e.s.len() }
func (e fifoEngine) schedule(now float64)              { e.c.fifoPass(e.s, now) }
func (e fifoEngine) admitted(w *Workload, now float64) {}
func (e fifoEngine) released(w *Workload, now float64) {}
func (e fifoEngine) oneQueue() bool                    { return true }

// batchEngine: fairshare, AWS Batch's share scheduling (batch.go).
type batchEngine struct {
	c *Core
	s *batchState
}

func (e batchEngine) push(w *Workload)                  { e.s.push(w) }
func (e batchEngine) remove(w *Workload)                { e.s.remove(w) }
func (e batchEngine) pending() int                      { return e.s.pending }
func (e batchEngine) schedule(now float64)              { e.c.batchPass(e.s, now) }
func (e batchEngine) admitted(w *Workload, now float64) { e.s.admit(w, now) }
func (e batchEngine) released(w *Workload, now float64) { e.s.release(w, now) }
func (e batchEngine) oneQueue() bool                    { return true }

// quotaEngine: Kueue's cycle over the teams' queues (cycle.go).
type quotaEngine struct{ c *Core }

func (e quotaEngine) push(w *Workload) {
	c := e.c
	c.queues[w.Queue].push(w, c.m.Queues[w.Queue].FirstCome)
	c.withPending[w.Queue>>6] |= 1 << (uint(w.Queue) & 63)
}

func (e quotaEngine) remove(w *Workload) {
	c := e.c
	c.queues[w.Queue].remove(w, c.m.Queues[w.Queue].FirstCome)
	if c.queues[w.Queue].pending == 0 {
		c.withPending[w.Queue>>6] &^= 1 << (uint(w.Queue) & 63)
	}
}

func (e quotaEngine) pending() int {
	n := 0
	for i := range e.c.queues {
		n += e.c.queues[i].pending
	}
	return n
}

func (e quotaEngine) schedule(now float64) {
	for e.c.quotaCycle(now) {
	}
}

func (e quotaEngine) admitted(w *Workload, now float64) {}
func (e quotaEngine) released(w *Workload, now float64) {}
func (e quotaEngine) oneQueue() bool                    { return false }
