package live

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The dashboard lists every job not yet done, running first, then
// preempted, then pending, and then the last finished, the latest first:
// metadata only (anyone on the machine reads it), with why a job waits.
func TestDashboardListsOpenJobsThenTheLastFinishedWithoutCommands(t *testing.T) {
	h := newHarness(t)
	var got Overview
	page := func(w io.Writer, _ *History, o Overview) error {
		got = o
		_, err := io.WriteString(w, "page")
		return err
	}
	one := h.submit("a", "low", 2)   // runs, then succeeds
	two := h.submit("b", "low", 2)   // runs
	three := h.submit("a", "low", 4) // waits for the whole machine
	four := h.submit("b", "low", 1)  // waits, and is cancelled
	h.advance(time.Second)
	if err := h.c.Cancel(four); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Second)
	h.be.exits[one] = &Exit{Code: 0}
	h.advance(time.Second)
	rec := httptest.NewRecorder()
	Dashboard(h.c, page).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	var lines []string
	for _, v := range got.Jobs {
		lines = append(lines, v.ID+" "+v.State)
		if v.Command != nil || v.Dir != "" || v.Env != nil {
			t.Errorf("job %s shows its command line %q", v.ID, v.Command)
		}
	}
	want := []string{two + " running", three + " pending", one + " succeeded", four + " cancelled"}
	if strings.Join(lines, ", ") != strings.Join(want, ", ") {
		t.Errorf("the dashboard lists %q, want %q", lines, want)
	}
	if len(got.Jobs) > 1 && got.Jobs[1].Reason == "" {
		t.Error("the waiting job's reason is missing")
	}
	if !got.At.Equal(h.clock.t) {
		t.Errorf("the list is as of %v, want the controller's now %v", got.At, h.clock.t)
	}
}
