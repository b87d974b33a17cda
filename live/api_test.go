package live

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func serveOn(t *testing.T, allowed func(int) bool) *Client {
	t.Helper()
	h := newHarness(t)
	dir, err := os.MkdirTemp("", "allot-api")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	srv := &Server{C: h.c, Allowed: allowed, Logs: func(string) (string, string) { return "", "" }}
	go srv.Serve(l)
	return NewClient(sock)
}

// The caller is who the socket's peer credentials say: with no live
// section only the daemon's own user gets in; anyone else is refused.
func TestSocketAdmitsOnlyTheUsersItsPeerCredentialsAllow(t *testing.T) {
	var seen []int
	c := serveOn(t, func(uid int) bool { seen = append(seen, uid); return false })
	err := c.Do("GET", "/v1/jobs", nil, nil)
	want := "uid " + strconv.Itoa(os.Getuid()) + " may not use this daemon"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("refused caller got %v, want %q", err, want)
	}
	if len(seen) != 1 || seen[0] != os.Getuid() {
		t.Errorf("peer uids seen %v, want [%d]", seen, os.Getuid())
	}

	own := serveOn(t, nil)
	var id struct{ ID string }
	if err := own.Do("POST", "/v1/jobs", &Request{Team: "a", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}}, &id); err != nil || id.ID != "1" {
		t.Fatalf("the daemon's own user: %v %q", err, id.ID)
	}
	var jobs []View
	if err := own.Do("GET", "/v1/jobs", nil, &jobs); err != nil || len(jobs) != 1 || jobs[0].UID != os.Getuid() {
		t.Errorf("jobs %+v %v: want one, owned by uid %d", jobs, err, os.Getuid())
	}
}
