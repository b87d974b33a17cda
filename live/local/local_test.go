package local

import (
	"os"
	"path/filepath"
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
	j := &live.Job{ID: "1", Run: 1, Command: []string{"sh", "-c", "touch ran"}}
	rd := b.RunDir(j)
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(rd, specFile), &Spec{Command: j.Command, Dir: rd,
		Stdout: filepath.Join(rd, "out"), Stderr: filepath.Join(rd, "err")}); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Recover(j); err != nil || st != live.RunNeverStarted {
		t.Fatalf("Recover: %v %v, want RunNeverStarted", st, err)
	}
	if err := RunShim(rd); err == nil {
		t.Error("the late shim ran a claimed run")
	}
	if _, err := os.Stat(filepath.Join(rd, "ran")); err == nil {
		t.Error("the job's command ran")
	}
}

// The shim records the exit code of the job's command, and the job sees
// its devices, id, checkpoint dir and restart count.
func TestShimRecordsExitCodeAndGivesTheJobItsEnvironment(t *testing.T) {
	b := realShim(t)
	declared := &live.FlavorDevices{}
	j := &live.Job{ID: "7", Run: 2, Devices: []string{"1", "3"}, DeviceEnv: declared.DeviceEnv([]string{"1", "3"}),
		Command: []string{"sh", "-c", `echo "$CUDA_VISIBLE_DEVICES $NEURON_RT_VISIBLE_CORES $ALLOT_JOB_ID $ALLOT_RESTART_COUNT $ALLOT_CHECKPOINT_DIR"; exit 3`}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 3 {
		t.Fatalf("exit %+v, want code 3", ex)
	}
	out, _ := b.LogPaths(j.ID)
	data, _ := os.ReadFile(out)
	if want := "1,3 1,3 7 1 " + b.CheckpointDir("7") + "\n"; string(data) != want {
		t.Errorf("job saw %q, want %q", data, want)
	}
}

// A root daemon runs a job as the user who submitted it. The test needs
// root to switch users, and is skipped without it.
func TestShimRunsTheJobAsItsSubmitter(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching users needs root")
	}
	b := realShim(t)
	os.Chmod(filepath.Dir(b.Dir), 0o711) // the test's own temp dir, made for root alone
	j := &live.Job{ID: "1", Run: 1, UID: 65534, Dir: "/", Command: []string{"sh", "-c", `id -u; touch "$ALLOT_CHECKPOINT_DIR/mine"`}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 0 {
		t.Errorf("exit %+v: the job could not write its checkpoint dir", ex)
	}
	out, _ := b.LogPaths(j.ID)
	if data, _ := os.ReadFile(out); string(data) != "65534\n" {
		t.Errorf("job ran as uid %q, want 65534", data)
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
	return &Backend{Dir: t.TempDir(), Shim: []string{exe}}
}

func waitExit(t *testing.T, b *Backend, j *live.Job) *live.Exit {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ex, err := b.Exited(j)
		if err != nil {
			t.Fatal(err)
		}
		if ex != nil {
			return ex
		}
		if time.Now().After(deadline) {
			t.Fatal("no exit recorded within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A run the restarted daemon claimed as never started, started again
// under its number by a real shim, runs exactly once.
func TestRunClaimedAsNeverStartedRunsOnceWhenStartedAgain(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "1", Run: 1, Command: []string{"sh", "-c", "echo ran"}}
	if st, err := b.Recover(j); err != nil || st != live.RunNeverStarted {
		t.Fatalf("Recover: %v %v", st, err)
	}
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
}

// SIGTERM reaches the whole process group: a job's children stop too.
func TestSignalStopsTheJobsWholeProcessGroup(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "2", Run: 1, Command: []string{"sh", "-c", "sleep 30 & sleep 30 & wait"}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if err := b.Signal(j, false); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Signal != "terminated" {
		t.Errorf("exit %+v, want killed by SIGTERM", ex)
	}
	pid, _ := readInt(filepath.Join(b.RunDir(j), pidFile))
	if syscall.Kill(-pid, 0) == nil {
		t.Errorf("process group %d still has members once its end was recorded", pid)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// A job's end is its group's end: a background process it leaves behind
// is stopped and reaped before the end is recorded, so it cannot hold the
// devices once the job is done.
func TestJobsLeftoverProcessesEndWithIt(t *testing.T) {
	b := realShim(t)
	j := &live.Job{ID: "3", Run: 1, Command: []string{"sh", "-c", "sleep 30 & exit 0"}}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, b, j); ex.Code != 0 {
		t.Errorf("exit %+v, want 0", ex)
	}
	pid, _ := readInt(filepath.Join(b.RunDir(j), pidFile))
	if syscall.Kill(-pid, 0) == nil {
		t.Errorf("the job's background sleep outlived the record of its end")
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
