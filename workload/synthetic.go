package workload

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// Arrival is a Poisson arrival process, optionally modulated by a daily
// (24 hourly factors) and weekly (7 daily factors) rate profile.
type Arrival struct {
	RatePerHour float64
	Hourly      []float64
	Weekly      []float64
}

func (a Arrival) factor(t float64) float64 {
	f := 1.0
	if len(a.Hourly) == 24 {
		f *= a.Hourly[int(math.Mod(t/3600, 24))]
	}
	if len(a.Weekly) == 7 {
		f *= a.Weekly[int(math.Mod(t/86400, 7))]
	}
	return f
}

func maxOf(xs []float64) float64 {
	m := 1.0
	if len(xs) > 0 {
		m = 0
		for _, x := range xs {
			m = math.Max(m, x)
		}
	}
	return m
}

// Class is one stream of similar jobs.
type Class struct {
	Name               string
	Team               string
	PriorityClass      string
	User               string
	Arrival            Arrival
	Duration           Dist
	Accelerators       Choices
	VCPUs              float64
	MemoryGiB          float64
	InstanceTypes      []string
	CheckpointInterval float64
	Resource           string
}

// Synthetic is a generated workload: arrivals stop at Until (seconds) or
// after Count jobs, whichever is set.
type Synthetic struct {
	Until   float64
	Count   int
	Classes []Class
}

// MeanDemand is the offered load in accelerators (arrival rate × mean size ×
// mean duration), summed over classes, ignoring profiles' shape.
func (s *Synthetic) MeanDemand() float64 {
	d := 0.0
	for i := range s.Classes {
		c := &s.Classes[i]
		d += c.Arrival.RatePerHour / 3600 * c.Accelerators.MeanValue() * c.Duration.MeanValue()
	}
	return d
}

type classStream struct {
	c    *Class
	idx  int
	rng  *rand.Rand
	next float64
	n    int
	max  float64 // thinning bound of the rate, per second
}

func (cs *classStream) advance() {
	if cs.max <= 0 {
		cs.next = math.Inf(1)
		return
	}
	t := cs.next
	for {
		t += cs.rng.ExpFloat64() / cs.max
		if cs.rng.Float64()*cs.max <= cs.c.Arrival.RatePerHour/3600*cs.c.Arrival.factor(t) {
			cs.next = t
			return
		}
	}
}

type streamHeap []*classStream

func (h streamHeap) Len() int { return len(h) }
func (h streamHeap) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].idx < h[j].idx
}
func (h streamHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *streamHeap) Push(x any)   { *h = append(*h, x.(*classStream)) }
func (h *streamHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type generator struct {
	s       *Synthetic
	h       streamHeap
	emitted int
	idBuf   []byte // a job's ID is built here: one allocation, the string's
}

// StreamSeed derives a deterministic random stream for a named purpose.
func StreamSeed(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Source returns the generated jobs in arrival order for a seed.
func (s *Synthetic) Source(seed uint64) Source {
	g := &generator{s: s}
	for i := range s.Classes {
		c := &s.Classes[i]
		cs := &classStream{c: c, idx: i, rng: StreamSeed(seed, "class/"+strconv.Itoa(i)+"/"+c.Name),
			max: c.Arrival.RatePerHour / 3600 * maxOf(c.Arrival.Hourly) * maxOf(c.Arrival.Weekly)}
		cs.advance()
		g.h = append(g.h, cs)
	}
	heap.Init(&g.h)
	return g
}

func (g *generator) Next() (Job, error) {
	if len(g.h) == 0 || (g.s.Count > 0 && g.emitted >= g.s.Count) {
		return Job{}, io.EOF
	}
	cs := g.h[0]
	t := cs.next
	if math.IsInf(t, 1) || (g.s.Until > 0 && t >= g.s.Until) {
		return Job{}, io.EOF
	}
	c := cs.c
	cs.n++
	g.idBuf = strconv.AppendInt(append(append(g.idBuf[:0], c.Name...), '-'), int64(cs.n), 10)
	j := Job{
		ID:                 string(g.idBuf),
		Submit:             t,
		Team:               c.Team,
		PriorityClass:      c.PriorityClass,
		User:               c.User,
		Accelerators:       c.Accelerators.Sample(cs.rng),
		VCPUs:              c.VCPUs,
		MemoryGiB:          c.MemoryGiB,
		Duration:           c.Duration.Sample(cs.rng),
		InstanceTypes:      c.InstanceTypes,
		CheckpointInterval: c.CheckpointInterval,
		Class:              c.Name,
		Resource:           c.Resource,
		OrigStart:          math.NaN(),
		OrigEnd:            math.NaN(),
	}
	cs.advance()
	heap.Fix(&g.h, 0)
	g.emitted++
	return j, nil
}

func (g *generator) ExtraColumns() []string { return nil }
func (g *generator) Close() error           { return nil }

// Validate checks a synthetic workload's classes.
func (s *Synthetic) Validate() error {
	if s.Until <= 0 && s.Count <= 0 {
		return fmt.Errorf("synthetic: one of until or count is required")
	}
	if len(s.Classes) == 0 {
		return fmt.Errorf("synthetic: at least one class is required")
	}
	for i := range s.Classes {
		c := &s.Classes[i]
		if c.Arrival.RatePerHour < 0 {
			return fmt.Errorf("class %s: arrival rate must be >= 0", c.Name)
		}
		if err := c.Duration.Validate(); err != nil {
			return fmt.Errorf("class %s: duration: %w", c.Name, err)
		}
	}
	return nil
}
