package local

import (
	"bufio"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/allot-sim/allot/live"
)

// account is what a job inherits from its user's entry in the user
// database, as login(1) would set it up: ids, supplementary groups and the
// login environment. Nothing comes from the daemon's own environment.
type account struct {
	uid, gid int
	groups   []int
	env      []string
}

// defaultPath is PATH when /etc/login.defs sets none (login(1)'s own).
const (
	defaultPath     = "/usr/local/bin:/usr/bin:/bin"
	defaultRootPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

func lookupAccount(uid int) (*account, error) {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return nil, fmt.Errorf("uid %d has no account on this machine: %w", uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("uid %d: primary group %q: %w", uid, u.Gid, err)
	}
	a := &account{uid: uid, gid: gid}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("uid %d: groups: %w", uid, err)
	}
	for _, s := range ids {
		if g, err := strconv.Atoi(s); err == nil {
			a.groups = append(a.groups, g)
		}
	}
	shell := loginShell(u.Username)
	path := loginPath(uid == 0)
	a.env = []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "LOGNAME=" + u.Username, "SHELL=" + shell, "PATH=" + path}
	return a, nil
}

// loginShell is the user's shell from /etc/passwd (os/user does not say);
// /bin/sh when it cannot be read.
func loginShell(name string) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return "/bin/sh"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), ":")
		if len(parts) == 7 && parts[0] == name && parts[6] != "" {
			return parts[6]
		}
	}
	return "/bin/sh"
}

// loginPath is ENV_PATH (ENV_SUPATH for root) of /etc/login.defs, as
// login(1) sets it.
func loginPath(root bool) string {
	key, path := "ENV_PATH", defaultPath
	if root {
		key, path = "ENV_SUPATH", defaultRootPath
	}
	f, err := os.Open("/etc/login.defs")
	if err != nil {
		return path
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == key {
			return strings.TrimPrefix(fields[1], "PATH=")
		}
	}
	return path
}

// CheckJob checks what the daemon can tell of a job before it is
// queued: that its user has an account here, and that the user can reach
// its working directory (else it would fail later as a misleading exec
// error).
func (b *Backend) CheckJob(req *live.Request, uid int) error {
	run := os.Geteuid()
	if run == 0 {
		run = uid
	}
	a, err := lookupAccount(run)
	if err != nil {
		return err
	}
	if req.Dir == "" {
		return nil
	}
	if err := a.canEnter(req.Dir); err != nil {
		return fmt.Errorf("working directory %s: %w", req.Dir, err)
	}
	return nil
}

// canEnter says whether the account may enter dir: it exists, is a
// directory, and every directory on the way is searchable by it.
func (a *account) canEnter(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("not an absolute path")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("not a directory")
	}
	if a.uid == 0 {
		return nil
	}
	var way []string // from / down to dir
	for p := dir; ; p = filepath.Dir(p) {
		way = append(way, p)
		if p == "/" {
			break
		}
	}
	for i := len(way) - 1; i >= 0; i-- {
		fi, err := os.Stat(way[i])
		if err != nil {
			return err
		}
		if !a.may(fi, 0o1) {
			return fmt.Errorf("uid %d may not enter %s (mode %o)", a.uid, way[i], fi.Mode().Perm())
		}
	}
	return nil
}

// may says whether the account has permission bit (1 x, 2 w, 4 r) on fi.
func (a *account) may(fi os.FileInfo, bit os.FileMode) bool {
	st := fi.Sys().(*syscall.Stat_t)
	perm := fi.Mode().Perm()
	switch {
	case int(st.Uid) == a.uid:
		return perm&(bit<<6) != 0
	case int(st.Gid) == a.gid || slices.Contains(a.groups, int(st.Gid)):
		return perm&(bit<<3) != 0
	}
	return perm&bit != 0
}
