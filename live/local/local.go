// Package local is live mode's backend for one machine: each run of a job
// is a process group started by a small supervisor (the shim, `allot live
// shim`) in a session of its own, so that it outlives the daemon. The shim
// records the run's pid and, at the end, its exit status in the run's
// directory; a restarted daemon reads them to re-adopt running jobs and
// learn how the others ended (the containerd-shim model).
package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/live"
)

// Backend runs jobs as processes on this machine.
type Backend struct {
	// Dir is the data directory: job J's files are under Dir/jobs/J.
	Dir string
	// Shim is the command line that runs the shim; the run directory is
	// appended (e.g. [/usr/bin/allot live shim]).
	Shim []string
}

// Spec is what the shim runs, written by the daemon before it starts it.
type Spec struct {
	Command []string `json:"command"`
	Dir     string   `json:"dir"`
	Env     []string `json:"env"`
	Stdout  string   `json:"stdout"`
	Stderr  string   `json:"stderr"`
	// UID and GID to run as: a root daemon runs each job as the user who
	// submitted it (0 and 0: as the shim's own user).
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// Files of a run directory.
const (
	specFile  = "spec.json"
	ownerFile = "owner" // the shim's pid, or "lost" when a restarted daemon got there first
	pidFile   = "pid"   // the job's process (and process group) id
	exitFile  = "exit.json"
)

// JobDir is a job's directory.
func (b *Backend) JobDir(id string) string { return filepath.Join(b.Dir, "jobs", id) }

// RunDir is the directory of a job's current run.
func (b *Backend) RunDir(j *live.Job) string {
	return filepath.Join(b.JobDir(j.ID), "run-"+strconv.Itoa(j.Run))
}

// LogPaths are a job's stdout and stderr files (every run appends).
func (b *Backend) LogPaths(id string) (stdout, stderr string) {
	d := b.JobDir(id)
	return filepath.Join(d, "stdout"), filepath.Join(d, "stderr")
}

// CheckpointDir is where a job saves its checkpoints, kept across runs.
func (b *Backend) CheckpointDir(id string) string { return filepath.Join(b.JobDir(id), "checkpoint") }

// Start writes the run's spec and starts its shim.
func (b *Backend) Start(j *live.Job) error {
	rd := b.RunDir(j)
	ck := b.CheckpointDir(j.ID)
	for _, d := range []string{rd, ck} {
		if err := os.MkdirAll(d, 0o700); err != nil { // logs and checkpoints are the owner's
			return fmt.Errorf("start job %s: %w", j.ID, err)
		}
	}
	// A run a restarted daemon claimed as never started is started again
	// under the same number: its claim is lifted for the new shim. Should
	// the old shim start late after all, only one of them can claim it.
	if owner, err := os.ReadFile(filepath.Join(rd, ownerFile)); err == nil && string(owner) == "lost" {
		if err := os.Remove(filepath.Join(rd, ownerFile)); err != nil {
			return fmt.Errorf("start job %s: %w", j.ID, err)
		}
	}
	out, errf := b.LogPaths(j.ID)
	dir := j.Dir
	if dir == "" {
		dir = b.JobDir(j.ID)
	}
	spec := Spec{Command: j.Command, Dir: dir, Stdout: out, Stderr: errf, Env: append(slices.Clone(j.DeviceEnv),
		"ALLOT_JOB_ID="+j.ID, "ALLOT_CHECKPOINT_DIR="+ck, "ALLOT_RESTART_COUNT="+strconv.Itoa(max(0, j.Run-1)),
	)}
	if j.RunAdmitted != nil {
		// Unix seconds, as Slurm's SLURM_JOB_START_TIME: a job can tell how
		// long it took to start.
		t := j.RunAdmitted
		spec.Env = append(spec.Env, fmt.Sprintf("ALLOT_ADMITTED_AT=%d.%09d", t.Unix(), t.Nanosecond()))
	}
	if os.Getuid() == 0 && j.UID > 0 {
		gid, err := primaryGID(j.UID)
		if err != nil {
			return fmt.Errorf("start job %s: %w", j.ID, err)
		}
		spec.UID, spec.GID = j.UID, gid
		// Its checkpoints are its own to write, at a path it can reach (the
		// data directory lets others through but not list it).
		for _, d := range []string{b.Dir, filepath.Join(b.Dir, "jobs")} {
			if err := os.Chmod(d, 0o711); err != nil {
				return fmt.Errorf("start job %s: %w", j.ID, err)
			}
		}
		for _, d := range []string{b.JobDir(j.ID), ck} {
			if err := os.Chown(d, j.UID, gid); err != nil {
				return fmt.Errorf("start job %s: %w", j.ID, err)
			}
		}
	}
	if err := writeJSON(filepath.Join(rd, specFile), &spec); err != nil {
		return fmt.Errorf("start job %s: %w", j.ID, err)
	}
	log, err := os.OpenFile(filepath.Join(rd, "shim.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start job %s: %w", j.ID, err)
	}
	defer log.Close()
	cmd := exec.Command(b.Shim[0], append(b.Shim[1:], rd)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // its own session: it outlives the daemon
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start job %s: shim: %w", j.ID, err)
	}
	go cmd.Wait() // reap it while the daemon lives; init does after
	return nil
}

// Signal sends SIGTERM (or SIGKILL) to the run's process group.
func (b *Backend) Signal(j *live.Job, kill bool) error {
	rd := b.RunDir(j)
	var pid int
	// A run decided a moment ago may not have written its pid yet.
	for deadline := time.Now().Add(2 * time.Second); ; {
		p, err := readInt(filepath.Join(rd, pidFile))
		if err == nil {
			pid = p
			break
		}
		if _, err := os.Stat(filepath.Join(rd, exitFile)); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("signal job %s: no pid recorded for run %d", j.ID, j.Run)
		}
		time.Sleep(5 * time.Millisecond)
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal job %s: %w", j.ID, err)
	}
	return nil
}

// Exited reads the run's exit record, if the shim wrote it.
func (b *Backend) Exited(j *live.Job) (*live.Exit, error) {
	data, err := os.ReadFile(filepath.Join(b.RunDir(j), exitFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ex live.Exit
	if err := json.Unmarshal(data, &ex); err != nil {
		return nil, fmt.Errorf("job %s: %s: %w", j.ID, exitFile, err)
	}
	return &ex, nil
}

// Recover finds out what became of a run while the daemon was away. A run
// whose shim never claimed it is claimed here, so the shim, if it starts
// late, will not run it: no run starts twice.
func (b *Backend) Recover(j *live.Job) (live.RunStatus, error) {
	rd := b.RunDir(j)
	if ex, err := b.Exited(j); err != nil || ex != nil {
		return live.RunExited, err
	}
	if err := os.MkdirAll(rd, 0o755); err != nil {
		return 0, err
	}
	if claim(filepath.Join(rd, ownerFile), "lost") {
		return live.RunNeverStarted, nil
	}
	shim, err := readInt(filepath.Join(rd, ownerFile))
	if err == nil && alive(shim) {
		return live.RunRunning, nil
	}
	if ex, err := b.Exited(j); err != nil || ex != nil { // it ended just now
		return live.RunExited, err
	}
	return live.RunLost, nil
}

func primaryGID(uid int) (int, error) {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return 0, fmt.Errorf("uid %d: %w", uid, err)
	}
	return strconv.Atoi(u.Gid)
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// claim creates path holding s, unless it exists.
func claim(path, s string) bool {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.WriteString(s)
	return err == nil && f.Sync() == nil
}

func readInt(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// writeJSON writes a file whole or not at all (temp file, fsync, rename).
func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
