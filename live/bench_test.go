package live

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSubmit is one submission through the controller: validation,
// the durable write, a scheduling cycle and the write of its decisions
// (issue 19's throughput target: 1,000 submits in under 10 s). Jobs end
// as they start, so the queue stays short and the machine keeps turning.
func BenchmarkSubmit(b *testing.B) {
	s, err := OpenStore(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	be := newFake()
	clock := &fakeClock{time.Unix(1_700_000_000, 0)}
	c, err := New(twoTeams(), s, be, clock)
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{Team: "a", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, err := c.Submit(req, 1)
		if err != nil {
			b.Fatal(err)
		}
		be.exits[j.ID] = &Exit{}
		clock.t = clock.t.Add(time.Millisecond)
		if _, err := c.Tick(); err != nil {
			b.Fatal(err)
		}
	}
}
