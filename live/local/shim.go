package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/allot-sim/allot/live"
	"golang.org/x/sys/unix"
)

// RunShim supervises one run: it claims the run directory, starts the
// job's command as a process group with its devices and environment,
// records its pid, waits, and records how it ended. It runs in a session
// of its own and outlives the daemon that started it.
func RunShim(runDir string) error {
	if !claim(filepath.Join(runDir, ownerFile), strconv.Itoa(os.Getpid())) {
		return fmt.Errorf("run %s was claimed by a restarted daemon: not starting it", runDir)
	}
	data, err := os.ReadFile(filepath.Join(runDir, specFile))
	if err != nil {
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	var spec Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	out, err := os.OpenFile(spec.Stdout, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	defer out.Close()
	errf, err := os.OpenFile(spec.Stderr, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	defer errf.Close()
	// Orphans of the job become the shim's to reap, so it can tell when
	// the last of them is gone.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Stdout, cmd.Stderr = out, errf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: a stop reaches all of it
	if spec.UID > 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(spec.UID), Gid: uint32(spec.GID)}
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(errf, "allot: cannot start %q: %v\n", spec.Command[0], err)
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	if err := writeAtomic(filepath.Join(runDir, pidFile), []byte(strconv.Itoa(cmd.Process.Pid))); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	err = cmd.Wait()
	// The job is its process group: what it left behind goes with it, so
	// no straggler keeps its devices once its end is recorded.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	reapAll(5 * time.Second)
	ex := &live.Exit{}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ex.Code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = ws.Signal().String()
			ex.Code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		return recordExit(runDir, &live.Exit{Code: 127}, err)
	}
	return recordExit(runDir, ex, nil)
}

// reapAll reaps the job's orphans until none is left (or for at most d:
// one that left the group with setsid is not waited for longer).
func reapAll(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.ECHILD):
			return
		case err == nil && pid > 0:
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func recordExit(runDir string, ex *live.Exit, cause error) error {
	if err := writeJSON(filepath.Join(runDir, exitFile), ex); err != nil {
		return errors.Join(cause, fmt.Errorf("record exit: %w", err))
	}
	return cause
}
