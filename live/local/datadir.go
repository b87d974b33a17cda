package local

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// CheckDataDir makes sure no one but the daemon's user and root can
// change the data directory or any directory above it: the daemon works
// through those paths (as root, for every user's jobs). The directory
// itself is the daemon's (others get no write on it); each directory
// above is root's or the daemon user's, and not writable by others unless
// sticky (as /tmp, where others cannot rename what is not theirs).
func CheckDataDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	me := os.Geteuid()
	fi, err := os.Lstat(real)
	if err != nil {
		return err
	}
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != me {
		return fmt.Errorf("data directory %s belongs to uid %d, not the daemon's uid %d", dir, st.Uid, me)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		if err := os.Chmod(real, fi.Mode().Perm()&^0o022); err != nil {
			return err
		}
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != 0 && int(st.Uid) != me {
			return fmt.Errorf("data directory %s: %s belongs to uid %d, who could move it: use a data directory whose parents only root or the daemon's user own", dir, p, st.Uid)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
			return fmt.Errorf("data directory %s: %s is writable by others (mode %o): use a data directory whose parents only root or the daemon's user can change", dir, p, fi.Mode().Perm())
		}
		if p == "/" {
			return nil
		}
	}
}
