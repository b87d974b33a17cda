package workload

import "sync"

// Running the collection of records and the making of jobs on goroutines of
// their own lets a simulation use a second core without sharing any state
// with it: records and jobs pass through in batches, in order, as copies.

const asyncBatch = 4096

// AsyncSink passes records to another sink on its own goroutine, in the
// order they came. The records are copied, so the sender may reuse them
// as soon as a call returns. End waits until everything before it is
// delivered, then calls the sink's End.
type AsyncSink struct {
	sink Sink
	cur  *recordBatch
	full chan *recordBatch
	free chan *recordBatch
	done chan struct{}
	once sync.Once
}

type recordBatch struct {
	jobFlag []bool // per record: a job record (else an event)
	events  []Event
	jobs    []JobRecord
	strs    []string // backing store for the jobs' string slices
}

// NewAsyncSink starts the goroutine; Stop ends it without calling End.
func NewAsyncSink(sink Sink) *AsyncSink {
	a := &AsyncSink{sink: sink, full: make(chan *recordBatch, 4), free: make(chan *recordBatch, 4), done: make(chan struct{})}
	a.cur = new(recordBatch)
	go a.deliver()
	return a
}

func (a *AsyncSink) deliver() {
	defer close(a.done)
	for b := range a.full {
		ei, ji := 0, 0
		for _, isJob := range b.jobFlag {
			if isJob {
				a.sink.Job(&b.jobs[ji])
				ji++
			} else {
				a.sink.Event(&b.events[ei])
				ei++
			}
		}
		clear(b.jobs) // drop references to strings before reuse
		clear(b.strs)
		b.jobFlag, b.events, b.jobs, b.strs = b.jobFlag[:0], b.events[:0], b.jobs[:0], b.strs[:0]
		select {
		case a.free <- b:
		default:
		}
	}
}

// Begin is passed through at once, on the caller's goroutine.
func (a *AsyncSink) Begin(info *RunInfo) error { return a.sink.Begin(info) }

func (a *AsyncSink) Event(e *Event) {
	a.cur.jobFlag = append(a.cur.jobFlag, false)
	a.cur.events = append(a.cur.events, *e)
	a.flushIfFull()
}

func (a *AsyncSink) Job(r *JobRecord) {
	b := a.cur
	b.jobFlag = append(b.jobFlag, true)
	b.jobs = append(b.jobs, *r)
	c := &b.jobs[len(b.jobs)-1]
	c.InstanceTypes = b.keep(r.InstanceTypes)
	c.Extra = b.keep(r.Extra)
	a.flushIfFull()
}

// keep copies s into the batch's store. A store that grows leaves earlier
// slices on its old array, which stays as it was.
func (b *recordBatch) keep(s []string) []string {
	if s == nil {
		return nil
	}
	b.strs = append(b.strs, s...)
	return b.strs[len(b.strs)-len(s) : len(b.strs) : len(b.strs)]
}

func (a *AsyncSink) flushIfFull() {
	if len(a.cur.jobFlag) >= asyncBatch {
		a.flush()
	}
}

func (a *AsyncSink) flush() {
	if len(a.cur.jobFlag) == 0 {
		return
	}
	a.full <- a.cur
	select {
	case a.cur = <-a.free:
	default:
		a.cur = new(recordBatch)
	}
}

// End delivers what is left, waits for it, and ends the sink.
func (a *AsyncSink) End(end *RunEnd) error {
	a.flush()
	a.Stop()
	return a.sink.End(end)
}

// Stop waits for the records sent so far and ends the goroutine. It is
// safe to call more than once, and after End.
func (a *AsyncSink) Stop() {
	a.once.Do(func() { close(a.full) })
	<-a.done
}
