package main

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// attacks are what a submitter tried against the root daemon of
// allot 0.x, each of which gave it root: a link planted where the daemon
// or a root shim writes or reads, a spec swapped under the shim, a
// checkpoint directory pointed elsewhere, a pid or an exit forged. Each
// line runs as the job's own user and prints NAME denied when the
// filesystem refused it.
const attacks = `
try() { name=$1; shift; if ( "$@" ) 2>/dev/null; then echo "$name DONE"; else echo "$name denied"; fi; }
try shadow-as-stdout sh -c 'rm -f "$JOBDIR/stdout" && ln -s /etc/shadow "$JOBDIR/stdout"'
try next-run-dir mkdir "$JOBDIR/run-2"
try spec-tmp sh -c 'ln -s /etc/passwd "$RUNDIR/spec.json.tmp"'
try spec-swap sh -c 'echo "{\"command\":[\"id\"]}" > "$RUNDIR/spec.json"'
try checkpoint-link sh -c 'mv "$JOBDIR/checkpoint" "$JOBDIR/old" && ln -s /etc "$JOBDIR/checkpoint"'
try pid-forge sh -c 'echo 1 > "$RUNDIR/pid"'
try exit-forge sh -c 'printf "{\"phase\":\"exited\",\"code\":0}" > "$RUNDIR/status"'
try run-dir-read ls "$RUNDIR"
`

// A user allowed to submit gets nothing of root's: every attack of
// allot 0.x's advisory fails at the filesystem; the job runs as its
// submitter with its groups and a clean environment; another user sees
// its metadata but not its command and cannot cancel it; a process
// group the job names is not signalled; nothing of root's changed.
func TestSubmitterCannotActThroughTheRootDaemon(t *testing.T) {
	us := testUsers(t, 2)
	mallory, bob := us[0], us[1]
	bin := binForUsers(t)
	cfg := liveConfigWithAccess(t, "{user: "+mallory.name+", teams: [research]}", "{user: "+bob.name+", teams: [prod]}")
	d := newDaemonWith(t, cfg, nil, "SECRET_FOR_TEST=hunter2")
	gates, err := os.MkdirTemp("", "allot-gates")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(gates) })
	os.Chmod(gates, 0o755)
	shadow := fileSum(t, "/etc/shadow")

	out, errs, code := mallory.run(t, bin, "submit", "--socket", d.sock, "--team", "research", "--priority", "low", "--accelerators", "4",
		"--", "sh", "-c", `echo "uid $(id -u) groups $(id -G) home $HOME secret [${SECRET_FOR_TEST:-}]"; while [ ! -f "$0" ]; do sleep 0.05; done; echo done`, filepath.Join(gates, "go"))
	if code != 0 {
		t.Fatalf("mallory's submit: %d %s", code, errs)
	}
	id := strings.TrimSpace(out)
	d.waitState(id, live.StateRunning, 10*time.Second)
	jobDir := filepath.Join(d.dir, "jobs", id)
	waitFor(t, "the job's first line", 10*time.Second, func() bool { return strings.Contains(d.stdout(id), "secret") })

	script := "JOBDIR=" + jobDir + " RUNDIR=" + filepath.Join(jobDir, "run-1") + "\n" + attacks
	got, _, _ := mallory.run(t, "/bin/sh", "-c", script)
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if !strings.HasSuffix(line, " denied") {
			t.Errorf("attack %q was not denied", line)
		}
	}
	if n := strings.Count(got, "denied"); n != 8 {
		t.Errorf("%d attacks denied, want 8:\n%s", n, got)
	}

	// The forged exit changed nothing: the job still runs and holds its
	// devices; a job that needs them waits.
	out, _, code = mallory.run(t, bin, "submit", "--socket", d.sock, "--team", "research", "--priority", "low", "--accelerators", "1", "--", "true")
	if code != 0 {
		t.Fatalf("mallory's second submit: %d", code)
	}
	waiting := strings.TrimSpace(out)
	time.Sleep(300 * time.Millisecond)
	if v := d.jobs()[id]; v.State != live.StateRunning {
		t.Errorf("mallory's job is %s after a forged exit, want running", v.State)
	}
	if v := d.jobs()[waiting]; v.State != live.StatePending {
		t.Errorf("mallory's second job is %s while her first holds every device, want pending", v.State)
	}

	// It runs as mallory, with her groups and her account's HOME, and none
	// of the daemon's environment.
	first := strings.SplitN(d.stdout(id), "\n", 2)[0]
	wantGroups := make([]string, 0, len(mallory.groups))
	for _, g := range mallory.groups {
		wantGroups = append(wantGroups, strconv.Itoa(g))
	}
	u, _ := userHome(mallory.name)
	want := "uid " + strconv.Itoa(mallory.uid) + " groups "
	if !strings.HasPrefix(first, want) || !strings.HasSuffix(first, "home "+u+" secret []") {
		t.Errorf("the job said %q, want uid %d, groups %v, home %s and no secret", first, mallory.uid, wantGroups, u)
	}
	for _, g := range wantGroups {
		if !strings.Contains(first, g) {
			t.Errorf("the job's groups %q lack %s", first, g)
		}
	}

	// Logs show the job's output, not a file it named.
	logs, _, _ := mallory.run(t, bin, "logs", "--socket", d.sock, id)
	if strings.Contains(logs, "root:") || !strings.Contains(logs, "secret []") {
		t.Errorf("mallory's logs:\n%s", logs)
	}

	// Bob sees the job, not its command; he may not cancel it or read it.
	desc, _, code := bob.run(t, bin, "describe", "--socket", d.sock, "--json", id)
	if code != 0 || strings.Contains(desc, gates) || !strings.Contains(desc, `"team": "research"`) {
		t.Errorf("bob's describe (exit %d) shows the command or not the job:\n%s", code, desc)
	}
	if _, _, code := bob.run(t, bin, "cancel", "--socket", d.sock, id); code != 2 {
		t.Errorf("bob cancelling mallory's job: exit %d, want 2", code)
	}
	if _, _, code := bob.run(t, bin, "logs", "--socket", d.sock, id); code != 2 {
		t.Errorf("bob reading mallory's logs: exit %d, want 2", code)
	}

	// A process group of root's outlives mallory's cancel.
	victim := exec.Command("sleep", "300")
	victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	if _, _, code := mallory.run(t, bin, "cancel", "--socket", d.sock, id); code != 0 {
		t.Fatalf("mallory cancelling her job: exit %d", code)
	}
	d.waitState(id, live.StateCancelled, 15*time.Second)
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("root's process group %d was signalled by mallory's cancel: %v", victim.Process.Pid, err)
	}
	if fileSum(t, "/etc/shadow") != shadow {
		t.Error("/etc/shadow changed")
	}
	for _, p := range []string{"/etc", jobDir, filepath.Join(jobDir, "run-1")} {
		if fi, err := os.Lstat(p); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 {
			t.Errorf("%s is no longer root's: %v", p, err)
		}
	}
	d.checkInvariants(id, waiting)
}

// A daemon that does not run as root can run jobs only as its own user:
// a configuration giving other users access is refused before anything
// starts, saying why.
func TestNonRootDaemonRefusesAccessRulesForOtherUsers(t *testing.T) {
	us := testUsers(t, 2)
	alice, bob := us[0], us[1]
	bin := binForUsers(t)
	cfg := liveConfigWithAccess(t, "{user: "+bob.name+", teams: [prod]}")
	data := filepath.Join(os.TempDir(), "allot-nonroot-"+alice.name)
	t.Cleanup(func() { os.RemoveAll(data) })
	_, errs, code := alice.run(t, bin, "live", "serve", "--config", cfg, "--data-dir", data)
	if code != 2 || !strings.Contains(errs, "live.access[0]") || !strings.Contains(errs, "can run jobs only as its own user") {
		t.Errorf("non-root daemon with a rule for bob: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(data, "state.db")); err == nil {
		t.Error("the refused daemon opened a store")
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

func userHome(name string) (string, error) {
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, ":"); len(f) == 7 && f[0] == name {
			return f[5], nil
		}
	}
	return "", os.ErrNotExist
}
