package main

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
)

// benchDaemon is a daemon in this process on the two-teams machine (4
// devices) with real shims and processes, serving its API on a socket.
type benchDaemon struct {
	c    *live.Controller
	dir  string
	sock string
	be   *local.Backend
	stop func()
}

func newBenchDaemon(b *testing.B) *benchDaemon {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(docCLIEnv, "1")                    // the shims this test binary starts act as allot
	dir, err := os.MkdirTemp("", "allot-bench") // short: a socket path has a length limit
	if err != nil {
		b.Fatal(err)
	}
	ld, err := liveconf.Load(filepath.Join("..", "..", "scenarios", "live", "two-teams.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := ld.Config
	store, err := live.OpenStore(filepath.Join(dir, "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	be := &local.Backend{Dir: dir, Shim: []string{exe, "live", "shim"}}
	c, err := live.New(cfg, store, be, live.SystemClock{})
	if err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(dir, "allot.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	srv := &live.Server{C: c, Logs: be.LogPaths, Access: &live.Access{Self: os.Getuid()}}
	stop := make(chan struct{})
	done := make(chan struct{}, 2)
	go func() { _ = srv.Serve(l); done <- struct{}{} }()
	go func() { _ = c.Loop(stop, 5*time.Millisecond); done <- struct{}{} }()
	d := &benchDaemon{c: c, dir: dir, sock: sock, be: be}
	d.stop = func() {
		close(stop)
		l.Close()
		<-done
		<-done
		local.KillRuns(dir)
		store.Close()
		// Killed runs' shims still write their ends for a moment.
		for i := 0; i < 50 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		os.RemoveAll(dir)
	}
	return d
}

func (d *benchDaemon) submit(b *testing.B, cl *live.Client, acc int, command ...string) string {
	req := live.Request{Team: "research", PriorityClass: "low", Accelerators: acc, Command: command, Dir: d.dir}
	var out struct{ ID string }
	if err := cl.Do("POST", "/v1/jobs", &req, &out); err != nil {
		b.Fatal(err)
	}
	return out.ID
}

// BenchmarkLiveSubmitToProcessStart is issue 19's scheduling latency: from
// a submission through the API of an idle daemon to its process running
// (target under 50 ms). The job writes the time it started.
func BenchmarkLiveSubmitToProcessStart(b *testing.B) {
	d := newBenchDaemon(b)
	defer d.stop()
	cl := live.NewClient(d.sock)
	var lat []float64
	for b.Loop() {
		t0 := time.Now()
		id := d.submit(b, cl, 1, "sh", "-c", `date +%s%N > "$ALLOT_CHECKPOINT_DIR/started"`)
		path := filepath.Join(d.be.CheckpointDir(id), "started")
		deadline := t0.Add(10 * time.Second)
		for {
			data, err := os.ReadFile(path)
			if ns, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && perr == nil {
				lat = append(lat, float64(time.Unix(0, ns).Sub(t0))/1e6)
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("job %s did not start within 10s", id)
			}
			time.Sleep(time.Millisecond)
		}
		for { // idle again before the next one
			j, err := d.c.Job(id)
			if err != nil {
				b.Fatal(err)
			}
			if j.Final() {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("job %s did not end within 10s", id)
			}
			time.Sleep(time.Millisecond)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "ms-to-start-p50")
	b.ReportMetric(lat[len(lat)*9/10], "ms-to-start-p90")
}

// BenchmarkLive1000Submits is issue 19's throughput: 1,000 submissions
// through the API, one after another (target under 10 s), each a
// whole-machine job, so the first runs and the other 999 wait in order.
func BenchmarkLive1000Submits(b *testing.B) {
	var took []float64
	for b.Loop() {
		b.StopTimer()
		d := newBenchDaemon(b)
		cl := live.NewClient(d.sock)
		b.StartTimer()
		t0 := time.Now()
		for range 1000 {
			d.submit(b, cl, 4, "sleep", "60")
		}
		took = append(took, time.Since(t0).Seconds())
		b.StopTimer()
		vs := d.c.Jobs(-1)
		for i, v := range vs {
			want := live.StatePending
			if i == 0 {
				want = live.StateRunning
			}
			if v.ID != strconv.Itoa(i+1) || v.State != want {
				b.Fatalf("job %d: id %s %s, want %d %s", i+1, v.ID, v.State, i+1, want)
			}
		}
		if len(vs) != 1000 {
			b.Fatalf("%d jobs, want 1000", len(vs))
		}
		d.stop()
		b.StartTimer()
	}
	slices.Sort(took)
	b.ReportMetric(took[len(took)/2], "s/1000-submits-p50")
}
