package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
)

// daemon is an `allot live serve` process: this test binary, acting as
// allot (docCLIEnv), so that its shims are too.
type daemon struct {
	t       *testing.T
	cfg     string
	dir     string
	sock    string
	cmd     *exec.Cmd
	log     bytes.Buffer
	root    string
	trainSh string
	env     []string // extra environment for the daemon
	args    []string // extra flags for live serve
}

func newDaemon(t *testing.T, cfg string, env ...string) *daemon {
	t.Helper()
	return newDaemonWith(t, cfg, nil, env...)
}

// newDaemonWith starts a daemon with extra live serve flags.
func newDaemonWith(t *testing.T, cfg string, args []string, env ...string) *daemon {
	t.Helper()
	// Skipped before MkdirTemp, so that a skip leaves no directory behind.
	skipDaemonShort(t)
	dir, err := os.MkdirTemp("", "allot-live") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	return startDaemon(t, cfg, dir, args, env...)
}

// skipDaemonShort skips a test that runs a live daemon under -short.
func skipDaemonShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a daemon")
	}
}

// newDaemonIn starts a daemon whose data directory is dir.
func newDaemonIn(t *testing.T, cfg, dir string) *daemon {
	t.Helper()
	return startDaemon(t, cfg, dir, nil)
}

func startDaemon(t *testing.T, cfg, dir string, args []string, env ...string) *daemon {
	t.Helper()
	skipDaemonShort(t)
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	d := &daemon{t: t, cfg: cfg, dir: dir, sock: filepath.Join(dir, "allot.sock"), root: root,
		trainSh: filepath.Join(root, "docs", "examples", "train.sh"), env: env, args: args}
	t.Cleanup(func() {
		d.kill9()
		local.KillRuns(dir)
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("data dir kept: %s\ndaemon log:\n%s", dir, d.log.String())
		}
	})
	d.start()
	return d
}

func (d *daemon) start() {
	d.t.Helper()
	bin, err := os.Executable()
	if err != nil {
		d.t.Fatal(err)
	}
	_ = os.Remove(d.sock)
	d.cmd = exec.Command(bin, "live", "serve", "--config", d.cfg, "--data-dir", d.dir, "--poll", "20ms")
	d.cmd.Args = append(d.cmd.Args, d.args...)
	d.cmd.Env = append(append(os.Environ(), docCLIEnv+"=1"), d.env...)
	d.cmd.Stdout, d.cmd.Stderr = &d.log, &d.log
	if err := d.cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	// Dialled, not stat'ed: a daemon killed before this one leaves its
	// socket file behind, refusing connections until this one listens.
	waitFor(d.t, "the daemon's socket", 20*time.Second, func() bool {
		c, err := net.Dial("unix", d.sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// kill9 kills the daemon as a crash would: no chance to clean up.
func (d *daemon) kill9() {
	if d.cmd != nil && d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
		_ = d.cmd.Wait()
		d.cmd = nil
	}
}

// cli runs an allot client command in process against the daemon.
func (d *daemon) cli(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(append([]string{args[0], "--socket", d.sock}, args[1:]...), &o, &e)
	return o.String(), e.String(), code
}

// submit submits the example training script with env settings.
func (d *daemon) submit(team, class string, acc int, env ...string) string {
	d.t.Helper()
	args := []string{"submit", "--team", team, "--priority", class, "--accelerators", strconv.Itoa(acc), "--socket", d.sock, "--", "env"}
	args = append(append(args, env...), "sh", d.trainSh)
	var o, e bytes.Buffer
	if code := run(args, &o, &e); code != 0 {
		d.t.Fatalf("submit: exit %d: %s", code, e.String())
	}
	return strings.TrimSpace(o.String())
}

func (d *daemon) jobs() map[string]live.View {
	d.t.Helper()
	out, errs, code := d.cli("jobs", "--all-teams", "--json")
	if code != 0 {
		d.t.Fatalf("jobs: exit %d: %s", code, errs)
	}
	var vs []live.View
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		d.t.Fatalf("jobs --json: %v\n%s", err, out)
	}
	m := map[string]live.View{}
	for _, v := range vs {
		m[v.ID] = v
	}
	return m
}

func (d *daemon) stdout(id string) string {
	data, _ := os.ReadFile(filepath.Join(d.dir, "jobs", id, "stdout"))
	return string(data)
}

func (d *daemon) waitState(id, state string, within time.Duration) live.View {
	d.t.Helper()
	var v live.View
	waitFor(d.t, "job "+id+" "+state, within, func() bool {
		v = d.jobs()[id]
		return v.State == state
	})
	return v
}

func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func liveConfigPath(t *testing.T) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "scenarios", "live", "two-teams.yaml"))
	return p
}

// A team that needs its quota back preempts the job borrowing it with
// SIGTERM; the job checkpoints, goes back to its queue, and when room
// returns it runs again with ALLOT_RESTART_COUNT=1 from the step it saved.
func TestReclaimPreemptsTheBorrowerWhichResumesFromItsCheckpoint(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	low := d.submit("research", "low", 4, "STEPS=80", "STEP_S=0.05", "EVERY=1000")
	if v := d.waitState(low, live.StateRunning, 10*time.Second); strings.Join(v.Devices, ",") != "0,1,2,3" {
		t.Errorf("research's 4-device job got devices %v, want all four (2 borrowed)", v.Devices)
	}
	waitFor(t, "the low job's step 3", 10*time.Second, func() bool { return strings.Contains(d.stdout(low), "step 3\n") })
	high := d.submit("prod", "high", 2, "STEPS=2", "STEP_S=0.05")

	v := d.waitState(low, live.StatePreempted, 15*time.Second)
	if v.Preemptions != 1 {
		t.Errorf("preemptions %d, want 1", v.Preemptions)
	}
	d.waitState(high, live.StateSucceeded, 15*time.Second)
	v = d.waitState(low, live.StateSucceeded, 20*time.Second)
	if v.Restarts != 1 || v.Preemptions != 1 || v.ExitCode == nil || *v.ExitCode != 0 {
		t.Errorf("low job ended with restarts %d, preemptions %d, exit %v; want 1, 1, 0", v.Restarts, v.Preemptions, v.ExitCode)
	}
	out := d.stdout(low)
	i := strings.Index(out, "SIGTERM at step ")
	if i < 0 {
		t.Fatalf("the low job never checkpointed on SIGTERM:\n%s", out)
	}
	saved, _ := strconv.Atoi(strings.TrimSuffix(strings.Fields(out[i+len("SIGTERM at step "):])[0], ":"))
	if saved < 3 {
		t.Errorf("checkpointed at step %d, want at least 3", saved)
	}
	if want := "restart 1 devices 0,1,2,3: resuming at step " + strconv.Itoa(saved) + "\n"; !strings.Contains(out, want) {
		t.Errorf("second run did not resume from step %d (want %q):\n%s", saved, want, out)
	}
	if !strings.Contains(out, "done at step 80") {
		t.Errorf("low job did not finish its 80 steps:\n%s", out)
	}
	desc, _, _ := d.cli("describe", low)
	if !strings.Contains(desc, "InCohortReclamation") {
		t.Errorf("describe does not give the preemption's reason:\n%s", desc)
	}
}

// A daemon killed with -9 while jobs run loses none of them: the shims
// keep the jobs running, a job that ends while the daemon is down has its
// exit recorded, and the restarted daemon re-adopts the rest without
// starting any job a second time. Jobs end when the test opens their gate,
// not after a time, so a slow machine cannot reorder the story.
func TestKilledDaemonLosesNoJobAndStartsNoneTwice(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	gates := t.TempDir()
	gated := func(team, gate string) string {
		out, errs, code := d.cli("submit", "--team", team, "--priority", "low", "--accelerators", "2", "--",
			"sh", "-c", `echo started; while [ ! -f "$0" ]; do sleep 0.02; done; echo done`, filepath.Join(gates, gate))
		if code != 0 {
			t.Fatalf("submit: %d %s", code, errs)
		}
		return strings.TrimSpace(out)
	}
	long := gated("research", "long")
	short := gated("prod", "short")
	queued := d.submit("prod", "low", 2, "STEPS=2", "STEP_S=0.05")
	d.waitState(long, live.StateRunning, 10*time.Second)
	d.waitState(short, live.StateRunning, 10*time.Second)
	if v := d.jobs()[queued]; v.State != live.StatePending {
		t.Fatalf("third job is %s, want pending (the machine is full)", v.State)
	}
	pidOf := func(id string) int {
		r, _ := local.ReadRun(filepath.Join(d.dir, "jobs", id, "run-1"))
		return r.Pid
	}
	waitFor(t, "both jobs' pids", 10*time.Second, func() bool { return pidOf(long) != 0 && pidOf(short) != 0 })
	longPid := pidOf(long)

	d.kill9()
	open := func(gate string) {
		if err := os.WriteFile(filepath.Join(gates, gate), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open("short")
	waitFor(t, "the short job to end while the daemon is down", 10*time.Second, func() bool {
		r, _ := local.ReadRun(filepath.Join(d.dir, "jobs", short, "run-1"))
		return r.Phase == "exited"
	})
	d.start()

	v := d.jobs()[long]
	if v.State != live.StateRunning || v.Restarts != 0 {
		t.Errorf("long job after restart: %s with %d restarts, want running (adopted) with 0", v.State, v.Restarts)
	}
	d.waitState(short, live.StateSucceeded, 10*time.Second)
	d.waitState(queued, live.StateSucceeded, 15*time.Second)
	open("long")
	d.waitState(long, live.StateSucceeded, 10*time.Second)
	if pidOf(long) != longPid {
		t.Errorf("long job's pid changed from %d to %d", longPid, pidOf(long))
	}
	for _, id := range []string{long, short} {
		if out := d.stdout(id); out != "started\ndone\n" {
			t.Errorf("job %s wrote %q, want one run, started and done", id, out)
		}
	}
	if n := strings.Count(d.stdout(queued), "resuming at step"); n != 1 {
		t.Errorf("job %s started %d times, want once", queued, n)
	}
	for _, id := range []string{long, short, queued} {
		if runs, _ := filepath.Glob(filepath.Join(d.dir, "jobs", id, "run-*")); len(runs) != 1 {
			t.Errorf("job %s has run directories %v, want one", id, runs)
		}
	}
	desc, _, _ := d.cli("describe", long)
	if !strings.Contains(desc, "adopted") {
		t.Errorf("describe does not say the long job was re-adopted:\n%s", desc)
	}
}

// A request the configuration cannot take is refused with a clear error
// and exit 2, and nothing is written: no job appears.
func TestBadRequestGetsAClearErrorAndChangesNothing(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--team", "nope", "--priority", "low", "--accelerators", "1"}, `unknown team "nope" (teams: research, prod)`},
		{[]string{"--team", "prod", "--priority", "urgent", "--accelerators", "1"}, `unknown priority class "urgent" (classes: high, low)`},
		{[]string{"--team", "prod", "--priority", "low", "--accelerators", "5"}, "5 accelerators requested, but this machine has 4"},
		{[]string{"--team", "prod", "--priority", "low", "--accelerators", "1", "--instance-type", "p5.48xlarge"}, `unknown instance type "p5.48xlarge"`},
	} {
		out, errs, code := d.cli(append(append([]string{"submit"}, c.args...), "--", "true")...)
		if code != exitBadInput || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("submit %v: exit %d, stdout %q, stderr %q; want exit 2, no id, and %q", c.args, code, out, errs, c.want)
		}
	}
	if jobs := d.jobs(); len(jobs) != 0 {
		t.Errorf("refused requests left jobs behind: %v", jobs)
	}
	if out, _, code := d.cli("top", "--once"); code != 0 || !strings.HasPrefix(out, "devices 0/4 in use (0%)") || !strings.Contains(out, "research  2      0") {
		t.Errorf("top --once after refusals: exit %d\n%s", code, out)
	}
	if _, errs, code := d.cli("cancel", "7"); code != exitBadInput || !strings.Contains(errs, `no job "7"`) {
		t.Errorf("cancel of an unknown job: exit %d, %q", code, errs)
	}
}

// logs -f prints a job's output as it comes and returns when the job ends.
func TestLogsFollowPrintsOutputUntilTheJobEnds(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	id := d.submit("prod", "low", 1, "STEPS=5", "STEP_S=0.1")
	type result struct {
		out  string
		code int
	}
	done := make(chan result, 1)
	go func() {
		out, _, code := d.cli("logs", "-f", id)
		done <- result{out, code}
	}()
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.out, "resuming at step 0\n") || !strings.HasSuffix(r.out, "done at step 5\n") {
			t.Errorf("logs -f: exit %d\n%s", r.code, r.out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("logs -f still following 20s after a 0.5s job was submitted")
	}
	if v := d.jobs()[id]; v.State != live.StateSucceeded {
		t.Errorf("job is %s when logs -f returned, want succeeded", v.State)
	}
}

// discoveringDaemon starts a daemon on a policy of one team, research,
// with quota of a discovered instance type, on a machine whose device
// tools are the given scripts (name -> text) first on PATH; it submits a
// job of acc accelerators that echoes its environment and returns what it
// printed.
func discoveringDaemon(t *testing.T, tools map[string]string, quota string, acc int, echo string) (*daemon, string) {
	bin := t.TempDir()
	for name, text := range tools {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(t.TempDir(), "policy.yaml")
	policy := "teams:\n  - {name: research, quota: {" + quota + "}}\npriority_classes: [{name: low, value: 1}]\npolicy: {kind: quota}\n"
	if err := os.WriteFile(cfg, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDaemon(t, cfg, "PATH="+bin+":"+os.Getenv("PATH"))
	out, errs, code := d.cli("submit", "--team", "research", "--priority", "low", "--accelerators", strconv.Itoa(acc), "--", "sh", "-c", "echo "+echo)
	if code != 0 {
		t.Fatalf("submit: %d %s", code, errs)
	}
	id := strings.TrimSpace(out)
	if v := d.waitState(id, live.StateSucceeded, 10*time.Second); v.InstanceType != "" && !strings.HasPrefix(quota, v.InstanceType+":") {
		t.Errorf("instance type %q, want that of %s", v.InstanceType, quota)
	}
	return d, d.stdout(id)
}

// Without a fleet section the daemon's devices are the GPUs nvidia-smi
// lists, by their own indexes, and a job sees only those it was given.
func TestDaemonWithoutAFleetRunsOnTheGPUsNvidiaSmiLists(t *testing.T) {
	smi := "#!/bin/sh\nprintf '0, NVIDIA A100-SXM4-40GB, 40960 MiB\\n3, NVIDIA A100-SXM4-40GB, 40960 MiB\\n'\n"
	d, got := discoveringDaemon(t, map[string]string{"nvidia-smi": smi}, "nvidia-a100-sxm4-40gb: 2", 2, "$CUDA_VISIBLE_DEVICES")
	if got != "0,3\n" {
		t.Errorf("the job saw CUDA_VISIBLE_DEVICES=%q, want the listed GPUs 0,3", got)
	}
	if _, errs, code := d.cli("submit", "--team", "research", "--priority", "low", "--accelerators", "3", "--", "true"); code != exitBadInput || !strings.Contains(errs, "this machine has 2") {
		t.Errorf("3 of 2 discovered GPUs: exit %d %s", code, errs)
	}
}

// Without a fleet section on a Trainium machine, the daemon's devices are
// those neuron-ls lists, one accelerator each, and a job is shown the
// NeuronCores of the devices it was given.
func TestDaemonWithoutAFleetRunsOnTheNeuronDevicesNeuronLsLists(t *testing.T) {
	ls := `#!/bin/sh
cat <<'JSON'
[{"neuron_device": 0, "nc_count": 2, "neuroncore_ids": [0, 1], "memory_size": 34359738368, "instance_type": "trn1.32xlarge"},
 {"neuron_device": 1, "nc_count": 2, "neuroncore_ids": [2, 3], "memory_size": 34359738368, "instance_type": "trn1.32xlarge"},
 {"neuron_device": 2, "nc_count": 2, "neuroncore_ids": [4, 5], "memory_size": 34359738368, "instance_type": "trn1.32xlarge"}]
JSON
`
	smi := "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2\nexit 9\n"
	d, got := discoveringDaemon(t, map[string]string{"neuron-ls": ls, "nvidia-smi": smi}, "neuron-trn1: 3", 2, "cores=$NEURON_RT_VISIBLE_CORES cuda=$CUDA_VISIBLE_DEVICES")
	if got != "cores=0-3 cuda=\n" {
		t.Errorf("the job saw %q, want the NeuronCores of devices 0 and 1 (0-3) and no CUDA devices", got)
	}
	if _, errs, code := d.cli("submit", "--team", "research", "--priority", "low", "--accelerators", "4", "--", "true"); code != exitBadInput || !strings.Contains(errs, "this machine has 3") {
		t.Errorf("4 of 3 discovered devices: exit %d %s", code, errs)
	}
}

// live snapshot writes the daemon's state as a snapshot allot cycle reads,
// and the cycle says of a waiting job what the daemon says.
func TestLiveSnapshotGivesAllotCycleTheSameWhy(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	running := d.submit("research", "low", 4, "STEPS=1000")
	d.waitState(running, live.StateRunning, 10*time.Second)
	out, errs, code := d.cli("submit", "--team", "research", "--priority", "low", "--accelerators", "2", "--", "true")
	if code != 0 {
		t.Fatalf("submit: %s", errs)
	}
	waiting := strings.TrimSpace(out)
	why := d.jobs()[waiting].Reason
	file := filepath.Join(t.TempDir(), "now.yaml")
	if _, errs, code := d.cli("live", "snapshot", "-o", file); code != 0 {
		t.Fatalf("live snapshot: %d %s", code, errs)
	}
	var o, e bytes.Buffer
	if code := run([]string{"cycle", file, "--json"}, &o, &e); code != 0 {
		data, _ := os.ReadFile(file)
		t.Fatalf("cycle on the snapshot: %d %s\n%s", code, e.String(), data)
	}
	var plan struct {
		Admitted []struct{ Name string }
		Pending  []struct{ Name, State, Reason string }
	}
	if err := json.Unmarshal(o.Bytes(), &plan); err != nil {
		t.Fatalf("%v\n%s", err, o.String())
	}
	if len(plan.Admitted) != 0 || len(plan.Pending) != 1 || plan.Pending[0].Name != "job-"+waiting || plan.Pending[0].Reason != why {
		t.Errorf("cycle on the snapshot: %+v; want job-%s pending with the daemon's reason %q", plan, waiting, why)
	}
}

// live serve says what its file warns of before it starts, as sim does:
// a quota beyond the fleet can never be used in full.
func TestLiveServePrintsTheFilesWarnings(t *testing.T) {
	base, err := os.ReadFile(liveConfigPath(t))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(base), "{name: prod, quota: {local-gpu: 2}}", "{name: prod, quota: {local-gpu: 40}}", 1)
	if text == string(base) {
		t.Fatal("prod's quota not in the file")
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	// A bad --log-format stops it after the file is read, before a store.
	code := run([]string{"live", "serve", "--data-dir", filepath.Join(t.TempDir(), "d"), "--config", path, "--log-format", "xml"}, &o, &e)
	if code != 2 || !strings.Contains(e.String(), "warning: "+path+":19: teams[prod].quota.local-gpu: team prod's quota of 40 local-gpu accelerators is more than the fleet's") {
		t.Errorf("exit %d, stderr:\n%s", code, e.String())
	}
}
