// Package local is live mode's backend for one machine: each run of a job
// is a process group started by a small supervisor (the shim, `allot live
// shim`) in a session of its own, so that it outlives the daemon. The shim
// keeps the run's record (its own pid, the job's pid, how it ended) in the
// run's directory; a restarted daemon reads it to re-adopt running jobs and
// learn how the others ended (the containerd-shim model).
//
// A daemon run as root runs each job as its submitter, so nothing the
// daemon or a shim reads, writes, chowns or signals may be chosen by that
// user: every directory of the tree is the daemon's own, and the user gets
// only its checkpoint directory and its log files' contents. The daemon
// stops a run by signalling its shim through a pidfd; the shim signals the
// process group it started and has not reaped.
package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"

	"github.com/allot-sim/allot/live"
	"golang.org/x/sys/unix"
)

// Backend runs jobs as processes on this machine.
type Backend struct {
	// Dir is the data directory: job J's files are under Dir/jobs/J.
	Dir string
	// Shim is the command line that runs the shim; the run directory is
	// appended (e.g. [/usr/bin/allot live shim]).
	Shim []string

	mu    sync.Mutex
	shims map[string]*process // by run directory
}

// Spec is what the shim runs, written by the daemon before it starts it.
type Spec struct {
	Command []string `json:"command"`
	Dir     string   `json:"dir"`
	// Env is the job's whole environment: nothing of the shim's own.
	Env []string `json:"env"`
	// UID, GID and Groups to run as: a root daemon runs each job as the
	// user who submitted it (UID 0: as the shim's own user).
	UID    int   `json:"uid"`
	GID    int   `json:"gid"`
	Groups []int `json:"groups,omitempty"`
}

const (
	specFile    = "spec.json"
	shimLogFile = "shim.log"
)

// JobDir is a job's directory.
func (b *Backend) JobDir(id string) string { return filepath.Join(b.Dir, "jobs", id) }

// RunDir is the directory of a job's current run.
func (b *Backend) RunDir(j *live.Job) string {
	n := j.Attempt
	if n == 0 { // stored by an allot that numbered directories by run
		n = j.Run
	}
	return filepath.Join(b.JobDir(j.ID), "run-"+strconv.Itoa(n))
}

// LogPaths are a job's stdout and stderr files (every run appends).
func (b *Backend) LogPaths(id string) (stdout, stderr string) {
	d := b.JobDir(id)
	return filepath.Join(d, "stdout"), filepath.Join(d, "stderr")
}

// CheckpointDir is where a job saves its checkpoints, kept across runs.
func (b *Backend) CheckpointDir(id string) string { return filepath.Join(b.JobDir(id), "checkpoint") }

// Remove deletes a finished job's directory (retention). Nothing in it is
// followed: os.RemoveAll works on directory descriptors, without links.
func (b *Backend) Remove(id string) error { return os.RemoveAll(b.JobDir(id)) }

// runAs is the account a job runs under: its submitter's when the daemon
// is root, else the daemon's own user.
func runAs(j *live.Job) (*account, error) {
	uid := os.Geteuid()
	if uid == 0 {
		uid = j.UID
	}
	a, err := lookupAccount(uid)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", live.ErrCannotRun, err)
	}
	return a, nil
}

// Start makes the run's directory, writes its spec and starts its shim.
func (b *Backend) Start(j *live.Job) error {
	if err := b.start(j); err != nil {
		return fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return nil
}

func (b *Backend) start(j *live.Job) error {
	acct, err := runAs(j)
	if err != nil {
		return err
	}
	other := acct.uid != os.Geteuid()
	if err := b.makeJobDir(j.ID, other); err != nil {
		return err
	}
	ck := b.CheckpointDir(j.ID)
	if err := makeCheckpointDir(ck, acct); err != nil {
		return err
	}
	rd := b.RunDir(j)
	if err := os.Mkdir(rd, 0o700); err != nil { // a run directory is made once
		return err
	}
	env := append(slices.Clone(acct.env), j.Env...)
	env = append(env, j.DeviceEnv...)
	env = append(env, "ALLOT_JOB_ID="+j.ID, "ALLOT_CHECKPOINT_DIR="+ck, "ALLOT_RESTART_COUNT="+strconv.Itoa(max(0, j.Run-1)))
	if t := j.RunAdmitted; t != nil {
		// Unix seconds, as Slurm's SLURM_JOB_START_TIME: a job can tell how
		// long it took to start.
		env = append(env, fmt.Sprintf("ALLOT_ADMITTED_AT=%d.%09d", t.Unix(), t.Nanosecond()))
	}
	dir := j.Dir
	if dir == "" {
		dir = ck
	}
	spec := Spec{Command: j.Command, Dir: dir, Env: env}
	if other {
		spec.UID, spec.GID, spec.Groups = acct.uid, acct.gid, acct.groups
	}
	data, err := json.Marshal(&spec)
	if err != nil {
		return err
	}
	if err := writeNew(filepath.Join(rd, specFile), data); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(rd, shimLogFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(b.Shim[0], append(b.Shim[1:], rd)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // its own session: it outlives the daemon
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("shim: %w", err)
	}
	// Our child, not yet reaped, so its pid is still its own.
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("shim: pidfd_open: %w", err)
	}
	b.keep(rd, &process{fd: fd, pid: cmd.Process.Pid})
	go cmd.Wait() // reap it while the daemon lives; init does after
	return nil
}

// makeJobDir makes Dir/jobs/ID as the daemon's own, traversable by others
// when jobs run as other users (they reach their checkpoint directory).
// One made by an allot that gave it to the job's user is taken back: its
// parent is the daemon's, so the entry cannot be swapped meanwhile.
func (b *Backend) makeJobDir(id string, other bool) error {
	mode := os.FileMode(0o700)
	if other {
		mode = 0o711
		if err := os.Chmod(b.Dir, 0o711); err != nil {
			return err
		}
	}
	jobs := filepath.Join(b.Dir, "jobs")
	for _, d := range []string{jobs, b.JobDir(id)} {
		if err := os.Mkdir(d, mode); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
		if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Geteuid() {
			if err := os.Lchown(d, os.Geteuid(), os.Getegid()); err != nil {
				return err
			}
		}
		if fi.Mode().Perm() != mode {
			if err := os.Chmod(d, mode); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeCheckpointDir makes the job's checkpoint directory, its user's own.
func makeCheckpointDir(ck string, a *account) error {
	err := os.Mkdir(ck, 0o700)
	if err == nil {
		if a.uid != os.Geteuid() {
			return os.Lchown(ck, a.uid, a.gid)
		}
		return nil
	}
	if !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(ck)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", ck)
	}
	if owner := int(fi.Sys().(*syscall.Stat_t).Uid); owner != a.uid {
		return fmt.Errorf("%s belongs to uid %d, not the job's uid %d", ck, owner, a.uid)
	}
	return nil
}

func (b *Backend) keep(rd string, p *process) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.shims == nil {
		b.shims = map[string]*process{}
	}
	if old := b.shims[rd]; old != nil {
		old.close()
	}
	b.shims[rd] = p
}

func (b *Backend) shim(rd string) *process {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.shims[rd]
}

func (b *Backend) forget(rd string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p := b.shims[rd]; p != nil {
		p.close()
		delete(b.shims, rd)
	}
}

// Signal asks the run's shim to stop its job: SIGTERM to the job's group
// (kill false), or SIGKILL (kill true). It never waits.
func (b *Backend) Signal(j *live.Job, kill bool) error {
	p := b.shim(b.RunDir(j))
	if p == nil {
		return fmt.Errorf("signal job %s: run %d has no live supervisor", j.ID, j.Run)
	}
	sig := unix.SIGTERM
	if kill {
		sig = unix.SIGUSR1
	}
	if err := p.signal(sig); err != nil {
		return fmt.Errorf("signal job %s: %w", j.ID, err)
	}
	return nil
}

// Exited reports how the current run ended, or nil while it runs. A run
// whose shim is gone without a record is Lost (its job's group, if any is
// left, is killed first), or NeverStarted when the shim died before it
// started the job.
func (b *Backend) Exited(j *live.Job) (*live.Exit, error) {
	st, ex, err := b.inspect(j)
	if err != nil || st == live.RunRunning {
		return nil, err
	}
	return ex, nil
}

// Recover tells, after a controller restart, what became of a run the
// store says was started, and adopts its shim if it still runs. A run
// whose shim never claimed it is claimed here, so the shim, if it starts
// late, will not run it: no run starts twice.
func (b *Backend) Recover(j *live.Job) (live.RunStatus, error) {
	st, _, err := b.inspect(j)
	return st, err
}

func (b *Backend) inspect(j *live.Job) (live.RunStatus, *live.Exit, error) {
	rd := b.RunDir(j)
	for range 3 {
		s, ok, err := readStatus(rd)
		if err != nil {
			return 0, nil, err
		}
		switch {
		case ok && s.Phase == phaseExited:
			b.forget(rd)
			return live.RunExited, exitOf(&s), nil
		case ok && s.Phase == phaseAbandoned:
			b.forget(rd)
			return live.RunNeverStarted, &live.Exit{Lost: true, NeverStarted: true}, nil
		}
		p := b.shim(rd)
		if p == nil && ok {
			if p, err = openProcess(s.Shim, s.ShimStart); err != nil {
				return 0, nil, err
			}
			if p != nil {
				b.keep(rd, p)
			}
		}
		if p != nil && !p.exited() {
			return live.RunRunning, nil, nil
		}
		// No shim: read again, it may have written its end as it went.
		s2, ok2, err := readStatus(rd)
		if err != nil {
			return 0, nil, err
		}
		if ok2 && s2.Phase != s.Phase {
			continue
		}
		switch {
		case ok2 && s2.Phase == phaseRunning:
			b.forget(rd)
			err := killGroup(s2.Pid, s2.PidStart)
			return live.RunLost, &live.Exit{Lost: true}, err
		case ok2:
			// Claimed, job not started: its parent-death signal ended
			// anything the shim had begun to start.
			b.forget(rd)
			return live.RunNeverStarted, &live.Exit{Lost: true, NeverStarted: true}, nil
		}
		// No record at all: claim the run so that a late shim refuses it.
		if _, err := os.Stat(rd); errors.Is(err, os.ErrNotExist) {
			return live.RunNeverStarted, &live.Exit{Lost: true, NeverStarted: true}, nil
		}
		f, err := createStatus(rd, &status{Phase: phaseAbandoned})
		if errors.Is(err, os.ErrExist) {
			continue // the shim claimed it just now
		}
		if err != nil {
			return 0, nil, fmt.Errorf("claim %s: %w", rd, err)
		}
		f.Close()
		b.forget(rd)
		return live.RunNeverStarted, &live.Exit{Lost: true, NeverStarted: true}, nil
	}
	return 0, nil, fmt.Errorf("%s: its record kept changing", rd)
}

func exitOf(s *status) *live.Exit {
	ex := &live.Exit{Code: s.Code, Signal: s.Signal, Error: s.Error}
	if s.Ended > 0 {
		ex.Ended = unixNano(s.Ended)
	}
	return ex
}

// writeNew writes a new file whole, synced; it fails if path exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o600)
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
	return f.Close()
}
