package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// Server is the HTTP+JSON API on the daemon's Unix socket. The caller is
// known by the socket's peer credentials, not by anything it sends.
type Server struct {
	C *Controller
	// Logs returns a job's stdout and stderr files.
	Logs func(id string) (stdout, stderr string)
	// Access says who may connect and do what; nil allows only the
	// daemon's own user (no live section: that user is admin of all).
	Access *Access
	// Snapshot, if set, renders the state as a snapshot file (cmd wires
	// it: the format is the scenarios package's).
	Snapshot func(c *Controller) ([]byte, error)
	// Policy, if set, makes a configuration of a policy file for this
	// daemon's fleet (cmd wires it: the format is the scenarios package's);
	// name names the file in errors.
	Policy func(name string, data []byte) (*Config, error)
	// Limits bound the connections one user may hold and the time a
	// request may take to arrive; zero fields are DefaultLimits'.
	Limits Limits
}

// PolicyRequest asks the daemon to take a new policy, or (Apply false)
// only to show what it would decide under it.
type PolicyRequest struct {
	Name   string `json:"name"`
	Policy string `json:"policy"` // the policy file's text
	Apply  bool   `json:"apply"`
}

// PolicyResponse is the decisions one scheduling pass would make now
// under the current and the new policy, and whether the new one was
// applied.
type PolicyResponse struct {
	Current   Decisions `json:"current"`
	Promoted  Decisions `json:"promoted"`
	CurrentID string    `json:"current_policy"`
	NewID     string    `json:"new_policy"`
	Applied   bool      `json:"applied"`
}

var errBodyTooLarge = errors.New("request body over 1 MiB: the daemon reads no more (a job's command and environment may hold 256 KiB)")

type peerKey struct{}

// Serve answers requests on l until it is closed. Each connection's peer
// credentials are checked as it is accepted (guardListener): a user who
// may not connect is answered and dropped before a byte is read, and one
// user holds at most Limits' connections. A request has Limits' time to
// arrive, headers first.
func (s *Server) Serve(l net.Listener) error {
	lim := s.Limits.withDefaults()
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: lim.HeaderTimeout, ReadTimeout: lim.ReadTimeout,
		IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: 64 << 10,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, peerKey{}, connUID(c))
		}}
	err := hs.Serve(newGuardListener(l, s.access(), lim))
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Handler routes the API. Every read follows the read rule (see Access).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/jobs", s.submit)
	mux.HandleFunc("GET /v1/jobs", s.list)
	mux.HandleFunc("GET /v1/jobs/{id}", s.describe)
	mux.HandleFunc("POST /v1/jobs/{id}/cancel", s.cancel)
	mux.HandleFunc("GET /v1/jobs/{id}/logs", s.logs)
	// Metadata only (no command lines): anyone the daemon admits.
	mux.HandleFunc("GET /v1/snapshot", func(w http.ResponseWriter, r *http.Request) {
		if s.Snapshot == nil {
			writeErr(w, http.StatusNotFound, errors.New("this daemon makes no snapshots"))
			return
		}
		data, err := s.Snapshot(s.C)
		if err != nil {
			writeErr(w, http.StatusInternalServerError, err)
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(data)
	})
	mux.HandleFunc("GET /v1/history", s.history)
	mux.HandleFunc("GET /v1/backup", s.backup)
	mux.HandleFunc("POST /v1/policy", s.promote)
	mux.HandleFunc("GET /v1/overview", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResp(w, http.StatusOK, s.C.Overview())
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uid := callerUID(r)
		if !s.access().mayConnect(uid) {
			writeErr(w, http.StatusForbidden, fmt.Errorf("uid %d may not use this daemon", uid))
			return
		}
		// A body that says it is too long is refused before a byte of it
		// is read; one that does not say is cut off at the limit.
		if r.ContentLength > MaxBody {
			writeErr(w, http.StatusRequestEntityTooLarge, errBodyTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		mux.ServeHTTP(w, r)
	})
}

func callerUID(r *http.Request) int {
	if uid, ok := r.Context().Value(peerKey{}).(int); ok {
		return uid
	}
	return -1
}

func (s *Server) access() *Access {
	if s.Access == nil {
		return &Access{Self: os.Getuid()}
	}
	return s.Access
}

func writeJSONResp(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

type apiError struct {
	Error string `json:"error"`
}

func writeErr(w http.ResponseWriter, code int, err error) {
	writeJSONResp(w, code, apiError{err.Error()})
}

func statusOf(err error) int {
	var nf *NotFoundError
	var fe *ForbiddenError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &nf):
		return http.StatusNotFound
	case errors.As(err, &fe):
		return http.StatusForbidden
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case IsRequestError(err):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// decodeBody reads a JSON body (at most MaxBody: the handler's reader is
// cut off there).
func decodeBody(r *http.Request, v any, strict bool) error {
	dec := json.NewDecoder(r.Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errBodyTooLarge
		}
		return &RequestError{fmt.Sprintf("bad request body: %v", err)}
	}
	return nil
}

func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := decodeBody(r, &req, true); err != nil {
		writeBodyErr(w, err)
		return
	}
	if err := s.access().maySubmit(callerUID(r), req.Team); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	j, err := s.C.Submit(&req, callerUID(r))
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	writeJSONResp(w, http.StatusCreated, map[string]string{"id": j.ID})
}

func writeBodyErr(w http.ResponseWriter, err error) {
	if errors.Is(err, errBodyTooLarge) {
		writeErr(w, http.StatusRequestEntityTooLarge, err)
		return
	}
	writeErr(w, statusOf(err), err)
}

// list answers GET /v1/jobs: the caller's jobs, or (all=1) everyone's,
// under the read rule.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	uid := callerUID(r)
	g := s.access().of(uid)
	if r.URL.Query().Get("all") == "1" {
		uid = -1
	}
	jobs := s.C.Jobs(uid)
	for i := range jobs {
		g.redactView(&jobs[i])
	}
	writeJSONResp(w, http.StatusOK, jobs)
}

// DescribeAnswer is GET /v1/jobs/{id}: the job and its history, and the
// daemon's time 0 (when it first started), from which an event's time
// in seconds is a wall-clock instant.
type DescribeAnswer struct {
	*Description
	Epoch time.Time `json:"epoch"`
}

// describe answers GET /v1/jobs/{id} under the read rule.
func (s *Server) describe(w http.ResponseWriter, r *http.Request) {
	d, err := s.C.Describe(r.PathValue("id"))
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	g := s.access().of(callerUID(r))
	g.redactView(&d.View)
	for i := range d.History {
		g.redactEvent(&d.History[i], d.UID, d.Team)
	}
	writeJSONResp(w, http.StatusOK, DescribeAnswer{Description: d, Epoch: s.C.Epoch().UTC()})
}

// operate checks that the caller may act on a job.
func (s *Server) operate(r *http.Request, what string) error {
	j, err := s.C.Job(r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.access().mayOperate(callerUID(r), j, what)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) {
	if err := s.operate(r, "cancel"); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	if err := s.C.Cancel(r.PathValue("id")); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	writeJSONResp(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
}

// logs answers GET /v1/jobs/{id}/logs: for those the read rule lets read
// them.
func (s *Server) logs(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := s.operate(r, "read the logs of"); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	out, errf := s.Logs(id)
	paths := []string{out, errf}
	switch r.URL.Query().Get("stream") {
	case "stdout":
		paths = paths[:1]
	case "stderr":
		paths = paths[1:]
	}
	// offset lets `allot logs -f` ask only for what it has not shown.
	offset, _ := strconv.ParseInt(r.URL.Query().Get("offset"), 10, 64)
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			writeErr(w, http.StatusInternalServerError, err)
			return
		}
		files = append(files, f)
	}
	w.Header().Set("Content-Type", "text/plain")
	// Copied, not read whole into memory: a log may be large.
	for _, f := range files {
		if offset > 0 {
			if _, err := f.Seek(offset, io.SeekStart); err != nil {
				continue
			}
		}
		if _, err := io.Copy(w, f); err != nil {
			return
		}
	}
}

// promote previews a policy and, when asked, applies it.
func (s *Server) promote(w http.ResponseWriter, r *http.Request) {
	if err := s.access().mayAdminister(callerUID(r), "change the daemon's policy"); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	if s.Policy == nil {
		writeErr(w, http.StatusNotFound, errors.New("this daemon takes no new policy"))
		return
	}
	var req PolicyRequest
	if err := decodeBody(r, &req, false); err != nil {
		writeBodyErr(w, err)
		return
	}
	cfg, err := s.Policy(req.Name, []byte(req.Policy))
	if err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	cur, next, err := s.C.Preview(cfg)
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	resp := PolicyResponse{Current: cur, Promoted: next, CurrentID: s.C.PolicyID(), NewID: cfg.PolicyID}
	if req.Apply {
		if err := s.C.SetConfig(cfg); err != nil {
			writeErr(w, statusOf(err), err)
			return
		}
		resp.Applied = true
	}
	writeJSONResp(w, http.StatusOK, resp)
}
