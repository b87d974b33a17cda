package live

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Page writes the dashboard from the history and the machine's overview.
// cmd/allot makes it with the reports package, which live may not import.
type Page func(w io.Writer, h *History, o Overview) error

// pageTTL is how long a rendered dashboard is served again while nothing
// was written: the page reloads itself at about this pace, and its charts
// run to "now", so an older one would show a stale right edge.
const pageTTL = 5 * time.Second

// Source is what a dashboard shows: a controller, local or on Kubernetes.
// Version changes whenever what History returns may have.
type Source interface {
	Version() uint64
	History() (*History, error)
	Overview() Overview
	Now() time.Time
}

// Now is the controller's clock.
func (c *Controller) Now() time.Time { return c.clock.Now() }

// Dashboard serves the read-only dashboard: the page at /, and an empty
// answer for the icon browsers ask for, so that they log no error. A page
// is rendered at most once per version of the source and pageTTL, however
// many browsers ask.
func Dashboard(c Source, page Page) http.Handler {
	var mu sync.Mutex
	var cached []byte
	var version uint64
	var at time.Time
	mux := http.NewServeMux()
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if v := c.Version(); cached == nil || v != version || c.Now().Sub(at) >= pageTTL {
			h, err := c.History()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			var b bytes.Buffer // whole, so a failure is an error page, not half a page
			if err := page(&b, h, c.Overview()); err != nil {
				http.Error(w, fmt.Sprintf("render dashboard: %v", err), http.StatusInternalServerError)
				return
			}
			cached, version, at = b.Bytes(), v, c.Now()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(cached)
	})
	return mux
}

// history answers GET /v1/history, for the machine's admins only: it
// names every team's jobs.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	if uid := callerUID(r); !s.access().of(uid).admin {
		writeErr(w, http.StatusForbidden, &ForbiddenError{fmt.Sprintf("uid %d may not read the whole history (admins only)", uid)})
		return
	}
	h, err := s.C.History()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	writeJSONResp(w, http.StatusOK, h)
}
