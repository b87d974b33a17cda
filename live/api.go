package live

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
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

// What one request may carry.
const (
	// MaxBody is the most a request body may hold.
	MaxBody = 1 << 20
	// MaxArgvBytes is the most a job's command and environment may hold
	// together (bytes of every argument and NAME=VALUE); MaxArgs the most
	// arguments and variables together.
	MaxArgvBytes = 256 << 10
	MaxArgs      = 4096
	// MaxNameBytes is the longest job name.
	MaxNameBytes = 128
)

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

// CheckRequest refuses what no daemon takes, whatever its configuration:
// a name with control characters (it is printed on others' terminals) or
// over MaxNameBytes, a command and environment over MaxArgvBytes or
// MaxArgs, a NUL byte where exec cannot carry one, an environment entry
// that is not NAME=VALUE with a portable NAME, or one naming what the
// daemon sets itself. The client checks too, to say so before sending.
func CheckRequest(req *Request) error {
	if !utf8.ValidString(req.Name) {
		return &RequestError{fmt.Sprintf("job name %q is not UTF-8", req.Name)}
	}
	if len(req.Name) > MaxNameBytes {
		return &RequestError{fmt.Sprintf("job name of %d bytes: at most %d", len(req.Name), MaxNameBytes)}
	}
	if r, ok := controlIn(req.Name); ok {
		return &RequestError{fmt.Sprintf("job name %q has a control character (%s): names are shown on other users' terminals", req.Name, strings.Trim(strconv.QuoteRune(r), "'"))}
	}
	if n := len(req.Command) + len(req.Env); n > MaxArgs {
		return &RequestError{fmt.Sprintf("%d arguments and environment variables: at most %d", n, MaxArgs)}
	}
	total := 0
	for _, a := range req.Command {
		total += len(a) + 1
		if strings.IndexByte(a, 0) >= 0 {
			return &RequestError{fmt.Sprintf("argument %q has a NUL byte, which no command line can carry", a)}
		}
	}
	for _, e := range req.Env {
		total += len(e) + 1
		if err := CheckEnv(e); err != nil {
			return err
		}
	}
	if total > MaxArgvBytes {
		return &RequestError{fmt.Sprintf("command and environment of %d bytes: at most %d (256 KiB)", total, MaxArgvBytes)}
	}
	if strings.IndexByte(req.Dir, 0) >= 0 || len(req.Dir) > 4096 {
		return &RequestError{fmt.Sprintf("working directory %q: not a path", req.Dir)}
	}
	if len(req.RequestID) > 128 || strings.ContainsFunc(req.RequestID, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' || r == '.')
	}) {
		return &RequestError{fmt.Sprintf("request id %q: want at most 128 letters, digits, '-', '_' or '.'", req.RequestID)}
	}
	return nil
}

// CheckEnv checks one NAME=VALUE of a job's environment: NAME is a
// portable name (a letter or '_', then letters, digits and '_'), not one
// the daemon sets (ALLOT_*, the device variables), and neither has a
// control character.
func CheckEnv(e string) error {
	name, value, ok := strings.Cut(e, "=")
	if !ok {
		return &RequestError{fmt.Sprintf("environment entry %q: want NAME=VALUE", e)}
	}
	if err := CheckEnvName(name); err != nil {
		return err
	}
	if r, bad := controlIn(value); bad {
		return &RequestError{fmt.Sprintf("environment variable %s: its value has a control character (%s)", name, strings.Trim(strconv.QuoteRune(r), "'"))}
	}
	return nil
}

// CheckEnvName checks the NAME of a job's environment entry.
func CheckEnvName(name string) error {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) || name[0] >= '0' && name[0] <= '9' {
		return &RequestError{fmt.Sprintf("environment variable name %q: want a letter or '_', then letters, digits or '_'", name)}
	}
	if strings.HasPrefix(name, "ALLOT_") || name == "CUDA_VISIBLE_DEVICES" || name == "NVIDIA_VISIBLE_DEVICES" || name == "NEURON_RT_VISIBLE_CORES" {
		return &RequestError{fmt.Sprintf("environment variable %s is set by the daemon (the job's id, run and devices)", name)}
	}
	return nil
}

// controlIn finds the first control or other unprintable character of
// s: what a terminal would act on or hide (escapes, bidirectional
// overrides), not ordinary Unicode letters and spaces.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if r != ' ' && !unicode.IsGraphic(r) {
			return r, true
		}
	}
	return 0, false
}

// Printable is s made safe to print to a terminal: control and other
// unprintable characters (ESC, newlines, bidirectional overrides, bytes
// that are not UTF-8) are written as Go escapes (\x1b, \n, \u202e,
// \xff); ordinary Unicode is kept. Every command that prints what users
// named or the daemon said prints it through Printable.
func Printable(s string) string {
	if _, bad := controlIn(s); !bad && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || unicode.IsGraphic(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
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

// Client talks to a daemon's socket.
type Client struct {
	Socket string
	hc     *http.Client
}

// answerTimeout is how long a client waits for the daemon's answer once
// its request is sent.
const answerTimeout = time.Minute

// NewClient makes a client for the daemon listening on socket.
func NewClient(socket string) *Client {
	return &Client{Socket: socket, hc: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		ResponseHeaderTimeout: answerTimeout,
	}}}
}

// APIError is an error the daemon answered with.
type APIError struct {
	Status int
	Msg    string
}

func (e *APIError) Error() string { return e.Msg }

// NotSentError is a request that never reached a daemon: there was none
// to connect to, or the caller may not connect.
type NotSentError struct{ Msg string }

func (e *NotSentError) Error() string { return e.Msg }

// LostError is a request that failed after it may have reached the
// daemon (the connection broke, or no answer came in time): the daemon
// may or may not have acted on it.
type LostError struct{ Err error }

func (e *LostError) Error() string {
	return fmt.Sprintf("no answer from the allot daemon (it may have acted on the request): %v", e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// Do sends a request and decodes a JSON answer into out (raw bytes when
// out is *[]byte).
func (c *Client) Do(method, path string, body, out any) error {
	return c.do(context.Background(), method, path, body, out)
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		if len(data) > MaxBody {
			return &APIError{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("request body of %d bytes: %v", len(data), errBodyTooLarge)}
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://allot"+path, rd)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportErr(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &LostError{err}
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

// transportErr says why a request got no answer: never sent (no daemon,
// no permission) or lost on the way.
func (c *Client) transportErr(err error) error {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return &LostError{err}
	}
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return &NotSentError{permissionDenied(c.Socket)}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
		return &NotSentError{fmt.Sprintf("no allot daemon at %s (start one with `allot live serve`): %v", c.Socket, err)}
	}
	return &NotSentError{fmt.Sprintf("cannot connect to the allot daemon at %s: %v", c.Socket, err)}
}

// permissionDenied says which of the socket and its directory refused the
// caller, with its group and mode, and what to ask an admin for.
func permissionDenied(sock string) string {
	path, need := sock, fs.FileMode(0o020) // connecting needs write on the socket
	fi, err := os.Stat(sock)
	if err != nil { // the directory is what we may not enter
		path, need = filepath.Dir(sock), 0o010
		if fi, err = os.Stat(path); err != nil {
			return fmt.Sprintf("permission denied on %s: ask an admin of the allot daemon for access", sock)
		}
	}
	group, gid := "?", -1
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		gid = int(st.Gid)
		group = strconv.Itoa(gid)
		if g, err := user.LookupGroupId(group); err == nil {
			group = g.Name
		}
	}
	msg := fmt.Sprintf("permission denied on %s (group %s, mode %04o)", path, group, fi.Mode().Perm())
	if fi.Mode().Perm()&need == 0 {
		return msg + ": only its owner may connect; an admin opens the daemon to a group with the live section's socket_group and socket_mode"
	}
	// Added to the group since this session began: the account has it,
	// this process does not.
	if u, err := user.Current(); err == nil && gid >= 0 {
		if ids, err := u.GroupIds(); err == nil && slices.Contains(ids, strconv.Itoa(gid)) {
			return msg + fmt.Sprintf(": your account is in group %s, this session is not yet: log in again (or run `newgrp %s`)", group, group)
		}
	}
	return msg + fmt.Sprintf(": ask an admin to add you to group %s (then log in again)", group)
}

// submitRetries are the waits before each new try of a submission whose
// answer was lost.
var submitRetries = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second}

// submitTimeout bounds one try of a submission.
const submitTimeout = 30 * time.Second

// NewRequestID is a random request id: 128 bits, in hex.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Submit sends req and returns the new job's id. It gives req a request
// id when it has none, and sends it again with that id (a few times) when
// a try fails after it may have reached the daemon: the daemon answers a
// repeated id from the same user with the job the first try made. A
// request that never reached it, or that it answered, is not sent again.
func (c *Client) Submit(req *Request) (string, error) {
	if err := CheckRequest(req); err != nil {
		return "", &APIError{Status: http.StatusBadRequest, Msg: err.Error()}
	}
	if req.RequestID == "" {
		req.RequestID = NewRequestID()
	}
	for try := 0; ; try++ {
		var out struct {
			ID string `json:"id"`
		}
		ctx, cancel := context.WithTimeout(context.Background(), submitTimeout)
		err := c.do(ctx, "POST", "/v1/jobs", req, &out)
		cancel()
		var lost *LostError
		if err == nil || !errors.As(err, &lost) || try == len(submitRetries) {
			return out.ID, err
		}
		time.Sleep(submitRetries[try])
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
