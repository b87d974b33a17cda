package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/live"
	bolt "go.etcd.io/bbolt"
)

// OpenStore opens DATA/state.db for the daemon once it is sure the file is
// sound and no other daemon holds it: a damaged store is refused before
// anything is written to it, with how to restore it.
func OpenStore(dataDir string) (*live.Store, error) {
	path := filepath.Join(dataDir, "state.db")
	held := func(pid int) error {
		if pid > 0 {
			return fmt.Errorf("another daemon (pid %d) uses %s: stop it first, or give this one another --data-dir", pid, dataDir)
		}
		return fmt.Errorf("another process holds %s: stop it first, or give this daemon another --data-dir", path)
	}
	if pid, err := live.HeldBy(dataDir); err != nil {
		return nil, err
	} else if pid != 0 {
		return nil, held(pid)
	}
	if err := live.CheckStoreFile(path); err != nil {
		return nil, err
	}
	if err := checkStoreApart(path); err != nil {
		return nil, err
	}
	store, err := live.OpenStore(path)
	if errors.Is(err, bolt.ErrTimeout) {
		pid, _ := live.HeldBy(dataDir)
		return nil, held(pid)
	}
	return store, err
}

// checkStoreApart reads the whole store in a process of its own (`allot
// live check-store`): a file damaged enough to crash its reader crashes
// that process, not the daemon.
func checkStoreApart(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	ck := exec.Command(exe, "live", "check-store", path)
	ck.Stdout, ck.Stderr = &out, &out
	err = ck.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && (ee.ExitCode() == 1 || ee.ExitCode() == 2):
		first, _, _ := strings.Cut(out.String(), "\n")
		return errors.New(strings.TrimPrefix(first, "allot: "))
	case errors.As(err, &ee):
		return &live.StoreDamagedError{Path: path, Why: fmt.Sprintf("reading it crashed the checker (%v)", ee.ProcessState)}
	}
	return fmt.Errorf("check %s: %w", path, err)
}
