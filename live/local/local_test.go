package local

import (
	"os"
	"path/filepath"
	"testing"

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
	b := &Backend{Dir: t.TempDir()}
	j := &live.Job{ID: "7", Run: 2, Devices: []string{"1", "3"},
		Command: []string{"sh", "-c", `echo "$CUDA_VISIBLE_DEVICES $NEURON_RT_VISIBLE_CORES $ALLOT_JOB_ID $ALLOT_RESTART_COUNT $ALLOT_CHECKPOINT_DIR"; exit 3`}}
	rd := b.RunDir(j)
	os.MkdirAll(rd, 0o755)
	out, errf := b.LogPaths(j.ID)
	env := []string{"CUDA_VISIBLE_DEVICES=1,3", "NEURON_RT_VISIBLE_CORES=1,3", "ALLOT_JOB_ID=7", "ALLOT_RESTART_COUNT=1", "ALLOT_CHECKPOINT_DIR=" + b.CheckpointDir("7")}
	if err := writeJSON(filepath.Join(rd, specFile), &Spec{Command: j.Command, Dir: rd, Stdout: out, Stderr: errf, Env: env}); err != nil {
		t.Fatal(err)
	}
	if err := RunShim(rd); err != nil {
		t.Fatal(err)
	}
	ex, err := b.Exited(j)
	if err != nil || ex == nil || ex.Code != 3 {
		t.Fatalf("exit %+v %v, want code 3", ex, err)
	}
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
	b := &Backend{Dir: t.TempDir()}
	j := &live.Job{ID: "1", Run: 1}
	rd := b.RunDir(j)
	os.MkdirAll(rd, 0o700)
	out := filepath.Join(rd, "out")
	if err := writeJSON(filepath.Join(rd, specFile), &Spec{Command: []string{"id", "-u"}, Dir: "/", Stdout: out, Stderr: out, UID: 65534, GID: 65534}); err != nil {
		t.Fatal(err)
	}
	if err := RunShim(rd); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); string(data) != "65534\n" {
		t.Errorf("job ran as uid %q, want 65534", data)
	}
}

// A run the restarted daemon claimed as never started can be started
// again under its number: the claim is lifted, so the new shim may run it.
func TestRunClaimedAsNeverStartedCanStartAgain(t *testing.T) {
	b := &Backend{Dir: t.TempDir(), Shim: []string{"true"}}
	j := &live.Job{ID: "1", Run: 1, Command: []string{"true"}}
	if st, err := b.Recover(j); err != nil || st != live.RunNeverStarted {
		t.Fatalf("Recover: %v %v", st, err)
	}
	if err := b.Start(j); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.RunDir(j), ownerFile)); !os.IsNotExist(err) {
		t.Errorf("the claim is still there (%v): the new shim would refuse the run", err)
	}
}
