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
)

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
