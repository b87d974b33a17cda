package local

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/allot-sim/allot/live"
)

// Daemon is what Serve runs this machine's daemon with.
type Daemon struct {
	Config *live.Config
	// Reconfig makes a promoted policy file's configuration (nil: the
	// daemon takes none).
	Reconfig func(name string, data []byte) (*live.Config, error)
	Access   *live.Access
	// Snapshot writes the controller's state as a snapshot file.
	Snapshot func(*live.Controller) ([]byte, error)
	DataDir  string
	// Socket is where the API listens ("": DataDir/allot.sock). A socket
	// elsewhere gets its directory made and checked as the data
	// directory is.
	Socket     string
	SocketMode os.FileMode // 0: 0600
	SocketGID  int         // the socket's group; -1: the daemon's
	// Shared says others may reach the socket: the data directory, their
	// way to it, is opened to them for that (0711).
	Shared bool
	// HTTP, when set, serves the dashboard (Page) and /metrics.
	HTTP   net.Listener
	Page   live.Page
	Poll   time.Duration // how often to look for ended runs
	Retain time.Duration // finished jobs' files and history kept this long (0: all)
	Log    *slog.Logger
}

// Serve runs the daemon until SIGINT or SIGTERM, or until its API or its
// loop fails. Jobs keep running after it stops, and a restarted daemon
// re-adopts them. The store is opened only once the data directory is
// found safe and the store sound and held by no other daemon (OpenStore).
func Serve(d *Daemon) error {
	if err := os.MkdirAll(d.DataDir, 0o700); err != nil {
		return err
	}
	if err := CheckDataDir(d.DataDir); err != nil {
		return err
	}
	store, err := OpenStore(d.DataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := live.WritePid(d.DataDir); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	be := &Backend{Dir: d.DataDir, Shim: []string{exe, "live", "shim"}}
	c, err := live.NewWith(d.Config, store, be, live.SystemClock{}, live.Options{Log: d.Log, Retention: d.Retain})
	if err != nil {
		return err
	}
	sock, l, err := d.listen()
	if err != nil {
		return err
	}
	srv := &live.Server{C: c, Logs: be.LogPaths, Access: d.Access, Snapshot: d.Snapshot, Policy: d.Reconfig}
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(l) }()
	left := 2
	if d.HTTP != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", live.NewMetrics(c).Handler())
		mux.Handle("GET /", live.Dashboard(c, d.Page))
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
		go func() { _ = hs.Serve(d.HTTP) }()
		d.Log.Info("dashboard on http://"+d.HTTP.Addr().String()+"/ and metrics on /metrics", "addr", d.HTTP.Addr().String())
	}
	stop := make(chan struct{})
	go func() { errc <- c.Loop(stop, d.Poll) }()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	d.Log.Info("serving", "socket", sock, "pid", os.Getpid(), "data_dir", d.DataDir, "policy", d.Config.PolicyID)
	// Jobs keep running after the daemon stops; the loop is let finish
	// its tick before the store closes.
	var first error
	select {
	case s := <-sigs:
		d.Log.Info("stopping: jobs keep running", "signal", s.String())
	case first = <-errc:
		left--
	}
	close(stop)
	l.Close()
	for ; left > 0; left-- {
		first = errors.Join(first, <-errc)
	}
	if first != nil {
		d.Log.Error("stopped", "err", first)
	}
	return first
}

// listen opens the API's socket with its mode and group.
func (d *Daemon) listen() (string, net.Listener, error) {
	sock := d.Socket
	if sock == "" {
		sock = filepath.Join(d.DataDir, "allot.sock")
	} else {
		if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
			return "", nil, err
		}
		if err := CheckDataDir(filepath.Dir(sock)); err != nil {
			return "", nil, err
		}
	}
	_ = os.Remove(sock) // the store's lock says no other daemon owns this directory
	l, err := net.Listen("unix", sock)
	if err != nil {
		return "", nil, err
	}
	mode := os.FileMode(0o600)
	if d.SocketMode != 0 {
		mode = d.SocketMode
	}
	if err := os.Chmod(sock, mode); err != nil {
		return "", nil, err
	}
	if d.Shared {
		// Others reach the socket only through the data directory.
		if err := os.Chmod(d.DataDir, 0o711); err != nil {
			return "", nil, err
		}
	}
	if d.SocketGID >= 0 {
		if err := os.Chown(sock, -1, d.SocketGID); err != nil {
			return "", nil, err
		}
	}
	return sock, l, nil
}
