package workload

// Run records: what a run (simulated or live) emits, so that a report can
// be made from either. A run sends Begin, then Events and Jobs as they
// happen, then End.

// RunInfo describes a run before it starts.
type RunInfo struct {
	Scenario string
	Policy   string
	Seed     uint64
	Warmup   float64
	Horizon  float64
	Bucket   float64
	Types    []TypeInfo
	Teams    []TeamInfo
	// PriorityClasses names class indexes; index 0 is "" (no class).
	PriorityClasses []string
	ExtraColumns    []string
	Live            bool
}

// TypeInfo is an instance type of the run's fleet.
type TypeInfo struct {
	Name         string
	Accelerators int // per node
	Nodes        int // at the start
	PricePerHour float64
	Priced       bool
}

// TeamInfo is a team with its quota in accelerators per type (by Types index).
type TeamInfo struct {
	Name   string
	Quota  []float64
	Weight float64
}

// EventKind says what happened.
type EventKind uint8

// Event kinds.
const (
	EvSubmit   EventKind = iota // a job entered the queue
	EvStart                     // a job took its nodes
	EvPreempt                   // a running job was told to stop for another
	EvStop                      // a job gave its nodes back
	EvNodeDown                  // a node failed
	EvNodeUp                    // a node was repaired
	EvCapacity                  // nodes arrived (Nodes > 0) or left
	EvQuota                     // a team's quota changed
)

// Stop reasons.
const (
	StopCompleted = "completed"
	StopPreempted = "preempted"
	StopFailed    = "node_failure"
	StopRemoved   = "node_removed"
)

// Event is one state change. Times are seconds from the start of the run.
type Event struct {
	Time  float64
	Kind  EventKind
	Job   int64 // job sequence number
	Team  int32
	Class int32 // priority class index
	Type  int32 // instance type index
	// Held is the accelerators the job holds (whole nodes for gangs);
	// Requested is what it asked for.
	Held, Requested float64
	Reason          string
	// EvStop: the run segment [RunStart, Time] held the nodes; useful work
	// ran over [ProgressStart, ProgressEnd] and was kept up to KeptEnd.
	RunStart, ProgressStart, ProgressEnd, KeptEnd float64
	Requeued                                      bool
	// Checkpoint is the job's checkpoint interval (EvStop).
	Checkpoint float64
	// EvCapacity: node delta; EvNodeDown/Up: 1.
	Nodes int
	// EvQuota: the new quota in accelerators.
	Quota float64
}

// Final states of a job.
const (
	StateCompleted = "completed"
	StateFailed    = "failed"
	StateRunning   = "running"
	StatePending   = "pending"
	StateCancelled = "cancelled"
)

// JobRecord is what became of one job, sent once it is done or at the end.
type JobRecord struct {
	Seq           int64
	ID            string
	Team          int32
	Class         int32
	User          string
	JobClass      string
	Submit        float64
	FirstStart    float64 // NaN if it never started
	End           float64 // NaN if it did not end
	Wait          float64 // total time pending, up to its last start (or the end of the run)
	Accelerators  float64
	Held          float64
	Duration      float64
	InstanceTypes []string // types it ran on, in order
	Preemptions   int
	Failures      int
	LostAccS      float64 // accelerator-seconds of work thrown away
	KeptAccS      float64 // accelerator-seconds of work kept (goodput)
	State         string
	OrigStart     float64
	OrigEnd       float64
	OrigStatus    string
	Extra         []string
}

// RunEnd closes a run.
type RunEnd struct {
	EndTime        float64
	Events         int64
	Cycles         int64
	WallSeconds    float64
	SkippedInvalid int
}

// Sink receives a run's records. Pointers are valid only during the call.
type Sink interface {
	Begin(info *RunInfo) error
	Event(e *Event)
	Job(r *JobRecord)
	End(end *RunEnd) error
}

// Tee sends records to several sinks.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Begin(info *RunInfo) error {
	for _, s := range t {
		if err := s.Begin(info); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Event(e *Event) {
	for _, s := range t {
		s.Event(e)
	}
}

func (t tee) Job(r *JobRecord) {
	for _, s := range t {
		s.Job(r)
	}
}

func (t tee) End(end *RunEnd) error {
	var first error
	for _, s := range t {
		if err := s.End(end); err != nil && first == nil {
			first = err
		}
	}
	return first
}
