package live

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// Page writes the dashboard from the history and the machine's overview.
// cmd/allot makes it with the reports package, which live may not import.
type Page func(w io.Writer, h *History, o Overview) error

// Dashboard serves the read-only dashboard: the page at /, and an empty
// answer for the icon browsers ask for, so that they log no error.
func Dashboard(c *Controller, page Page) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
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
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b.Bytes())
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
