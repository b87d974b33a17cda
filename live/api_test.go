package live

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func serveOn(t *testing.T, access *Access) *Client {
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
	srv := &Server{C: h.c, Access: access, Logs: func(string) (string, string) { return "", "" }}
	go srv.Serve(l)
	return NewClient(sock)
}

// The caller is who the socket's peer credentials say: with no live
// section only the daemon's own user gets in; anyone else is refused.
func TestSocketAdmitsOnlyTheUsersItsPeerCredentialsAllow(t *testing.T) {
	c := serveOn(t, &Access{Self: os.Getuid() + 1})
	err := c.Do("GET", "/v1/jobs", nil, nil)
	want := "uid " + strconv.Itoa(os.Getuid()) + " may not use this daemon"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("refused caller got %v, want %q", err, want)
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

// A user may submit only to its teams, and cancel or read the logs only of
// its own jobs, unless it administers the job's team or the machine.
func TestUsersActOnlyOnTheirTeamsAndJobs(t *testing.T) {
	const alice, bob, carol, dave, stranger = 1001, 1002, 1003, 1004, 1009
	h := newHarness(t)
	srv := &Server{C: h.c, Logs: func(string) (string, string) { return "/dev/null", "/dev/null" }, Access: &Access{Self: 0,
		GroupsOf: func(uid int) []int {
			if uid == dave {
				return []int{500}
			}
			return nil
		},
		Rules: []Rule{
			{UID: alice, GID: -1, Teams: []string{"a"}},
			{UID: bob, GID: -1, Teams: []string{"b"}},
			{UID: carol, GID: -1, Teams: []string{"b"}, Admin: true},
			{UID: -1, GID: 500, Admin: true},
		}}}
	do := func(uid int, method, path, body string) (int, string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req = req.WithContext(context.WithValue(req.Context(), peerKey{}, uid))
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	submit := func(team string) string {
		return `{"team":"` + team + `","priority_class":"low","accelerators":1,"command":["x"]}`
	}
	if code, body := do(alice, "POST", "/v1/jobs", submit("b")); code != http.StatusForbidden || !strings.Contains(body, `may not submit to team \"b\"`) {
		t.Errorf("alice submitting to b: %d %s", code, body)
	}
	if code, body := do(bob, "POST", "/v1/jobs", submit("b")); code != http.StatusCreated {
		t.Fatalf("bob submitting to b: %d %s", code, body)
	}
	if code, _ := do(stranger, "GET", "/v1/jobs", ""); code != http.StatusForbidden {
		t.Errorf("a user no rule names got %d, want 403", code)
	}
	for _, c := range []struct {
		uid  int
		who  string
		want int
	}{
		{alice, "alice, of another team", http.StatusForbidden},
		{carol, "carol, team b's admin", http.StatusOK},
		{dave, "dave, a machine admin by group", http.StatusOK},
		{bob, "bob, its owner", http.StatusOK},
	} {
		if code, body := do(c.uid, "GET", "/v1/jobs/1/logs", ""); code != c.want {
			t.Errorf("%s reading job 1's logs: %d %s, want %d", c.who, code, body, c.want)
		}
	}
	if code, body := do(alice, "POST", "/v1/jobs/1/cancel", ""); code != http.StatusForbidden || !strings.Contains(body, "may not cancel job 1") {
		t.Errorf("alice cancelling bob's job: %d %s", code, body)
	}
	if j, _ := h.c.Job("1"); j.State != StateRunning {
		t.Errorf("job 1 is %s after a refused cancel, want running", j.State)
	}
	if code, body := do(carol, "POST", "/v1/jobs/1/cancel", ""); code != http.StatusOK {
		t.Errorf("carol, team b's admin, cancelling: %d %s", code, body)
	}
}
