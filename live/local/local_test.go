package local

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// A restarted daemon that finds a run its shim never claimed claims it
// itself; a shim that starts late then refuses to run it, so the job is
// never started twice.
func TestLateShimDoesNotRunARunTheDaemonClaimed(t *testing.T) {
	b := &Backend{Dir: t.TempDir()}
	j := &live.Job{ID: "1", Run: 1, Attempt: 1, Command: []string{"sh", "-c", "touch ran"}}
	rd := b.RunDir(j)
	if err := os.MkdirAll(rd, 0o700); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(&Spec{Command: j.Command, Dir: rd, Env: []string{"PATH=/usr/bin:/bin"}})
	if err := writeNew(filepath.Join(rd, specFile), data); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Recover(j); err != nil || st != live.RunNeverStarted {
		t.Fatalf("Recover: %v %v, want RunNeverStarted", st, err)
	}
	if err := RunShim(rd); err == nil || !strings.Contains(err.Error(), "claimed by a restarted daemon") {
		t.Errorf("the late shim: %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(rd, "ran")); err == nil {
		t.Error("the job's command ran")
	}
}

// The shim records the exit code of the job's command, and the job sees
// its devices, id, checkpoint dir and restart count, and nothing of the
// daemon's environment.
func TestShimRecordsExitCodeAndGivesTheJobOnlyItsOwnEnvironment(t *testing.T) {
	b := realShim(t)
	t.Setenv("ALLOT_TEST_DAEMON_SECRET", "hunter2")
	declared := &live.FlavorDevices{}
	j := &live.Job{ID: "7", Run: 2, Attempt: 2, Devices: []string{"1", "3"}, DeviceEnv: declared.DeviceEnv([]string{"1", "3"}),
		Env: []string{"MINE=yes"}, Command: []string{"sh", "-c", `echo "$CUDA_VISIBLE_DEVICES $NEURON_RT_VISIBLE_CORES $ALLOT_JOB_ID $ALLOT_RESTART_COUNT $ALLOT_CHECKPOINT_DIR $MINE [$ALLOT_TEST_DAEMON_SECRET]"; exit 3`}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 3 || ex.Lost || ex.Ended.IsZero() {
		t.Fatalf("exit %+v, want code 3 with its end time", ex)
	}
	out, _ := b.LogPaths(j.ID)
	data, _ := os.ReadFile(out)
	if want := "1,3 1,3 7 1 " + b.CheckpointDir("7") + " yes []\n"; string(data) != want {
		t.Errorf("job saw %q, want %q", data, want)
	}
}

// A job's environment is its user's login environment: HOME, USER,
// LOGNAME, SHELL and PATH from the account, not the daemon's.
func TestJobEnvironmentComesFromItsAccount(t *testing.T) {
	b := realShim(t)
	t.Setenv("HOME", "/daemon/home")
	j := &live.Job{ID: "8", Run: 1, Attempt: 1, Command: []string{"sh", "-c", `echo "$HOME|$USER|$LOGNAME|$SHELL|$PATH"`}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	waitExit(t, b, j)
	a, err := lookupAccount(os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{envValue(a.env, "HOME"), envValue(a.env, "USER"), envValue(a.env, "LOGNAME"), envValue(a.env, "SHELL"), envValue(a.env, "PATH")}, "|") + "\n"
	out, _ := b.LogPaths(j.ID)
	if data, _ := os.ReadFile(out); string(data) != want || strings.Contains(string(data), "/daemon/home") {
		t.Errorf("job saw %q, want %q", data, want)
	}
}

// A root daemon runs a job as the user who submitted it, with that user's
// supplementary groups. The test needs root to switch users.
func TestShimRunsTheJobAsItsSubmitterWithItsGroups(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching users needs root")
	}
	b := realShim(t)
	os.Chmod(filepath.Dir(b.Dir), 0o711) // the test's own temp dir, made for root alone
	a, err := lookupAccount(65534)
	if err != nil {
		t.Skip("no account for uid 65534:", err)
	}
	j := &live.Job{ID: "1", Run: 1, Attempt: 1, UID: 65534, Dir: "/", Command: []string{"sh", "-c", `id -u; id -G; touch "$ALLOT_CHECKPOINT_DIR/mine"`}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 0 {
		t.Errorf("exit %+v: the job could not write its checkpoint dir", ex)
	}
	var groups []string
	for _, g := range a.groups {
		groups = append(groups, strconv.Itoa(g))
	}
	out, _ := b.LogPaths(j.ID)
	if data, _ := os.ReadFile(out); !strings.HasPrefix(string(data), "65534\n"+strconv.Itoa(a.gid)) {
		t.Errorf("job ran as %q, want uid 65534 with groups %v", data, groups)
	}
	fi, err := os.Stat(out)
	if err != nil || int(fi.Sys().(*syscall.Stat_t).Uid) != 65534 {
		t.Errorf("stdout is not the job's own: %v", err)
	}
	if fi, err := os.Stat(b.JobDir(j.ID)); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Errorf("the job's directory is not root's: %v", err)
	}
}

// A run the restarted daemon claimed as never started is started again in
// a directory of its own, and runs exactly once.
func TestRunClaimedAsNeverStartedRunsOnceWhenStartedAgain(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "1", Run: 1, Attempt: 1, Command: []string{"sh", "-c", "echo ran"}}
	if err := os.MkdirAll(b.RunDir(j), 0o700); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Recover(j); err != nil || st != live.RunNeverStarted {
		t.Fatalf("Recover: %v %v", st, err)
	}
	j.Attempt = 2
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 0 {
		t.Errorf("exit %+v", ex)
	}
	out, _ := b.LogPaths(j.ID)
	if data, _ := os.ReadFile(out); string(data) != "ran\n" {
		t.Errorf("output %q, want one run", data)
	}
	j.Attempt = 1
	if err := b.Start(j); err == nil {
		t.Error("a run directory was used twice")
	}
}

// SIGTERM reaches the whole process group: a job's children stop too.
func TestSignalStopsTheJobsWholeProcessGroup(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "2", Run: 1, Attempt: 1, Command: []string{"sh", "-c", "sleep 30 & sleep 30 & wait"}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	s := waitPhase(t, b, j, phaseRunning)
	if err := b.Signal(j, false); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Signal != "terminated" {
		t.Errorf("exit %+v, want killed by SIGTERM", ex)
	}
	if left, _ := groupMembers(s.Pid, s.PidStart); len(left) > 0 {
		t.Errorf("process group %d still has members %v once its end was recorded", s.Pid, left)
	}
}

// The shim passes SIGTERM on once: a restarted daemon that sends it again
// does not cut the job's checkpoint short.
func TestShimPassesSigtermOnOnce(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "4", Run: 1, Attempt: 1, Command: []string{"sh", "-c", `trap 'echo term' TERM; echo ready; while :; do sleep 0.05; done`}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, b, j, phaseRunning)
	out, _ := b.LogPaths(j.ID)
	waitFile(t, out, "ready\n")
	for range 3 {
		if err := b.Signal(j, false); err != nil {
			t.Fatal(err)
		}
	}
	waitFile(t, out, "ready\nterm\n")
	time.Sleep(300 * time.Millisecond)
	if err := b.Signal(j, true); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Signal != "killed" {
		t.Errorf("exit %+v, want SIGKILL", ex)
	}
	if data, _ := os.ReadFile(out); string(data) != "ready\nterm\n" {
		t.Errorf("the job saw %q, want one SIGTERM", data)
	}
}

// A job's end is its group's end: a background process it leaves behind
// is stopped and reaped before the end is recorded, so it cannot hold the
// devices once the job is done.
func TestJobsLeftoverProcessesEndWithIt(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "3", Run: 1, Attempt: 1, Command: []string{"sh", "-c", "sleep 30 & exit 0"}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 0 {
		t.Errorf("exit %+v, want 0", ex)
	}
	s, _, _ := readStatus(b.RunDir(j))
	if left, _ := groupMembers(s.Pid, s.PidStart); len(left) > 0 {
		t.Errorf("the job's background sleep outlived the record of its end: %v", left)
	}
}

// A shim killed with SIGKILL is noticed: the run is lost, and what is left
// of its job's group is killed before anyone starts it again.
func TestKilledShimLosesTheRunAndItsGroupIsKilled(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "5", Run: 1, Attempt: 1, Command: []string{"sh", "-c", "sleep 60 & sleep 60 & wait"}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	s := waitPhase(t, b, j, phaseRunning)
	waitFor(t, "the job's two sleeps", func() bool { m, _ := groupMembers(s.Pid, s.PidStart); return len(m) == 3 })
	if err := syscall.Kill(s.Shim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ex := waitExit(t, b, j)
	if !ex.Lost || ex.NeverStarted {
		t.Fatalf("exit %+v, want lost", ex)
	}
	if left, _ := groupMembers(s.Pid, s.PidStart); len(left) > 0 {
		t.Errorf("the lost run's processes %v still run", left)
	}
}

// A shim killed before it started the job leaves a run that never
// started: nothing to kill, and the job may be started again.
func TestShimKilledBeforeTheJobStartsLeavesARunThatNeverStarted(t *testing.T) {
	b := realShim(t)
	b.Shim = []string{"sh", "-c", "kill -9 $$"}
	j := &live.Job{ID: "6", Run: 1, Attempt: 1, Command: []string{"true"}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); !ex.Lost || !ex.NeverStarted {
		t.Fatalf("exit %+v, want never started", ex)
	}
	if s, ok, _ := readStatus(b.RunDir(j)); !ok || s.Phase != phaseAbandoned {
		t.Errorf("record %+v, want the run claimed as abandoned", s)
	}
}

// realShim is a backend whose shim is this test binary (see TestMain).
func realShim(t *testing.T) *Backend {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(shimEnv, "1")
	b := &Backend{Dir: t.TempDir(), Shim: []string{exe}}
	t.Cleanup(func() { KillRuns(b.Dir) })
	return b
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitExit(t *testing.T, b *Backend, j *live.Job) *live.Exit {
	t.Helper()
	var ex *live.Exit
	waitFor(t, "exit recorded", func() bool {
		var err error
		if ex, err = b.Exited(j); err != nil {
			t.Fatal(err)
		}
		return ex != nil
	})
	return ex
}

func waitPhase(t *testing.T, b *Backend, j *live.Job, phase string) status {
	t.Helper()
	var s status
	waitFor(t, "run "+phase, func() bool {
		var ok bool
		s, ok, _ = readStatus(b.RunDir(j))
		return ok && s.Phase == phase
	})
	return s
}

func waitFile(t *testing.T, path, want string) {
	t.Helper()
	waitFor(t, strconv.Quote(want)+" in "+path, func() bool {
		data, _ := os.ReadFile(path)
		return string(data) == want
	})
}

// A working directory the job's user cannot enter is refused when the job
// is submitted, naming the directory, not later as a misleading exec
// error.
func TestWorkingDirectoryTheUserCannotEnterIsRefusedAtSubmit(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("another user's view of a directory needs root")
	}
	if _, err := lookupAccount(65534); err != nil {
		t.Skip("no account for uid 65534:", err)
	}
	b := &Backend{Dir: t.TempDir()}
	open, err := os.MkdirTemp("", "allot-open")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	locked := filepath.Join(open, "locked")
	closed := filepath.Join(locked, "closed")
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(closed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, want string
	}{
		{closed, "working directory " + closed + ": uid 65534 may not enter " + locked + " (mode 700)"},
		{"/no/such/dir", "working directory /no/such/dir: stat /no/such/dir: no such file or directory"},
		{"relative", "working directory relative: not an absolute path"},
	} {
		err := b.CheckJob(&live.Request{Dir: c.dir}, 65534)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("dir %s: %v, want %q", c.dir, err, c.want)
		}
	}
	if err := b.CheckJob(&live.Request{Dir: "/tmp"}, 65534); err != nil {
		t.Errorf("/tmp: %v", err)
	}
	if err := b.CheckJob(&live.Request{Dir: "/tmp"}, 1<<30); err == nil || !strings.Contains(err.Error(), "has no account") {
		t.Errorf("a uid with no account: %v", err)
	}
}
