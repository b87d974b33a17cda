package liveconf

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/cmd/internal/errtext"
)

const twoTeams = "../../../scenarios/live/two-teams.yaml"

// The daemon is made from the flags as allot live serve runs it: its
// directory, poll, retention (a scenario duration), the dashboard page,
// and the dashboard's listener on 127.0.0.1 when --http names no host.
func TestLocalDaemonIsMadeFromTheFlags(t *testing.T) {
	dir := t.TempDir()
	d, err := LocalDaemon(ServeOptions{Config: twoTeams, DataDir: dir, HTTP: ":0", Retain: "30d", Poll: time.Second, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer d.HTTP.Close()
	if d.DataDir != dir || d.Poll != time.Second || d.Retain != 30*24*time.Hour || d.Page == nil || d.Log == nil || d.Config == nil {
		t.Errorf("daemon %+v", d)
	}
	if addr := d.HTTP.Addr().String(); !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("--http :0 listens on %s, want 127.0.0.1", addr)
	}
	if d.Socket != "" {
		t.Errorf("socket %q with --data-dir, want the data directory's", d.Socket)
	}
}

// Each flag that is wrong is refused, before any store is opened: a
// usage error for a flag left out or a value of the wrong form, the
// input's for the rest.
func TestLocalDaemonRefusesEachBadFlag(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		o     ServeOptions
		usage bool
		want  string
	}{
		{ServeOptions{}, true, "--config FILE is required"},
		{ServeOptions{Config: twoTeams, DataDir: dir, Retain: "never"}, true, `--retain "never": want a duration such as 30d`},
		{ServeOptions{Config: twoTeams, DataDir: dir, Retain: "0s"}, true, `--retain "0s": want a duration such as 30d`},
		{ServeOptions{Config: twoTeams, DataDir: dir, LogFormat: "xml"}, false, `--log-format "xml": want text or json`},
		{ServeOptions{Config: dir + "/none.yaml", DataDir: dir}, false, "open " + dir + "/none.yaml"},
		{ServeOptions{Config: twoTeams, DataDir: dir, HTTP: "256.0.0.1:1"}, false, "--http 256.0.0.1:1: "},
	} {
		c.o.Stderr = io.Discard
		_, err := LocalDaemon(c.o)
		var (
			ue *errtext.UsageError
			ie *errtext.InputError
		)
		if c.usage && !errors.As(err, &ue) || !c.usage && !errors.As(err, &ie) || err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q (usage %v)", c.o, err, c.want, c.usage)
		}
	}
}
