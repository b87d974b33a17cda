package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RunShim supervises one run: it claims the run directory, starts the
// job's command as a process group with its user, devices and environment,
// records its pid, waits, and records how it ended. It runs in a session
// of its own and outlives the daemon that started it. SIGTERM from the
// daemon is passed on to the job's group once; SIGUSR1 kills the group.
func RunShim(runDir string) error {
	// First of all: a stop asked for before the job starts must not kill
	// the shim with the run half recorded.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGUSR1, unix.SIGINT, unix.SIGHUP)
	defer signal.Stop(sigs)
	s, rec, err := claimRun(runDir)
	if err != nil {
		return err
	}
	defer rec.Close()
	end := func(code int, sig string, cause error) error { return recordExit(rec, s, code, sig, cause) }
	spec, err := readSpec(runDir)
	if err != nil {
		return end(127, "", err)
	}
	select {
	case sig := <-sigs:
		return end(128+int(sig.(syscall.Signal)), unix.SignalName(sig.(syscall.Signal)), nil)
	default:
	}
	stdout, stderr, err := openLogs(filepath.Dir(runDir), spec)
	if err != nil {
		return end(127, "", err)
	}
	defer stdout.Close()
	defer stderr.Close()
	// Orphans of the job become the shim's to reap, so its group's id
	// stays taken until the shim has killed them.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	cmd, err := jobCommand(spec, stdout, stderr)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		err = startError(spec, err)
		fmt.Fprintf(stderr, "allot: %v\n", err)
		return end(127, "", err)
	}
	pid := cmd.Process.Pid
	st, err := readStat(pid)
	if err == nil {
		s.Phase, s.Pid, s.PidStart, s.Started = phaseRunning, pid, st.start, time.Now().UnixNano()
		err = s.write(rec)
	}
	if err != nil {
		_ = unix.Kill(-pid, unix.SIGKILL)
		_ = cmd.Wait()
		return end(127, "", fmt.Errorf("record the job's pid: %w", err))
	}
	awaitExit(pid, sigs)
	// The job is its process group: what it left behind goes with it, so
	// no straggler keeps its devices once its end is recorded.
	_ = unix.Kill(-pid, unix.SIGKILL)
	err = cmd.Wait()
	reapAll(5 * time.Second)
	code, sig := 0, ""
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig = ws.Signal().String()
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		return end(127, "", err)
	}
	return end(code, sig, nil)
}

// claimRun claims the run directory for this shim: both it and the
// daemon's directory above must be the shim's user's own, and the status
// file must not exist yet (a restarted daemon may have claimed the run).
// It returns the status recorded and its file, open for the updates.
func claimRun(runDir string) (*status, *os.File, error) {
	if err := checkOwnDir(filepath.Dir(runDir)); err != nil {
		return nil, nil, err
	}
	if err := checkOwnDir(runDir); err != nil {
		return nil, nil, err
	}
	me, err := readStat(os.Getpid())
	if err != nil {
		return nil, nil, err
	}
	s := &status{Phase: phaseClaimed, Shim: os.Getpid(), ShimStart: me.start}
	rec, err := createStatus(runDir, s)
	if errors.Is(err, os.ErrExist) {
		return nil, nil, fmt.Errorf("run %s was claimed by a restarted daemon: not starting it", runDir)
	}
	if err != nil {
		// Nothing recorded: the daemon finds the shim gone with no claim
		// and starts the run again. The job has not started.
		return nil, nil, fmt.Errorf("claim %s: %w", runDir, err)
	}
	return s, rec, nil
}

// recordExit records how the run ended (its exit code, the signal that
// ended it, the error that kept it from running) and returns cause, with
// any failure to record it.
func recordExit(rec *os.File, s *status, code int, sig string, cause error) error {
	s.Phase, s.Code, s.Signal, s.Ended = phaseExited, code, sig, time.Now().UnixNano()
	if cause != nil {
		s.Error = cause.Error()
	}
	if err := s.write(rec); err != nil {
		return errors.Join(cause, fmt.Errorf("record exit: %w", err))
	}
	return cause
}

// awaitExit waits for the job's leader pid to exit, passing the daemon's
// signals on to its group meanwhile: SIGUSR1 kills it, the first other
// one (a restarted daemon asks again) is passed on as SIGTERM.
func awaitExit(pid int, sigs <-chan os.Signal) {
	exited := make(chan struct{})
	go func() {
		// WNOWAIT: the leader stays a zombie, so its group id cannot be
		// reused until the shim has killed the group and reaped it.
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		close(exited)
	}()
	termed := false
	for waiting := true; waiting; {
		select {
		case sig := <-sigs:
			switch {
			case sig == unix.SIGUSR1:
				_ = unix.Kill(-pid, unix.SIGKILL)
			case !termed: // once: a restarted daemon asks again
				termed = true
				_ = unix.Kill(-pid, unix.SIGTERM)
			}
		case <-exited:
			waiting = false
		}
	}
}

// checkOwnDir refuses a directory that is a link, is not the shim's
// user's, or that others may write: a root shim works only in its own.
func checkOwnDir(dir string) error {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return fmt.Errorf("%s belongs to uid %d with mode %o: the shim works only in its own user's directories", dir, st.Uid, st.Mode&0o7777)
	}
	return nil
}

func readSpec(runDir string) (*Spec, error) {
	f, err := os.OpenFile(filepath.Join(runDir, specFile), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var spec Spec
	if err := json.NewDecoder(io.LimitReader(f, 16<<20)).Decode(&spec); err != nil {
		return nil, fmt.Errorf("%s: %w", specFile, err)
	}
	if len(spec.Command) == 0 {
		return nil, fmt.Errorf("%s: no command", specFile)
	}
	return &spec, nil
}

// openLogs opens the job's stdout and stderr for appending, in its job
// directory (the daemon's own: no link can be planted there), and gives
// them to the job's user so that the job may open /dev/stdout again.
func openLogs(jobDir string, spec *Spec) (stdout, stderr *os.File, err error) {
	open := func(name string) (*os.File, error) {
		path := filepath.Join(jobDir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			f.Close()
			return nil, err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || (int(st.Uid) != os.Geteuid() && int(st.Uid) != spec.UID) {
			f.Close()
			return nil, fmt.Errorf("%s is not a plain file of the job's own (links %d, uid %d)", path, st.Nlink, st.Uid)
		}
		if spec.UID > 0 && int(st.Uid) != spec.UID {
			if err := unix.Fchown(int(f.Fd()), spec.UID, spec.GID); err != nil {
				f.Close()
				return nil, err
			}
		}
		return f, nil
	}
	if stdout, err = open("stdout"); err != nil {
		return nil, nil, err
	}
	if stderr, err = open("stderr"); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// jobCommand is the job's command with its user, groups, environment and
// working directory. The program is looked up in the job's PATH, not the
// shim's; the kernel runs it as the job's user (credentials are set before
// the working directory is entered and the program executed).
func jobCommand(spec *Spec, stdout, stderr *os.File) (*exec.Cmd, error) {
	path := spec.Command[0]
	if !strings.Contains(path, "/") {
		var err error
		if path, err = lookPath(path, envValue(spec.Env, "PATH")); err != nil {
			return nil, err
		}
	}
	cmd := &exec.Cmd{Path: path, Args: spec.Command, Dir: spec.Dir, Env: spec.Env, Stdout: stdout, Stderr: stderr}
	// Its own group, so a stop reaches all of it; killed if the shim dies
	// before it could record the job's pid.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if spec.UID > 0 {
		groups := make([]uint32, len(spec.Groups))
		for i, g := range spec.Groups {
			groups[i] = uint32(g)
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(spec.UID), Gid: uint32(spec.GID), Groups: groups}
	}
	return cmd, nil
}

func lookPath(name, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) { // "" and relative entries would name the shim's directory
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found in the job's PATH (%s)", name, path)
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// startError says why the job could not start, naming the working
// directory when that is what failed (exec alone would blame the program).
func startError(spec *Spec, err error) error {
	if fi, serr := os.Stat(spec.Dir); serr != nil {
		return fmt.Errorf("working directory %s: %w", spec.Dir, serr)
	} else if !fi.IsDir() {
		return fmt.Errorf("working directory %s is not a directory", spec.Dir)
	}
	return fmt.Errorf("cannot start %q in %s: %w", spec.Command[0], spec.Dir, err)
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

func unixNano(n int64) time.Time { return time.Unix(0, n).UTC() }
