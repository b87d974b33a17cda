package live

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// serveSocket serves srv on a Unix socket in a directory anyone may
// enter (mode 0755, the socket 0666: the access rules decide, as in a
// daemon whose live section opens its socket), and returns its path.
func serveSocket(t *testing.T, srv *Server) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "allot-sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(l); close(done) }()
	t.Cleanup(func() { l.Close(); <-done })
	return sock
}

// readAnswer reads an HTTP answer from c (within d) and its body.
func readAnswer(t *testing.T, c net.Conn, d time.Duration) (*http.Response, string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// A uid that may not connect is answered by the listener, not the HTTP
// server: a whole 403 naming its uid, whatever it sends (garbage the
// HTTP server would answer 400), or when it sends nothing; then the
// connection ends.
func TestUnknownUidIsRefusedAtAcceptBeforeAnyHeaderIsRead(t *testing.T) {
	h := newHarness(t)
	sock := serveSocket(t, &Server{C: h.c, Access: &Access{Self: os.Getuid() + 1}})
	want := fmt.Sprintf(`{"error":"uid %d may not use this daemon"}`+"\n", os.Getuid())
	for _, send := range []string{"NOT HTTP AT ALL\r\n\r\n", ""} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		io.WriteString(c, send)
		resp, body := readAnswer(t, c, 2*time.Second)
		took := time.Since(start)
		if resp.StatusCode != http.StatusForbidden || body != want || !resp.Close {
			t.Errorf("sending %q: %d %q (closing: %v), want 403 %q and Connection: close", send, resp.StatusCode, body, resp.Close, want)
		}
		if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
			t.Errorf("sending %q: after the answer %d bytes, %v; want EOF", send, n, err)
		}
		if send == "" && took > refuseLinger+time.Second || send != "" && took > time.Second {
			t.Errorf("sending %q: answered after %v", send, took)
		}
		t.Logf("sending %q: refused in %v", send, took.Round(time.Microsecond))
		c.Close()
	}

	// The client reads the refusal as the daemon's answer, whether its
	// request was written before the refusal or not.
	for i := 0; i < 50; i++ {
		err := NewClient(sock).Do("GET", "/v1/jobs", nil, nil)
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || ae.Msg != fmt.Sprintf("uid %d may not use this daemon", os.Getuid()) {
			t.Fatalf("try %d: client got %v, want the 403", i, err)
		}
	}
}

// One user holds at most its cap of connections (the daemon's own user
// and root theirs); one more is answered 429 at accept, and a closed one
// frees its place.
func TestConnectionsPerUserAreCappedWithA429(t *testing.T) {
	h := newHarness(t)
	const most = 3
	sock := serveSocket(t, &Server{C: h.c, Limits: Limits{ConnsPrivileged: most}})
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	silent := func(c net.Conn) bool { // no answer: held, waiting for a request
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}
	for i := 0; i < most; i++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		if !silent(c) {
			t.Fatalf("connection %d of %d was not held", i+1, most)
		}
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	resp, body := readAnswer(t, c, 2*time.Second)
	c.Close()
	want := fmt.Sprintf(`{"error":"uid %d already holds %d connections to this daemon, the most one user may: close some and try again"}`+"\n", os.Getuid(), most)
	if resp.StatusCode != http.StatusTooManyRequests || body != want {
		t.Errorf("connection %d: %d %q, want 429 %q", most+1, resp.StatusCode, body, want)
	}
	held[0].Close()
	time.Sleep(100 * time.Millisecond) // the server sees the close when it reads
	c, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	held[0] = c
	if !silent(c) {
		t.Error("a place freed by a close was not given to the next connection")
	}
	if got := (Limits{ConnsPrivileged: most}).withDefaults().ConnsPerUID; got != 64 {
		t.Errorf("an ordinary user's cap is %d, want 64", got)
	}
}

// A body that says it is over 1 MiB is refused on its headers; one that
// does not say is cut off at 1 MiB. Either way the answer is a 413 that
// names the limit, and the daemon reads a small part of what is sent.
func TestBodyOver1MiBIsRefusedWithoutBeingReadWhole(t *testing.T) {
	h := newHarness(t)
	sock := serveSocket(t, &Server{C: h.c})
	const size = 64 << 20
	for _, c := range []struct {
		name, head string
		body       func(w io.Writer) error
	}{
		{"Content-Length", fmt.Sprintf("Content-Length: %d\r\n", size), func(w io.Writer) error {
			chunk := make([]byte, 64<<10)
			for i := 0; i < size/len(chunk); i++ {
				if _, err := w.Write(chunk); err != nil {
					return err
				}
			}
			return nil
		}},
		{"chunked", "Transfer-Encoding: chunked\r\n", func(w io.Writer) error {
			if _, err := io.WriteString(w, "10\r\n{\"name\":\"aaaaaaa\r\n"); err != nil {
				return err
			}
			chunk := []byte(fmt.Sprintf("%x\r\n%s\r\n", 64<<10, strings.Repeat("a", 64<<10)))
			for i := 0; i < size/(64<<10); i++ {
				if _, err := w.Write(chunk); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var sent atomic.Int64
			counted := writerFunc(func(p []byte) (int, error) {
				n, err := conn.Write(p)
				sent.Add(int64(n))
				return n, err
			})
			start := time.Now()
			if _, err := io.WriteString(counted, "POST /v1/jobs HTTP/1.1\r\nHost: allot\r\nContent-Type: application/json\r\n"+c.head+"\r\n"); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.body(counted) }()
			resp, body := readAnswer(t, conn, 10*time.Second)
			took := time.Since(start)
			conn.Close()
			werr := <-done
			want := `{"error":"request body over 1 MiB: the daemon reads no more (a job's command and environment may hold 256 KiB)"}` + "\n"
			if resp.StatusCode != http.StatusRequestEntityTooLarge || body != want {
				t.Errorf("got %d %q, want 413 %q", resp.StatusCode, body, want)
			}
			if werr == nil || sent.Load() > 4<<20 {
				t.Errorf("the client sent %d bytes of %d (%v): the daemon read on", sent.Load(), size, werr)
			}
			t.Logf("answered in %v; the client got %.2f MiB of 64 into the socket before it was closed", took.Round(time.Millisecond), float64(sent.Load())/(1<<20))
		})
	}
	// The client says so before it sends.
	big := &Request{Team: "a", PriorityClass: "low", Command: []string{strings.Repeat("x", 2<<20)}}
	err := NewClient(sock).Do("POST", "/v1/jobs", big, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusRequestEntityTooLarge || !strings.Contains(ae.Msg, "request body over 1 MiB") {
		t.Errorf("a client's 2 MiB request: %v", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A client that sends its headers a byte at a time is dropped when the
// header timeout has passed since its first byte, however steadily it
// sends.
func TestSlowHeadersAreDroppedAfterTheHeaderTimeout(t *testing.T) {
	h := newHarness(t)
	const timeout = 300 * time.Millisecond
	sock := serveSocket(t, &Server{C: h.c, Limits: Limits{HeaderTimeout: timeout}})
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, conn) // until the daemon closes
		closed <- time.Since(start)
	}()
	head := "GET /v1/jobs HTTP/1.1\r\nHost: allot\r\nX-Slow: " + strings.Repeat("a", 1000)
	sentAll := true
	for i := 0; i < len(head); i++ {
		if _, err := conn.Write([]byte{head[i]}); err != nil {
			sentAll = false
			break
		}
		select {
		case d := <-closed:
			// The daemon's clock starts at accept, a little before start.
			if d < timeout*9/10 || d > timeout+time.Second {
				t.Errorf("dropped after %v, want about %v", d, timeout)
			}
			t.Logf("dropped %v after its first byte, %d bytes of headers in", d.Round(time.Millisecond), i+1)
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("still connected after %v (all sent: %v)", time.Since(start), sentAll)
}

// childEnv names what a re-executed test binary does as another uid.
const childEnv = "ALLOT_TEST_CHILD"

// TestChildProcess is not a test: it is what runChild's child process
// runs, as another user.
func TestChildProcess(t *testing.T) {
	switch os.Getenv(childEnv) {
	case "":
		t.Skip("run by runChild only")
	case "flood":
		flood(os.Getenv("ALLOT_TEST_SOCKET"))
	case "dial":
		err := NewClient(os.Getenv("ALLOT_TEST_SOCKET")).Do("GET", "/v1/jobs", nil, nil)
		fmt.Printf("error: %v\n", err)
	}
	os.Exit(0)
}

// flood opens ALLOT_TEST_FLOOD connections and holds them; it says
// "opened N" when all are open, and when its stdin closes, "answered K
// WITH" (K of them got the daemon's answer, the first of which is WITH).
func flood(sock string) {
	n, _ := strconv.Atoi(os.Getenv("ALLOT_TEST_FLOOD"))
	var conns []net.Conn
	for len(conns) < n {
		c, err := net.Dial("unix", sock)
		if errors.Is(err, syscall.EAGAIN) { // the backlog is full: the daemon is behind
			time.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			fmt.Printf("dial: %v\n", err)
			os.Exit(1)
		}
		conns = append(conns, c)
	}
	fmt.Printf("opened %d\n", len(conns))
	io.Copy(io.Discard, os.Stdin)
	var answered atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			data, _ := io.ReadAll(c)
			if strings.HasPrefix(string(data), "HTTP/1.1 ") {
				answered.Add(1)
				_, body, _ := strings.Cut(string(data), "\r\n\r\n")
				first.CompareAndSwap(nil, strings.TrimSpace(body))
			}
		}()
	}
	wg.Wait()
	fmt.Printf("answered %d %v\n", answered.Load(), first.Load())
}

// runChild starts this test binary again as uid (a copy of it that the
// uid may run), doing what, with env.
func runChild(t *testing.T, uid int, what string, env ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a client as another uid")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "allot-child")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "live.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestChildProcess$")
	cmd.Dir = dir
	cmd.Env = append([]string{childEnv + "=" + what, "PATH=/usr/bin:/bin"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	return cmd
}

const nobody = 65534

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// A local user no rule names opens 2,000 connections and holds them:
// each is answered 403 and closed at accept, so the daemon's open files
// stay about where they were, and an allowed user's request is answered
// at once meanwhile.
func TestFloodFromAUidWithoutAccessLeavesTheDaemonServingAndItsFilesBounded(t *testing.T) {
	const n = 2000
	h := newHarness(t)
	sock := serveSocket(t, &Server{C: h.c, Access: &Access{Self: os.Getuid()}})
	cmd := runChild(t, nobody, "flood", "ALLOT_TEST_SOCKET="+sock, "ALLOT_TEST_FLOOD="+strconv.Itoa(n))
	base := openFDs(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	var most atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if k := int64(openFDs(t)); k > most.Load() {
				most.Store(k)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != fmt.Sprintf("opened %d", n) {
		t.Fatalf("the flood: %q", lines.Text())
	}
	opened := time.Since(start)
	// While the flood's connections are held: the allowed user.
	var jobs []View
	t0 := time.Now()
	err = NewClient(sock).Do("GET", "/v1/jobs", nil, &jobs)
	answer := time.Since(t0)
	if err != nil || answer > 2*time.Second {
		t.Errorf("the allowed user's request during the flood: %v after %v", err, answer)
	}
	during := openFDs(t)
	stdin.Close()
	if !lines.Scan() {
		t.Fatal("the flood said nothing more")
	}
	last := lines.Text()
	cmd.Wait()
	close(stop)
	<-sampled
	want := fmt.Sprintf(`answered %d {"error":"uid %d may not use this daemon"}`, n, nobody)
	if last != want {
		t.Errorf("the flood's connections: %q, want %q", last, want)
	}
	// Bounded: the refused connections lingering for their request (at
	// most maxLingering), the allowed user's, and a few for sampling.
	if limit := int64(base + maxLingering + 16); most.Load() > limit {
		t.Errorf("the daemon held %d files at most during the flood (%d before it), want at most %d", most.Load(), base, limit)
	}
	t.Logf("%d connections opened and held by uid %d in %v; the allowed request answered in %v; open files: %d before, %d at most, %d while the flood held its connections",
		n, nobody, opened.Round(time.Millisecond), answer.Round(time.Microsecond), base, most.Load(), during)
}

// A user the socket's mode keeps out is told so, with the file's group
// and mode and what to ask for, not that there is no daemon.
func TestPermissionDeniedOnTheSocketNamesItsGroupAndMode(t *testing.T) {
	h := newHarness(t)
	sock := serveSocket(t, &Server{C: h.c})
	dial := func() string {
		out, err := runChild(t, nobody, "dial", "ALLOT_TEST_SOCKET="+sock).Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	os.Chmod(sock, 0o660)
	want := "error: permission denied on " + sock + " (group root, mode 0660): ask an admin to add you to group root (then log in again)"
	if got := dial(); got != want {
		t.Errorf("socket mode 0660:\n got %s\nwant %s", got, want)
	}
	os.Chmod(sock, 0o666)
	os.Chmod(filepath.Dir(sock), 0o700)
	want = "error: permission denied on " + filepath.Dir(sock) + " (group root, mode 0700): only its owner may connect; an admin opens the daemon to a group with the live section's socket_group and socket_mode"
	if got := dial(); got != want {
		t.Errorf("directory mode 0700:\n got %s\nwant %s", got, want)
	}
	os.Chmod(filepath.Dir(sock), 0o755)
	os.Remove(sock)
	if got := dial(); !strings.HasPrefix(got, "error: no allot daemon at "+sock+" (start one with `allot live serve`)") {
		t.Errorf("no socket: %s", got)
	}
}
