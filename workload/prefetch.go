package workload

import (
	"errors"
	"sync"
)

// Prefetch reads a source ahead on its own goroutine, in batches, so that
// making jobs (a synthetic generator's sampling) overlaps the simulation.
// Each job is handed to prepare there too, which fills in a T beside it:
// the work a reader would otherwise do on its own goroutine as it takes
// the job in. Jobs and the error that ends the stream come in the same
// order as from the source itself. Use it for sources that own nothing a
// job shares with a later one, like the synthetic generator; prepare must
// read nothing the reader changes.
type Prefetch[T any] struct {
	src     Source
	prepare func(*Job, *T)
	full    chan *prefetchBatch[T]
	free    chan *prefetchBatch[T]
	stop    chan struct{}
	done    chan struct{}
	err     error // the source's last error; read after full is closed
	cur     *prefetchBatch[T]
	pos     int
	once    sync.Once
}

type prefetchBatch[T any] struct {
	jobs []Job
	prep []T
}

// NewPrefetch starts reading src; prepare may be nil.
func NewPrefetch[T any](src Source, prepare func(*Job, *T)) *Prefetch[T] {
	p := &Prefetch[T]{src: src, prepare: prepare, full: make(chan *prefetchBatch[T], 2),
		free: make(chan *prefetchBatch[T], 3), stop: make(chan struct{}), done: make(chan struct{})}
	go p.read()
	return p
}

func (p *Prefetch[T]) read() {
	defer close(p.done)
	defer close(p.full)
	for {
		var b *prefetchBatch[T]
		select {
		case b = <-p.free:
			clear(b.jobs[:cap(b.jobs)]) // drop the old jobs' strings here, not on the goroutine taking them
			clear(b.prep[:cap(b.prep)])
			b.jobs, b.prep = b.jobs[:0], b.prep[:0]
		default:
			b = &prefetchBatch[T]{jobs: make([]Job, 0, asyncBatch), prep: make([]T, 0, asyncBatch)}
		}
		var err error
		for len(b.jobs) < cap(b.jobs) {
			b.jobs = append(b.jobs, Job{})
			j := &b.jobs[len(b.jobs)-1]
			if *j, err = p.src.Next(); err != nil {
				b.jobs = b.jobs[:len(b.jobs)-1]
				break
			}
			var zero T
			b.prep = append(b.prep, zero)
			if p.prepare != nil {
				p.prepare(j, &b.prep[len(b.prep)-1])
			}
		}
		if err != nil {
			p.err = err
		}
		select {
		case p.full <- b:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Next returns the next job and what prepare made of it, or the source's
// error once its jobs are read. Both stay valid until the next call.
func (p *Prefetch[T]) Next() (*Job, *T, error) {
	for p.cur == nil || p.pos >= len(p.cur.jobs) {
		if p.cur != nil {
			select {
			case p.free <- p.cur:
			default:
			}
		}
		b, ok := <-p.full
		if !ok {
			p.cur, p.pos = nil, 0
			if p.err == nil {
				return nil, nil, errors.New("prefetch: read after close")
			}
			return nil, nil, p.err
		}
		p.cur, p.pos = b, 0
	}
	p.pos++
	return &p.cur.jobs[p.pos-1], &p.cur.prep[p.pos-1], nil
}

// ExtraColumns is the source's.
func (p *Prefetch[T]) ExtraColumns() []string { return p.src.ExtraColumns() }

// Stop ends the reader and waits for it, leaving the source open. It is
// safe to call more than once.
func (p *Prefetch[T]) Stop() {
	p.once.Do(func() { close(p.stop) })
	for range p.full { // let a blocked send finish
	}
	<-p.done
}
