package live

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Limits bound what the socket's users may hold of the daemon. The zero
// value of a field is its default (DefaultLimits).
type Limits struct {
	// ConnsPerUID is the most connections one user may hold open at once;
	// ConnsPrivileged the same for the daemon's own user and root.
	ConnsPerUID, ConnsPrivileged int
	// HeaderTimeout is the time a connection has to send a request's
	// headers; ReadTimeout to send the whole request; IdleTimeout is how
	// long a kept-alive connection may wait for its next request.
	HeaderTimeout, ReadTimeout, IdleTimeout time.Duration
}

// DefaultLimits are the socket's limits. `allot logs -f` polls (a request
// every 200 ms on one kept-alive connection): no request holds a stream
// open, so a few seconds for headers and tens for a body are plenty on a
// local socket.
var DefaultLimits = Limits{
	ConnsPerUID:     64,
	ConnsPrivileged: 512,
	HeaderTimeout:   5 * time.Second,
	ReadTimeout:     30 * time.Second,
	IdleTimeout:     30 * time.Second,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.ConnsPerUID > 0 {
		d.ConnsPerUID = l.ConnsPerUID
	}
	if l.ConnsPrivileged > 0 {
		d.ConnsPrivileged = l.ConnsPrivileged
	}
	if l.HeaderTimeout > 0 {
		d.HeaderTimeout = l.HeaderTimeout
	}
	if l.ReadTimeout > 0 {
		d.ReadTimeout = l.ReadTimeout
	}
	if l.IdleTimeout > 0 {
		d.IdleTimeout = l.IdleTimeout
	}
	return d
}

// A refused connection is answered when its request begins to arrive,
// and closed when the client has read the answer and hung up: a client
// that gets an answer before it has sent its request takes it for noise
// (Go's does), and one whose request is unread when the connection
// closes may fail to write it and never read the answer. The refusal
// waits at most refuseLinger for each; at most maxLingering refused
// connections wait at once, and the rest are answered and closed at once.
// Either way the HTTP server reads nothing of them: what the client sends
// is discarded unparsed.
const (
	refuseLinger  = 200 * time.Millisecond
	maxLingering  = 32
	refuseWriteBy = 50 * time.Millisecond
)

// guardListener checks each connection's peer credentials as it is
// accepted: a user who may not connect, or who holds too many
// connections already, gets a short answer written directly and the
// connection closed, before the HTTP server reads a byte of it.
type guardListener struct {
	net.Listener
	access *Access
	limits Limits
	mu     sync.Mutex
	open   map[int]int // connections held, by uid
	linger chan struct{}
}

func newGuardListener(l net.Listener, a *Access, lim Limits) *guardListener {
	return &guardListener{Listener: l, access: a, limits: lim.withDefaults(), open: map[int]int{}, linger: make(chan struct{}, maxLingering)}
}

// Accept returns the next connection of a user who may connect and holds
// fewer connections than the cap; it answers and closes the others.
func (g *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid := peerUID(c)
		if !g.access.mayConnect(uid) {
			g.refuse(c, http.StatusForbidden, fmt.Sprintf("uid %d may not use this daemon", uid))
			continue
		}
		most := g.limits.ConnsPerUID
		if uid == 0 || uid == g.access.Self {
			most = g.limits.ConnsPrivileged
		}
		g.mu.Lock()
		n := g.open[uid]
		if n >= most {
			g.mu.Unlock()
			g.refuse(c, http.StatusTooManyRequests, fmt.Sprintf("uid %d already holds %d connections to this daemon, the most one user may: close some and try again", uid, most))
			continue
		}
		g.open[uid] = n + 1
		g.mu.Unlock()
		return &peerConn{Conn: c, uid: uid, g: g}, nil
	}
}

func (g *guardListener) release(uid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open[uid]--; g.open[uid] <= 0 {
		delete(g.open, uid)
	}
}

// Held is how many connections uid holds now.
func (g *guardListener) held(uid int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open[uid]
}

// refuse writes a whole HTTP/1.1 answer with a JSON error and closes c.
func (g *guardListener) refuse(c net.Conn, code int, msg string) {
	body := `{"error":` + strconv.Quote(msg) + "}\n"
	resp := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
	answer := func() bool {
		_ = c.SetWriteDeadline(time.Now().Add(refuseWriteBy))
		if _, err := io.WriteString(c, resp); err != nil {
			return false
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite() // the client reads the answer, then EOF
		}
		return true
	}
	select {
	case g.linger <- struct{}{}:
		go func() {
			defer func() { <-g.linger }()
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(refuseLinger))
			_, _ = c.Read(make([]byte, 512)) // the request begins (unparsed)
			if answer() {
				_ = c.SetReadDeadline(time.Now().Add(refuseLinger))
				_, _ = io.CopyN(io.Discard, c, 64<<10) // until the client hangs up
			}
		}()
	default:
		answer()
		c.Close()
	}
}

// peerConn is an admitted connection: its peer's uid, counted against
// that user's cap until it is closed.
type peerConn struct {
	net.Conn
	uid  int
	g    *guardListener
	once sync.Once
}

func (c *peerConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.g.release(c.uid) })
	return err
}

// CloseWrite lets the HTTP server half-close before it closes, as it does
// on a bare connection (so a client sees the answer to a request it was
// refused mid-body).
func (c *peerConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// connUID is the uid of the peer of a connection the server accepted.
func connUID(c net.Conn) int {
	if pc, ok := c.(*peerConn); ok {
		return pc.uid
	}
	return peerUID(c)
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
