package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
)

// gatedJob is a job that says which run it is, saves "term" on SIGTERM
// (its checkpoint) and exits 143, and otherwise runs until the test
// creates its gate file.
const gatedJob = `echo "start $ALLOT_RESTART_COUNT"; trap 'echo term; exit 143' TERM; while [ ! -f "$0" ]; do sleep 0.02; done; echo done`

func (d *daemon) submitGated(team, class string, acc int, gate string, more ...string) string {
	d.t.Helper()
	args := append([]string{"submit", "--team", team, "--priority", class, "--accelerators", strconv.Itoa(acc)}, more...)
	out, errs, code := d.cli(append(args, "--", "sh", "-c", gatedJob, gate)...)
	if code != 0 {
		d.t.Fatalf("submit: %d %s", code, errs)
	}
	return strings.TrimSpace(out)
}

func openGate(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (d *daemon) run1(id string) local.Run {
	r, _ := local.ReadRun(filepath.Join(d.dir, "jobs", id, "run-1"))
	return r
}

// A shim killed with SIGKILL is noticed at once: what is left of its run
// is killed, the job is requeued and runs again as its next run, and no
// process of the first run is left holding its devices.
func TestKilledShimIsNoticedItsRunKilledAndTheJobRunAgainOnce(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	gate := filepath.Join(t.TempDir(), "go")
	id := d.submitGated("research", "low", 2, gate)
	d.waitState(id, live.StateRunning, 10*time.Second)
	waitFor(t, "run 1 recorded", 10*time.Second, func() bool { return d.run1(id).Phase == "running" })
	// The job itself must have started too, or the kill may land before
	// its first line and the test would read a loaded machine as a fault.
	waitFor(t, "run 1's first line", 10*time.Second, func() bool { return strings.Contains(d.stdout(id), "start 0") })
	if err := syscall.Kill(d.run1(id).Shim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the job's second run", 10*time.Second, func() bool { return strings.Contains(d.stdout(id), "start 1") })
	if procs := jobProcs(d.dir)[id]; len(procs) == 0 || procs[0] != 1 {
		t.Errorf("processes of job %s by restart: %v, want run 2's only", id, procs)
	}
	openGate(t, gate)
	d.waitState(id, live.StateSucceeded, 10*time.Second)
	if out := d.stdout(id); out != "start 0\nstart 1\ndone\n" {
		t.Errorf("job wrote %q, want runs 1 and 2, each started once", out)
	}
	desc, _, _ := d.cli("describe", id)
	if !strings.Contains(desc, "its supervisor died") {
		t.Errorf("describe does not say the run was lost:\n%s", desc)
	}
	d.checkInvariants(id)
}

// A daemon killed after writing a stop and before signalling it sends the
// SIGTERM when it comes back, within the job's grace period, so the job
// checkpoints rather than being killed: for a cancel, and for a
// preemption written in a plan.
func TestDaemonKilledBetweenDecisionAndSignalSignalsAfterRestart(t *testing.T) {
	for _, c := range []struct {
		failpoint string
		victim    string // the job stopped
		final     string
	}{
		{"stop-recorded", "cancel", live.StateCancelled},
		{"stop-decided", "preempt", live.StatePending},
	} {
		t.Run(c.failpoint, func(t *testing.T) {
			d := newDaemonWith(t, liveConfigPath(t), nil, "ALLOT_FAILPOINTS="+c.failpoint)
			gate := filepath.Join(t.TempDir(), "go")
			id := d.submitGated("research", "low", 4, gate)
			d.waitState(id, live.StateRunning, 10*time.Second)
			waitFor(t, "the job running", 10*time.Second, func() bool { return strings.Contains(d.stdout(id), "start 0") })
			acked := []string{id}
			if c.victim == "cancel" {
				d.cli("cancel", id) // the daemon dies before it answers
			} else {
				// prod reclaims its quota: a plan preempting id, written, then the crash.
				out, _, _ := d.cli("submit", "--team", "prod", "--priority", "high", "--accelerators", "2", "--", "sh", "-c", gatedJob, gate)
				if id2 := strings.TrimSpace(out); id2 != "" {
					acked = append(acked, id2)
				}
			}
			if err := d.cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("daemon with failpoint %s: %v, want it killed there", c.failpoint, err)
			}
			d.cmd = nil
			if strings.Contains(d.stdout(id), "term") {
				t.Fatal("the job got SIGTERM before the crash: the failpoint is in the wrong place")
			}
			d.env = nil
			d.start()
			waitFor(t, "the job's SIGTERM after the restart", 10*time.Second, func() bool { return strings.Contains(d.stdout(id), "term") })
			v := d.waitState(id, map[string]string{"cancel": live.StateCancelled, "preempt": live.StatePreempted}[c.victim], 10*time.Second)
			if v.ExitCode != nil && *v.ExitCode == 137 {
				t.Errorf("the job was killed, not stopped: exit %d", *v.ExitCode)
			}
			if out := d.stdout(id); out != "start 0\nterm\n" {
				t.Errorf("job wrote %q, want one run stopped by SIGTERM", out)
			}
			openGate(t, gate)
			d.checkInvariants(acked...)
		})
	}
}

// On a full data filesystem nothing acknowledged is lost and nothing runs
// twice: a submission the store cannot take is refused (and never runs); a
// job that ends meanwhile has its end recorded in the space its shim
// reserved, and is settled once, also across a daemon killed while the
// disk is full.
func TestFullDiskLosesNoAcknowledgedJobAndRunsNoneTwice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a small filesystem to fill needs root (mount -t tmpfs)")
	}
	mnt, err := os.MkdirTemp("", "allot-full")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
		os.Remove(mnt)
		t.Skipf("cannot mount a small filesystem: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run(); os.Remove(mnt) })
	d := newDaemonIn(t, liveConfigPath(t), mnt)
	gates := t.TempDir()
	a := d.submitGated("research", "low", 2, filepath.Join(gates, "a"))
	d.waitState(a, live.StateRunning, 10*time.Second)
	waitFor(t, "run recorded", 10*time.Second, func() bool { return d.run1(a).Phase == "running" })
	waitFor(t, "job a's first line", 10*time.Second, func() bool { return strings.Contains(d.stdout(a), "start 0") })

	filler := filepath.Join(mnt, "filler")
	fill(t, filler)
	big := strings.Repeat("#", 200<<10) // needs pages the store does not have
	_, errs, code := d.cli("submit", "--team", "prod", "--priority", "low", "--accelerators", "1", "--", "sh", "-c", "echo never "+big)
	if code == 0 || !strings.Contains(errs, "no space left on device") {
		t.Fatalf("submit on a full disk: exit %d %s, want refused for want of space", code, errs)
	}
	openGate(t, filepath.Join(gates, "a"))
	waitFor(t, "job a's end recorded on the full disk", 10*time.Second, func() bool { return d.run1(a).Phase == "exited" })
	d.kill9()
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	d.start()
	d.waitState(a, live.StateSucceeded, 10*time.Second)
	b := d.submitGated("prod", "low", 1, filepath.Join(gates, "b"))
	openGate(t, filepath.Join(gates, "b"))
	d.waitState(b, live.StateSucceeded, 10*time.Second)
	jobs := d.jobs()
	if len(jobs) != 2 {
		t.Errorf("jobs %v, want a and b only: the refused submission must not exist", jobs)
	}
	for _, id := range []string{a, b} {
		if out := d.stdout(id); out != "start 0\ndone\n" {
			t.Errorf("job %s wrote %q, want one run", id, out)
		}
	}
	d.checkInvariants(a, b)
}

// fill writes path until the filesystem is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
}

// A damaged store is refused before anything is written to it, with an
// error naming the file and how to restore it, never a panic: empty,
// truncated, and with garbage over its pages. A backup taken while the
// daemon ran checks sound and, put back, restores its history.
func TestDamagedStoreIsRefusedAndABackupRestoresIt(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	gate := filepath.Join(t.TempDir(), "go")
	openGate(t, gate)
	for range 20 { // a store of several pages
		id := d.submitGated("research", "low", 1, gate, "--name", strings.Repeat("j", 100))
		d.waitState(id, live.StateSucceeded, 10*time.Second)
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	if _, errs, code := d.cli("live", "backup", "-o", backup); code != 0 {
		t.Fatalf("backup: %d %s", code, errs)
	}
	d.kill9()
	store := filepath.Join(d.dir, "state.db")
	good, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte{0xA5}, 3*4096)
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"empty", func([]byte) []byte { return nil }, "it is empty (0 bytes)"},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, "it is truncated"},
		{"garbage pages", func(b []byte) []byte {
			out := bytes.Clone(b)
			copy(out[2*4096:], garbage)
			return out
		}, "state.db: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := c.damage(good)
			if err := os.WriteFile(store, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			exe, _ := os.Executable()
			cmd := exec.Command(exe, "live", "serve", "--config", d.cfg, "--data-dir", d.dir)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Errorf("daemon on a %s store: %v, want exit 2 (bad input)", c.name, err)
			}
			msg := out.String()
			if !strings.Contains(msg, store+": ") || !strings.Contains(msg, c.want) || !strings.Contains(msg, "allot live backup") ||
				strings.Contains(msg, "goroutine ") || strings.Contains(msg, "panic") {
				t.Errorf("daemon on a %s store said:\n%s", c.name, msg)
			}
			if now, _ := os.ReadFile(store); !bytes.Equal(now, bad) {
				t.Errorf("the refused daemon changed the %s store", c.name)
			}
		})
	}
	var o, e bytes.Buffer
	if code := run([]string{"live", "check-store", backup}, &o, &e); code != 0 || !strings.Contains(o.String(), "sound") {
		t.Fatalf("check-store on the backup: %d %s %s", code, o.String(), e.String())
	}
	data, _ := os.ReadFile(backup)
	if err := os.WriteFile(store, data, 0o600); err != nil {
		t.Fatal(err)
	}
	d.start()
	if n := len(d.jobs()); n != 20 {
		t.Errorf("%d jobs after restoring the backup, want 20", n)
	}
}

// What the configuration gets wrong is found before the store is opened:
// no store is made and no job started by a daemon that then refuses to
// run. A second daemon on a data directory names the first.
func TestDaemonConfigErrorsAreFoundBeforeItsStoreIsOpened(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	badGroup := filepath.Join(t.TempDir(), "bad-group.yaml")
	base, _ := os.ReadFile(liveConfigPath(t))
	if err := os.WriteFile(badGroup, append(base, "\nlive:\n  socket_group: no-such-group-allot\n  access:\n    - {user: root, admin: true}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"socket group", []string{"--config", badGroup}, "live.socket_group"},
		{"http address", []string{"--config", liveConfigPath(t), "--http", taken.Addr().String()}, "--http " + taken.Addr().String()},
		{"log format", []string{"--config", liveConfigPath(t), "--log-format", "xml"}, `--log-format "xml"`},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		var o, e bytes.Buffer
		code := run(append([]string{"live", "serve", "--data-dir", dir}, c.args...), &o, &e)
		if code != 2 || !strings.Contains(e.String(), c.want) {
			t.Errorf("%s: exit %d %s, want 2 naming %s", c.name, code, e.String(), c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "state.db")); err == nil {
			t.Errorf("%s: the refused daemon made a store", c.name)
		}
	}
	d := newDaemon(t, liveConfigPath(t))
	var o, e bytes.Buffer
	code := run([]string{"live", "serve", "--config", liveConfigPath(t), "--data-dir", d.dir}, &o, &e)
	if want := "another daemon (pid " + strconv.Itoa(d.cmd.Process.Pid) + ") uses " + d.dir; code != 2 || !strings.Contains(e.String(), want) {
		t.Errorf("second daemon: exit %d %s, want %q", code, e.String(), want)
	}
}

// The daemon logs every decision with the job's id, as text or JSON.
func TestDaemonLogsEachDecisionWithTheJobsID(t *testing.T) {
	d := newDaemonWith(t, liveConfigPath(t), []string{"--log-format", "json"})
	gate := filepath.Join(t.TempDir(), "go")
	openGate(t, gate)
	id := d.submitGated("research", "low", 1, gate)
	d.waitState(id, live.StateSucceeded, 10*time.Second)
	d.kill9()
	kinds := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(d.log.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["job"] == id {
			kinds[rec["msg"].(string)] = true
		}
	}
	for _, k := range []string{"submitted", "admitted", "exited", "succeeded"} {
		if !kinds[k] {
			t.Errorf("no %q log line for job %s:\n%s", k, id, d.log.String())
		}
	}
}
