package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// statusFile is a run's record of itself, written by the shim (or by a
// restarted daemon that claims a run no shim started). It lives in the
// run's directory, which only the daemon's user can write: the job's user
// can neither forge it nor point it elsewhere.
const statusFile = "status"

// statusSize is the record's fixed size. The shim writes the whole record
// in place at offset 0 each time, so after the first write no update needs
// a new block: a full disk cannot keep a run's exit from being recorded.
const statusSize = 512

// Phases of a run.
const (
	phaseClaimed   = "claimed"   // the shim owns the run; the job is not started yet
	phaseRunning   = "running"   // the job runs as process group Pid
	phaseExited    = "exited"    // the job's group is gone; Code says how it ended
	phaseAbandoned = "abandoned" // a restarted daemon claimed a run no shim had: never to start
)

// status is the record. Start times are in clock ticks since boot
// (/proc/PID/stat's starttime): with the pid they name one process, never a
// later one that reuses the number.
type status struct {
	Phase     string `json:"phase"`
	Shim      int    `json:"shim,omitempty"`
	ShimStart uint64 `json:"shim_start,omitempty"`
	Pid       int    `json:"pid,omitempty"`
	PidStart  uint64 `json:"pid_start,omitempty"`
	Started   int64  `json:"started,omitempty"` // Unix ns
	Ended     int64  `json:"ended,omitempty"`   // Unix ns
	Code      int    `json:"code"`
	Signal    string `json:"signal,omitempty"`
	Error     string `json:"error,omitempty"`
}

// encode is the record padded to statusSize.
func (s *status) encode() ([]byte, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if len(data) >= statusSize {
		// Only Error grows: shorten it rather than lose the record.
		cp := *s
		cp.Error = cp.Error[:max(0, len(cp.Error)-(len(data)-statusSize+1))]
		if data, err = json.Marshal(&cp); err != nil || len(data) >= statusSize {
			return nil, fmt.Errorf("status record over %d bytes", statusSize)
		}
	}
	buf := bytes.Repeat([]byte{' '}, statusSize)
	copy(buf, data)
	buf[statusSize-1] = '\n'
	return buf, nil
}

// write puts the record at offset 0 of f and syncs it.
func (s *status) write(f *os.File) error {
	buf, err := s.encode()
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(buf, 0); err != nil {
		return err
	}
	return f.Sync()
}

// createStatus claims a run: it creates the record (failing if one exists),
// writes s into it and syncs the file and its directory. Nothing follows a
// link: the run directory is the daemon's own.
func createStatus(runDir string, s *status) (*os.File, error) {
	f, err := os.OpenFile(runDir+"/"+statusFile, os.O_RDWR|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := s.write(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncDir(runDir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readStatus reads a run's record; ok is false when there is none, or
// none readable yet (a claim whose first write did not finish).
func readStatus(runDir string) (s status, ok bool, err error) {
	f, err := os.OpenFile(runDir+"/"+statusFile, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	defer f.Close()
	buf := make([]byte, statusSize)
	n, err := f.ReadAt(buf, 0)
	if err != nil && n == 0 {
		return s, false, nil
	}
	data := bytes.TrimRight(buf[:n], " \n\x00")
	if len(data) == 0 {
		return s, false, nil
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, false, nil
	}
	return s, true, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Run is what a run's record says, for tools and tests.
type Run struct {
	Phase string // claimed, running, exited or abandoned; "" when there is no record
	Shim  int    // the shim's pid
	Pid   int    // the job's process group
}

// ReadRun reads the record of the run in runDir.
func ReadRun(runDir string) (Run, error) {
	s, ok, err := readStatus(runDir)
	if err != nil || !ok {
		return Run{}, err
	}
	return Run{Phase: s.Phase, Shim: s.Shim, Pid: s.Pid}, nil
}

// KillRuns kills every job's process group still running under dataDir
// (what a throw-away daemon leaves behind: allot live replay, tests).
func KillRuns(dataDir string) {
	runs, _ := filepath.Glob(filepath.Join(dataDir, "jobs", "*", "run-*"))
	for _, rd := range runs {
		if s, ok, _ := readStatus(rd); ok && s.Phase == phaseRunning {
			_ = killGroup(s.Pid, s.PidStart)
		}
	}
}
