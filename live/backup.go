package live

import (
	"net/http"
	"strconv"
)

// backup answers GET /v1/backup, for the daemon's admins: a consistent
// copy of the store, taken in one read transaction while the daemon runs.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	if err := s.access().mayAdminister(callerUID(r), "copy the daemon's store"); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	begin := func(n int64) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	}
	if err := s.C.store.Backup(begin, w); err != nil {
		// The status line is gone: cut the answer short, so the client's
		// length check fails rather than a short copy being kept.
		panic(http.ErrAbortHandler)
	}
}
