package workload

import (
	"errors"
	"sync"
)

// PrefetchSource reads another source ahead on its own goroutine, in
// batches, so that making jobs (a synthetic generator's sampling) overlaps
// the simulation. Jobs and the error that ends the stream come in the same
// order as from the source itself. Use it for sources that own nothing a
// job shares with a later one, like the synthetic generator.
type PrefetchSource struct {
	src  Source
	full chan []Job
	free chan []Job
	stop chan struct{}
	done chan struct{}
	err  error // the source's last error; read after full is closed
	cur  []Job
	pos  int
	once sync.Once
}

// NewPrefetchSource starts reading src.
func NewPrefetchSource(src Source) *PrefetchSource {
	p := &PrefetchSource{src: src, full: make(chan []Job, 2), free: make(chan []Job, 3),
		stop: make(chan struct{}), done: make(chan struct{})}
	go p.read()
	return p
}

func (p *PrefetchSource) read() {
	defer close(p.done)
	defer close(p.full)
	for {
		var b []Job
		select {
		case b = <-p.free:
			clear(b[:cap(b)]) // drop the old jobs' strings here, not on the simulating goroutine
		default:
			b = make([]Job, 0, asyncBatch)
		}
		var err error
		for len(b) < cap(b) {
			var j Job
			if j, err = p.src.Next(); err != nil {
				break
			}
			b = append(b, j)
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

// Next returns the next job, or the source's error once its jobs are read.
func (p *PrefetchSource) Next() (Job, error) {
	for p.pos >= len(p.cur) {
		if p.cur != nil {
			select {
			case p.free <- p.cur[:0]:
			default:
			}
		}
		b, ok := <-p.full
		if !ok {
			p.cur, p.pos = nil, 0
			if p.err == nil {
				return Job{}, errors.New("prefetch: read after close")
			}
			return Job{}, p.err
		}
		p.cur, p.pos = b, 0
	}
	p.pos++
	return p.cur[p.pos-1], nil
}

// ExtraColumns is the source's.
func (p *PrefetchSource) ExtraColumns() []string { return p.src.ExtraColumns() }

// Close stops the reader and closes the source.
func (p *PrefetchSource) Close() error {
	p.once.Do(func() { close(p.stop) })
	for range p.full { // let a blocked send finish
	}
	<-p.done
	return p.src.Close()
}

var _ Source = (*PrefetchSource)(nil)
