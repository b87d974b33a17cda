package live

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDaemon answers the n-th POST /v1/jobs with answer(n), or drops the
// connection after reading the request when answer returns nil (the
// answer is lost); seen lists the request ids it was sent.
func fakeDaemon(t *testing.T, answer func(n int) *string) (sock string, seen func() []string) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids []string
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req Request
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		ids = append(ids, req.RequestID)
		body := answer(len(ids))
		mu.Unlock()
		if body == nil {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, *body)
	})}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return sock, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(ids)
	}
}

// A submission whose answer is lost is sent again with the same request
// id (so the daemon returns the job the first made), and one the daemon
// answered, or that never reached it, is not.
func TestSubmitRetriesALostAnswerWithTheSameRequestID(t *testing.T) {
	defer func(r []time.Duration) { submitRetries = r }(submitRetries)
	submitRetries = []time.Duration{time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	job := func(id string) *string { return &id }
	submit := func(sock string) (string, error) {
		return NewClient(sock).Submit(&Request{Team: "a", PriorityClass: "low", Command: []string{"x"}})
	}

	sock, seen := fakeDaemon(t, func(n int) *string {
		if n < 3 {
			return nil
		}
		return job(`{"id":"7"}`)
	})
	id, err := submit(sock)
	ids := seen()
	if err != nil || id != "7" {
		t.Fatalf("submit: %q %v, want job 7", id, err)
	}
	if len(ids) != 3 || ids[0] != ids[1] || ids[1] != ids[2] || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(ids[0]) {
		t.Errorf("request ids sent: %q, want one 32-digit hex id, three times", ids)
	}

	// Answered: sent once.
	sock, seen = fakeDaemon(t, func(int) *string { return job(`{"id":"1"}`) })
	if _, err := submit(sock); err != nil || len(seen()) != 1 {
		t.Errorf("an answered submit was sent %d times (%v)", len(seen()), err)
	}
	// Lost every time: a few tries, then the error says it may have run.
	sock, seen = fakeDaemon(t, func(int) *string { return nil })
	_, err = submit(sock)
	var le *LostError
	if !errors.As(err, &le) || len(seen()) != 1+len(submitRetries) || !strings.HasPrefix(err.Error(), "no answer from the allot daemon (it may have acted on the request)") {
		t.Errorf("always lost: %d tries, %v", len(seen()), err)
	}
	// No daemon: never sent, so not sent again.
	start := time.Now()
	_, err = submit(filepath.Join(t.TempDir(), "none"))
	var ns *NotSentError
	if !errors.As(err, &ns) || !strings.Contains(err.Error(), "(start one with `allot live serve`)") || time.Since(start) > 500*time.Millisecond {
		t.Errorf("no daemon: %v after %v", err, time.Since(start))
	}
}

// What a terminal would act on is printed escaped; ordinary Unicode is
// printed as it is.
func TestControlCharactersArePrintedEscapedAndUnicodeKept(t *testing.T) {
	for in, want := range map[string]string{
		"train-1":                         "train-1",
		"naïve 日本語 ünïcödé":               "naïve 日本語 ünïcödé",
		"\x1b[31mred\x1b[0m":              `\x1b[31mred\x1b[0m`,
		"two\nlines\r":                    `two\nlines\r`,
		"tab\there":                       `tab\there`,
		"abc\u202edef":                    `abc\u202edef`, // right-to-left override
		"bad \xff byte":                   `bad \xff byte`,
		"bell\a and del\x7f and c1\u0085": `bell\a and del\x7f and c1\u0085`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// Requests no daemon takes are refused with a 400 that says why: a name
// with a control character or over 128 bytes, a command and environment
// over 256 KiB or 4,096 entries, a bad or reserved environment entry.
func TestRequestsWithControlCharactersOrOverTheirLimitsAreRefused(t *testing.T) {
	h := newHarness(t)
	sock := serveSocket(t, &Server{C: h.c})
	c := NewClient(sock)
	base := func() Request {
		return Request{Team: "a", PriorityClass: "low", Accelerators: 1, Command: []string{"x"}}
	}
	for _, tc := range []struct {
		name   string
		change func(r *Request)
		want   string
	}{
		{"escape in name", func(r *Request) { r.Name = "a\x1b[2Jb" }, `job name "a\x1b[2Jb" has a control character (\x1b): names are shown on other users' terminals`},
		{"newline in name", func(r *Request) { r.Name = "a\nb" }, `job name "a\nb" has a control character (\n): names are shown on other users' terminals`},
		{"long name", func(r *Request) { r.Name = strings.Repeat("n", 129) }, "job name of 129 bytes: at most 128"},
		{"big argv", func(r *Request) { r.Command = []string{strings.Repeat("x", 200<<10), strings.Repeat("y", 60<<10)} }, "command and environment of 266242 bytes: at most 262144 (256 KiB)"},
		{"many args", func(r *Request) { r.Command = make([]string, 4097) }, "4097 arguments and environment variables: at most 4096"},
		{"NUL", func(r *Request) { r.Command = []string{"a\x00b"} }, `argument "a\x00b" has a NUL byte, which no command line can carry`},
		{"env without =", func(r *Request) { r.Env = []string{"TOKEN"} }, `environment entry "TOKEN": want NAME=VALUE`},
		{"env bad name", func(r *Request) { r.Env = []string{"1X=y"} }, `environment variable name "1X": want a letter or '_', then letters, digits or '_'`},
		{"env reserved", func(r *Request) { r.Env = []string{"CUDA_VISIBLE_DEVICES=0,1,2,3"} }, "environment variable CUDA_VISIBLE_DEVICES is set by the daemon (the job's id, run and devices)"},
		{"env ALLOT_", func(r *Request) { r.Env = []string{"ALLOT_JOB_ID=9"} }, "environment variable ALLOT_JOB_ID is set by the daemon (the job's id, run and devices)"},
		{"env control", func(r *Request) { r.Env = []string{"X=a\x1bb"} }, `environment variable X: its value has a control character (\x1b)`},
	} {
		r := base()
		tc.change(&r)
		// Straight to the daemon, past the client's own check.
		code, msg := rawSubmit(t, sock, &r)
		if code != http.StatusBadRequest || msg != tc.want {
			t.Errorf("%s: %d %q, want 400 %q", tc.name, code, msg, tc.want)
		}
		// The client says the same before sending.
		_, err := c.Submit(&r)
		var ae *APIError
		if !errors.As(err, &ae) || ae.Msg != tc.want {
			t.Errorf("%s, client: %v", tc.name, err)
		}
	}
	if jobs := h.c.Jobs(-1); len(jobs) != 0 {
		t.Errorf("%d jobs made by refused requests", len(jobs))
	}
	r := base()
	r.Name = "ünïcödé 日本 run"
	r.Env = []string{"EPOCHS=3", "_X=a b"}
	if id, err := c.Submit(&r); err != nil || id != "1" {
		t.Errorf("a good request with a Unicode name: %q %v", id, err)
	}
}

func rawSubmit(t *testing.T, sock string, r *Request) (int, string) {
	t.Helper()
	data, _ := json.Marshal(r)
	hc := &http.Client{Transport: &http.Transport{Dial: func(_, _ string) (net.Conn, error) { return net.Dial("unix", sock) }}}
	resp, err := hc.Post("http://allot/v1/jobs", "application/json", strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ae apiError
	json.NewDecoder(resp.Body).Decode(&ae)
	return resp.StatusCode, ae.Error
}
