package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The read rule: every user the daemon admits sees every job's metadata,
// the overview, the snapshot and the history; a job's command line,
// directory, environment and logs only its owner, its team's admins and
// the machine's admins read; a user no rule names reads nothing. Each
// endpoint, for each role.
func TestEveryAdmittedUserSeesMetadataButOnlyOwnerAndAdminsSeeCommandsAndLogs(t *testing.T) {
	const alice, anne, bob, carol, dave, stranger = 1001, 1005, 1002, 1003, 1004, 1009
	h := newHarness(t)
	logs := filepath.Join(t.TempDir(), "stdout")
	if err := os.WriteFile(logs, []byte("loss 0.1 SECRET-log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := &Server{C: h.c, Logs: func(string) (string, string) { return logs, "/nonexistent" },
		Snapshot: func(c *Controller) ([]byte, error) {
			var b strings.Builder
			for _, v := range c.Jobs(-1) {
				b.WriteString("- {name: job-" + v.ID + ", queue: " + v.Team + "}\n")
			}
			return []byte(b.String()), nil
		},
		Access: &Access{Self: 0,
			GroupsOf: func(uid int) []int {
				if uid == dave {
					return []int{500}
				}
				return nil
			},
			Rules: []Rule{
				{UID: alice, GID: -1, Teams: []string{"a"}},
				{UID: anne, GID: -1, Teams: []string{"a"}},
				{UID: bob, GID: -1, Teams: []string{"b"}},
				{UID: carol, GID: -1, Teams: []string{"a"}, Admin: true},
				{UID: -1, GID: 500, Admin: true},
			}}}
	do := func(uid int, method, path, body string) (int, string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req = req.WithContext(context.WithValue(req.Context(), peerKey{}, uid))
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	code, body := do(alice, "POST", "/v1/jobs", `{"name":"train-run","team":"a","priority_class":"low","accelerators":1,`+
		`"command":["train","--token=SECRET-cmd"],"dir":"/home/alice/SECRET-dir","env":["TOKEN=SECRET-env"]}`)
	if code != http.StatusCreated {
		t.Fatalf("alice's submit: %d %s", code, body)
	}

	type want struct {
		code    int
		secrets bool // the command line (or the log) is in the answer
	}
	var (
		refused = want{http.StatusForbidden, false}
		meta    = want{http.StatusOK, false}
		full    = want{http.StatusOK, true}
	)
	roles := []struct {
		name string
		uid  int
	}{
		{"owner", alice}, {"team member", anne}, {"other team's member", bob},
		{"team admin", carol}, {"machine admin", dave}, {"stranger", stranger},
	}
	endpoints := []struct {
		path string
		want []want // by role, in the order above
	}{
		{"/v1/jobs/1", []want{full, meta, meta, full, full, refused}},
		{"/v1/jobs?all=1", []want{full, meta, meta, full, full, refused}},
		{"/v1/jobs", []want{full, meta, meta, meta, meta, refused}}, // one's own jobs
		{"/v1/jobs/1/logs", []want{full, refused, refused, full, full, refused}},
		{"/v1/overview", []want{meta, meta, meta, meta, meta, refused}},
		{"/v1/snapshot", []want{meta, meta, meta, meta, meta, refused}},
		{"/v1/history", []want{meta, meta, meta, meta, meta, refused}},
	}
	for _, e := range endpoints {
		for i, r := range roles {
			w := e.want[i]
			code, body := do(r.uid, "GET", e.path, "")
			if code != w.code {
				t.Errorf("%s, GET %s: %d %s, want %d", r.name, e.path, code, body, w.code)
				continue
			}
			if got := strings.Contains(body, "SECRET"); got != w.secrets {
				t.Errorf("%s, GET %s: secrets shown %v, want %v:\n%s", r.name, e.path, got, w.secrets, body)
			}
			if code != http.StatusOK {
				continue
			}
			// The metadata is everyone's: the job's name and team where
			// the endpoint lists jobs.
			switch e.path {
			case "/v1/jobs/1", "/v1/jobs?all=1", "/v1/history":
				if !strings.Contains(body, `"train-run"`) || !strings.Contains(body, `"team":"a"`) {
					t.Errorf("%s, GET %s: no metadata of job 1:\n%s", r.name, e.path, body)
				}
			case "/v1/snapshot":
				if !strings.Contains(body, "job-1, queue: a") {
					t.Errorf("%s, GET %s: job 1 missing:\n%s", r.name, e.path, body)
				}
			}
		}
	}
}

// A "submitted" event that carries the command line (as older daemons
// wrote it) is cut before it for those who may not read the job.
func TestSubmittedEventsCommandLineIsCutForThoseWhoMayNotReadTheJob(t *testing.T) {
	a := &Access{Self: 0, Rules: []Rule{{UID: 7, GID: -1, Teams: []string{"a"}}, {UID: 8, GID: -1, Teams: []string{"a"}}}}
	e := Event{Kind: "submitted", Detail: `team a, class "low", 1 accelerators: train --token=SECRET`}
	other := e
	a.of(8).redactEvent(&other, 7, "a")
	if other.Detail != `team a, class "low", 1 accelerators` {
		t.Errorf("another user's view: %q", other.Detail)
	}
	own := e
	a.of(7).redactEvent(&own, 7, "a")
	if own.Detail != e.Detail {
		t.Errorf("the owner's view: %q", own.Detail)
	}
}
