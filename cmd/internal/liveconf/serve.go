package liveconf

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/cmd/internal/livereport"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
)

// ServeOptions are allot live serve's settings of the daemon on this
// machine.
type ServeOptions struct {
	Config    string        // the scenario or policy file
	DataDir   string        // "": local.DefaultDataDir, and root's socket for root
	HTTP      string        // the dashboard's and /metrics' address ("": none)
	LogFormat string        // text or json
	Retain    string        // how long finished jobs are kept, e.g. 30d ("": all)
	Poll      time.Duration // how often the daemon looks for ended runs
	Stderr    io.Writer     // the file's warnings, then the daemon's log
}

// LocalDaemon is the daemon o describes, ready for local.Serve, its HTTP
// listener open when o.HTTP is set (the caller closes it). Everything the
// configuration can get wrong is found here, before the store is opened,
// so that no job is started by a daemon that then refuses to run: what
// it refuses is a usage error (errtext.UsageError) or the input's
// (errtext.InputError).
func LocalDaemon(o ServeOptions) (*local.Daemon, error) {
	if o.Config == "" {
		return nil, errtext.Usagef("--config FILE is required")
	}
	ld, err := Load(o.Config)
	if err != nil {
		return nil, errtext.Input(err)
	}
	simrun.Warn(o.Stderr, ld.Scenario)
	access, err := Access(o.Config, ld.Live)
	if err != nil {
		return nil, errtext.Input(err)
	}
	rootDefault := o.DataDir == "" && os.Geteuid() == 0
	if o.DataDir == "" {
		o.DataDir = local.DefaultDataDir()
	}
	var keep time.Duration
	if o.Retain != "" {
		d, err := scenarios.ParseDuration(o.Retain)
		if err != nil || d <= 0 {
			return nil, errtext.Usagef("--retain %q: want a duration such as 30d", o.Retain)
		}
		keep = time.Duration(d * float64(time.Second))
	}
	log, err := logger(o.Stderr, o.LogFormat)
	if err != nil {
		return nil, err
	}
	d, err := ld.Local(access, o.Config)
	if err != nil {
		return nil, errtext.Input(err)
	}
	d.DataDir, d.Page, d.Poll, d.Retain, d.Log = o.DataDir, livereport.DashboardPage, o.Poll, keep, log
	if rootDefault { // where every user's client looks
		d.Socket = local.RootSocket
	}
	if o.HTTP != "" {
		if d.HTTP, err = ListenHTTP(o.HTTP); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// ListenHTTP listens for --http: read-only, but bound to 127.0.0.1
// unless the address names a host.
func ListenHTTP(addr string) (net.Listener, error) {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	hl, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errtext.Input(fmt.Errorf("--http %s: %w", addr, err))
	}
	return hl, nil
}

// logger is the daemon's log: text lines (or JSON) on w.
func logger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, errtext.Input(fmt.Errorf("--log-format %q: want text or json", format))
}

// ServeKube runs the controller of the cluster t until SIGINT or
// SIGTERM: it follows the policy.yaml of ConfigMap configMap (writing
// the policy file config there first, when set) and serves its dashboard
// at httpAddr (when set); log gets its log.
func ServeKube(t *kube.Target, config, configMap, httpAddr string, log io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := kube.ServeOptions{ConfigMap: configMap, PolicyFile: config, Configure: KubeConfigure, Page: livereport.DashboardPage, Log: log}
	if httpAddr != "" {
		o.Listen = func() (net.Listener, error) { return ListenHTTP(httpAddr) }
	}
	return t.Serve(ctx, o)
}
