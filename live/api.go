package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
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

type peerKey struct{}

// Serve answers requests on l until it is closed.
func (s *Server) Serve(l net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ConnContext: func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, peerKey{}, peerUID(c))
	}}
	err := hs.Serve(l)
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// peerUID is the connecting process's uid (-1 when unknown).
func peerUID(c net.Conn) int {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1
	}
	uid := -1
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	})
	return uid
}

// Handler routes the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/jobs", s.submit)
	mux.HandleFunc("GET /v1/jobs", s.list)
	mux.HandleFunc("GET /v1/jobs/{id}", s.describe)
	mux.HandleFunc("POST /v1/jobs/{id}/cancel", s.cancel)
	mux.HandleFunc("GET /v1/jobs/{id}/logs", s.logs)
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
	switch {
	case errors.As(err, &nf):
		return http.StatusNotFound
	case errors.As(err, &fe):
		return http.StatusForbidden
	case IsRequestError(err):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	var req Request
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("bad request body: %w", err))
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

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	uid := callerUID(r)
	if r.URL.Query().Get("all") == "1" {
		uid = -1
	}
	writeJSONResp(w, http.StatusOK, s.C.Jobs(uid))
}

func (s *Server) describe(w http.ResponseWriter, r *http.Request) {
	d, err := s.C.Describe(r.PathValue("id"))
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	writeJSONResp(w, http.StatusOK, d)
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
	w.Header().Set("Content-Type", "text/plain")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			writeErr(w, http.StatusInternalServerError, err)
			return
		}
		if offset > 0 {
			data = data[min(int64(len(data)), offset):]
		}
		_, _ = w.Write(data)
	}
}

// Client talks to a daemon's socket.
type Client struct {
	Socket string
	hc     *http.Client
}

// NewClient makes a client for the daemon listening on socket.
func NewClient(socket string) *Client {
	return &Client{Socket: socket, hc: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}}
}

// APIError is an error the daemon answered with.
type APIError struct {
	Status int
	Msg    string
}

func (e *APIError) Error() string { return e.Msg }

// Do sends a request and decodes a JSON answer into out (raw bytes when
// out is *[]byte).
func (c *Client) Do(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, "http://allot"+path, rd)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "connect") {
			return fmt.Errorf("no allot daemon at %s (start one with `allot live serve`): %w", c.Socket, err)
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var ae apiError
		if json.Unmarshal(data, &ae) == nil && ae.Error != "" {
			return &APIError{Status: resp.StatusCode, Msg: ae.Error}
		}
		return &APIError{Status: resp.StatusCode, Msg: strings.TrimSpace(string(data))}
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = data
		return nil
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
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
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("bad request body: %w", err))
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
