package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// osUser is a real, unprivileged account a test made for itself.
type osUser struct {
	name     string
	uid, gid int
	groups   []int
}

// testUsers creates n throw-away users (each with a group of its own, and
// a shared supplementary group), removed when the test ends. It skips the
// test where the machine cannot: not root, or no useradd.
func testUsers(t *testing.T, n int) []osUser {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("real users need root: run the live security tests as root")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("no useradd on this machine:", err)
	}
	tag := make([]byte, 3)
	_, _ = rand.Read(tag)
	shared := "allotg" + hex.EncodeToString(tag)
	if out, err := exec.Command("groupadd", shared).CombinedOutput(); err != nil {
		t.Skipf("groupadd: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("groupdel", shared).Run() })
	var us []osUser
	for i := range n {
		name := fmt.Sprintf("allot%s%d", hex.EncodeToString(tag), i)
		if out, err := exec.Command("useradd", "--no-create-home", "--user-group", "--shell", "/bin/sh", "--groups", shared, name).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v: %s", name, err, out)
		}
		t.Cleanup(func() { _ = exec.Command("userdel", "--force", name).Run() })
		u, err := user.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ou := osUser{name: name}
		ou.uid, _ = strconv.Atoi(u.Uid)
		ou.gid, _ = strconv.Atoi(u.Gid)
		ids, _ := u.GroupIds()
		for _, s := range ids {
			g, _ := strconv.Atoi(s)
			ou.groups = append(ou.groups, g)
		}
		us = append(us, ou)
	}
	return us
}

// binForUsers is a copy of this test binary (which acts as allot) that
// other users can run: go test keeps its own under a directory of root's.
func binForUsers(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "allot-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, "allot")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// as runs a command as u, from /tmp, with a minimal environment.
func (u osUser) run(t *testing.T, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = "/tmp"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C"}
	groups := make([]uint32, len(u.groups))
	for i, g := range u.groups {
		groups[i] = uint32(g)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid), Groups: groups}}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s as %s: %v", name, u.name, err)
	}
	return o.String(), e.String(), 0
}

// liveConfigWithAccess is two-teams.yaml with a live section: a socket
// everyone can reach, and the given access rules.
func liveConfigWithAccess(t *testing.T, rules ...string) string {
	t.Helper()
	base, err := os.ReadFile(liveConfigPath(t))
	if err != nil {
		t.Fatal(err)
	}
	text := string(base) + "\nlive:\n  socket_mode: \"0666\"\n  access:\n"
	for _, r := range rules {
		text += "    - " + r + "\n"
	}
	dir, err := os.MkdirTemp("", "allot-cfg") // readable by the test's users
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "live.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// jobProcs lists, by job id, the restart counts of the processes running
// for the daemon in dataDir (read from each process's environment).
func jobProcs(dataDir string) map[string][]int {
	out := map[string][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		var id, ck string
		restart := -1
		for _, kv := range strings.Split(string(data), "\x00") {
			switch k, v, _ := strings.Cut(kv, "="); k {
			case "ALLOT_JOB_ID":
				id = v
			case "ALLOT_CHECKPOINT_DIR":
				ck = v
			case "ALLOT_RESTART_COUNT":
				restart, _ = strconv.Atoi(v)
			}
		}
		if id != "" && strings.HasPrefix(ck, dataDir+string(filepath.Separator)) {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
				if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'Z' {
					continue // a zombie holds nothing
				}
			}
			out[id] = append(out[id], restart)
		}
	}
	return out
}

// checkInvariants asserts what must hold after any fault: every
// acknowledged job present exactly once; the history's invariants (no job
// running twice at once, no device held by two jobs, states agreeing with
// the history); and no process left running for a job the books say is
// not running, nor for any run of a running job but its current one.
func (d *daemon) checkInvariants(acked ...string) {
	d.t.Helper()
	out, errs, code := d.cli("jobs", "--all-teams", "--json")
	if code != 0 {
		d.t.Fatalf("jobs: %d %s", code, errs)
	}
	var vs []live.View
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		d.t.Fatal(err)
	}
	seen := map[string]int{}
	byID := map[string]live.View{}
	for _, v := range vs {
		seen[v.ID]++
		byID[v.ID] = v
	}
	for _, id := range acked {
		if seen[id] != 1 {
			d.t.Errorf("acknowledged job %s is listed %d times, want once", id, seen[id])
		}
	}
	var h live.History
	if err := live.NewClient(d.sock).Do("GET", "/v1/history", nil, &h); err != nil {
		d.t.Fatal(err)
	}
	if err := live.CheckHistory(&h); err != nil {
		d.t.Errorf("live history breaks an invariant: %v", err)
	}
	var procs map[string][]int
	ok := func() bool {
		procs = jobProcs(d.dir)
		for id, restarts := range procs {
			v := byID[id]
			if v.State != live.StateRunning {
				return false
			}
			for _, r := range restarts {
				if r != v.Restarts {
					return false
				}
			}
		}
		return true
	}
	deadline := time.Now().Add(5 * time.Second) // a stop being carried out
	for !ok() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for id, restarts := range procs {
		if v := byID[id]; v.State != live.StateRunning || restarts[0] != v.Restarts {
			d.t.Errorf("job %s is %s (restart %d) in the books, yet processes of its restarts %v run", id, v.State, v.Restarts, restarts)
		}
	}
}
