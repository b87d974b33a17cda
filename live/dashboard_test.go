package live

import (
	"io"
	"net/http/httptest"
	"testing"
)

// The dashboard is rendered again only after a write to the store or when
// its pageTTL has passed, however often it is asked for.
func TestDashboardRendersOncePerWriteOrExpiry(t *testing.T) {
	h := newHarness(t)
	renders := 0
	page := func(w io.Writer, _ *History, o Overview) error {
		renders++
		_, err := io.WriteString(w, "page")
		return err
	}
	srv := Dashboard(h.c, page)
	get := func() {
		t.Helper()
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Code != 200 || rec.Body.String() != "page" {
			t.Fatalf("GET /: %d %q", rec.Code, rec.Body.String())
		}
	}
	steps := []struct {
		do   func()
		want int
	}{
		{func() {}, 1},
		{func() {}, 1},                          // nothing written, still fresh
		{func() { h.submit("a", "low", 1) }, 2}, // a write
		{func() { h.clock.t = h.clock.t.Add(pageTTL - 1) }, 2}, // fresh
		{func() { h.clock.t = h.clock.t.Add(1) }, 3},           // expired
	}
	for i, s := range steps {
		s.do()
		get()
		if renders != s.want {
			t.Errorf("step %d: %d renders, want %d", i, renders, s.want)
		}
	}
}
