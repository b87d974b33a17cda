package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
	bolt "go.etcd.io/bbolt"
)

// liveAccess resolves the live section's users and groups to ids; nil
// when there is none (the daemon's own user only).
func liveAccess(config string, l *scenarios.Live) (*live.Access, error) {
	a := &live.Access{Self: os.Getuid(), GroupsOf: groupsOf}
	if l == nil {
		return a, nil
	}
	for _, r := range l.Access {
		if os.Geteuid() != 0 && (r.Group != "" || r.User != "" && r.User != selfName()) {
			// It would run their jobs as its own user: say so, and refuse.
			who := "user " + r.User
			if r.Group != "" {
				who = "group " + r.Group
			}
			return nil, badInput(fmt.Errorf("%s: %s: this daemon runs as uid %d, not root, so it can run jobs only as its own user, "+
				"not for %s: run it as root to take other users' jobs, or remove the rule", config, r.Where, os.Geteuid(), who))
		}
		rule := live.Rule{UID: -1, GID: -1, Teams: r.Teams, Admin: r.Admin}
		if r.User != "" {
			u, err := user.Lookup(r.User)
			if err != nil {
				return nil, badInput(fmt.Errorf("%s: %s.user: %w", config, r.Where, err))
			}
			rule.UID, _ = strconv.Atoi(u.Uid)
		} else {
			g, err := user.LookupGroup(r.Group)
			if err != nil {
				return nil, badInput(fmt.Errorf("%s: %s.group: %w", config, r.Where, err))
			}
			rule.GID, _ = strconv.Atoi(g.Gid)
		}
		a.Rules = append(a.Rules, rule)
	}
	return a, nil
}

func selfName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

func groupsOf(uid int) []int {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return nil
	}
	ids, _ := u.GroupIds()
	var out []int
	for _, s := range ids {
		if g, err := strconv.Atoi(s); err == nil {
			out = append(out, g)
		}
	}
	return out
}

func newServeCmd() *cobra.Command {
	var config, dataDir, httpAddr, configMap, logFormat, retain string
	var kt kubeTarget
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "serve --config FILE [--data-dir DIR] | --backend kubernetes [--config FILE]",
		Short: "Run the live daemon on this machine, or the controller of a cluster",
		Long: `Run the live daemon: FILE is a scenario or a policy file. Its fleet's devices
are this machine's, numbered from 0; without a fleet section, the NVIDIA
GPUs nvidia-smi lists are (one instance type per model, named
nvidia-MODEL), else the Neuron devices neuron-ls lists (neuron-FAMILY);
team quotas name these types. State is kept in DIR
(default ~/.local/share/allot, /var/lib/allot as root) and the API listens
on DIR/allot.sock (/run/allot/allot.sock for root's default, where every
user's client looks), for the daemon's own user only unless the file's
live section says who else may submit to which teams: run it as root for
that, and it runs each job as its submitter (docs/live.md, "Running the
daemon safely"). Jobs keep running when
the daemon stops or is killed; a restarted daemon re-adopts them.

With --backend kubernetes it is the controller of a cluster's batch/v1
Jobs: its policy is the policy.yaml of ConfigMap -n/--policy-configmap
(allot-system/allot-policy; --config FILE writes it first), its fleet the
cluster's nodes; replicas elect a leader. See docs/live.md.`,
		Example: `  allot live serve --config scenarios/live/two-teams.yaml --data-dir /tmp/allot --http :9464 --retain 30d &
  export ALLOT_SOCKET=/tmp/allot/allot.sock
  curl -s 127.0.0.1:9464/metrics | grep allot_team_allocated
  # on a cluster: the policy goes to ConfigMap allot-system/allot-policy
  allot live serve --backend kubernetes --config scenarios/live/kubernetes.yaml`,
		Annotations: map[string]string{needsDaemon: "starts one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if on, err := kt.on(cmd); err != nil || on {
				if err != nil {
					return err
				}
				return serveKube(cmd, &kt, config, configMap, httpAddr)
			}
			if config == "" {
				return &usageError{cmd: cmd.CommandPath(), msg: "--config FILE is required"}
			}
			cfg, ls, reconfig, err := liveConfig(config, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			access, err := liveAccess(config, ls)
			if err != nil {
				return err
			}
			rootDefault := dataDir == "" && os.Geteuid() == 0
			if dataDir == "" {
				dataDir = defaultDataDir()
			}
			o := serveOpts{rootDefault: rootDefault, cfg: cfg, reconfig: reconfig, ls: ls, access: access, config: config, dataDir: dataDir,
				httpAddr: httpAddr, poll: poll, logFormat: logFormat}
			if retain != "" {
				d, err := scenarios.ParseDuration(retain)
				if err != nil || d <= 0 {
					return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--retain %q: want a duration such as 30d", retain)}
				}
				o.retain = time.Duration(d * float64(time.Second))
			}
			return serve(cmd, o)
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "scenario or policy file with a fleet")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "state directory (default ~/.local/share/allot)")
	cmd.Flags().DurationVar(&poll, "poll", 50*time.Millisecond, "how often to look for ended runs")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve a read-only dashboard on / and Prometheus metrics on /metrics at ADDR (host defaults to 127.0.0.1)")
	cmd.Flags().StringVar(&logFormat, "log-format", "text", "the log on standard error: text or json (one line per decision and fault, with job ids)")
	cmd.Flags().StringVar(&retain, "retain", "", "delete finished jobs' files and history this long after they ended (e.g. 30d; default: keep all)")
	cmd.Flags().StringVar(&configMap, "policy-configmap", "allot-policy", "with --backend kubernetes: the ConfigMap (in -n, default allot-system) whose policy.yaml the controller follows; --config writes it")
	addBackendFlags(cmd, &kt)
	return cmd
}

// listenHTTP listens for --http: read-only, but bound to 127.0.0.1 unless
// the address names a host.
func listenHTTP(addr string) (net.Listener, error) {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	hl, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, badInput(fmt.Errorf("--http %s: %w", addr, err))
	}
	return hl, nil
}

// serveOpts is what `live serve` runs a local daemon with.
type serveOpts struct {
	cfg       *live.Config
	reconfig  func(string, []byte) (*live.Config, error)
	ls        *scenarios.Live
	access    *live.Access
	config    string // the file, for errors
	dataDir   string
	httpAddr  string
	poll      time.Duration
	logFormat string
	retain    time.Duration
	// rootDefault: run as root on the default data directory, so the
	// socket is rootSocket, where every user's client looks.
	rootDefault bool
}

func serve(cmd *cobra.Command, o serveOpts) error {
	log, err := newLogger(cmd.ErrOrStderr(), o.logFormat)
	if err != nil {
		return err
	}
	// Everything the configuration can get wrong is found before the store
	// is opened, so that no job is started by a daemon that then refuses
	// to run.
	sockGID := -1
	if o.ls != nil && o.ls.SocketGroup != "" {
		g, err := user.LookupGroup(o.ls.SocketGroup)
		if err != nil {
			return badInput(fmt.Errorf("%s: live.socket_group: %w", o.config, err))
		}
		sockGID, _ = strconv.Atoi(g.Gid)
	}
	var hl net.Listener
	if o.httpAddr != "" {
		if hl, err = listenHTTP(o.httpAddr); err != nil {
			return err
		}
		defer hl.Close()
	}
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return err
	}
	if err := local.CheckDataDir(o.dataDir); err != nil {
		return badInput(err)
	}
	store, err := openStore(o.dataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := live.WritePid(o.dataDir); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	be := &local.Backend{Dir: o.dataDir, Shim: []string{exe, "live", "shim"}}
	c, err := live.NewWith(o.cfg, store, be, live.SystemClock{}, live.Options{Log: log, Retention: o.retain})
	if err != nil {
		return err
	}
	sock := filepath.Join(o.dataDir, "allot.sock")
	if o.rootDefault {
		sock = rootSocket
		if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
			return err
		}
		if err := local.CheckDataDir(filepath.Dir(sock)); err != nil {
			return err
		}
	}
	_ = os.Remove(sock) // the store's lock says no other daemon owns this directory
	l, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o600)
	if o.ls != nil && o.ls.SocketMode != 0 {
		mode = o.ls.SocketMode
	}
	if err := os.Chmod(sock, mode); err != nil {
		return err
	}
	if o.ls != nil && (o.ls.SocketGroup != "" || o.ls.SocketMode&0o077 != 0) {
		// Others reach the socket only through the data directory.
		if err := os.Chmod(o.dataDir, 0o711); err != nil {
			return err
		}
	}
	if sockGID >= 0 {
		if err := os.Chown(sock, -1, sockGID); err != nil {
			return err
		}
	}
	srv := &live.Server{C: c, Logs: be.LogPaths, Access: o.access, Snapshot: liveSnapshot, Policy: o.reconfig}
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(l) }()
	left := 2
	if hl != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", live.NewMetrics(c).Handler())
		mux.Handle("GET /", live.Dashboard(c, dashboardPage))
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
		go func() { _ = hs.Serve(hl) }()
		log.Info("dashboard on http://"+hl.Addr().String()+"/ and metrics on /metrics", "addr", hl.Addr().String())
	}
	stop := make(chan struct{})
	go func() { errc <- c.Loop(stop, o.poll) }()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	log.Info("serving", "socket", sock, "pid", os.Getpid(), "data_dir", o.dataDir, "policy", o.cfg.PolicyID)
	// Jobs keep running after the daemon stops; the loop is let finish
	// its tick before the store closes.
	var first error
	select {
	case s := <-sigs:
		log.Info("stopping: jobs keep running", "signal", s.String())
	case first = <-errc:
		left--
	}
	close(stop)
	l.Close()
	for ; left > 0; left-- {
		first = errors.Join(first, <-errc)
	}
	if first != nil {
		log.Error("stopped", "err", first)
	}
	return first
}

// openStore opens DATA/state.db for the daemon once it is sure the file is
// sound and no other daemon holds it: a damaged store is refused before
// anything is written to it, with how to restore it.
func openStore(dataDir string) (*live.Store, error) {
	path := filepath.Join(dataDir, "state.db")
	held := func(pid int) error {
		if pid > 0 {
			return fmt.Errorf("another daemon (pid %d) uses %s: stop it first, or give this one another --data-dir", pid, dataDir)
		}
		return fmt.Errorf("another process holds %s: stop it first, or give this daemon another --data-dir", path)
	}
	if pid, err := live.HeldBy(dataDir); err != nil {
		return nil, err
	} else if pid != 0 {
		return nil, held(pid)
	}
	if err := live.CheckStoreFile(path); err != nil {
		return nil, err
	}
	if err := checkStoreApart(path); err != nil {
		return nil, err
	}
	store, err := live.OpenStore(path)
	if errors.Is(err, bolt.ErrTimeout) {
		pid, _ := live.HeldBy(dataDir)
		return nil, held(pid)
	}
	return store, err
}

// checkStoreApart reads the whole store in a process of its own (`allot
// live check-store`): a file damaged enough to crash its reader crashes
// that process, not the daemon.
func checkStoreApart(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	ck := exec.Command(exe, "live", "check-store", path)
	ck.Stdout, ck.Stderr = &out, &out
	err = ck.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && (ee.ExitCode() == 1 || ee.ExitCode() == 2):
		return badInput(errors.New(strings.TrimPrefix(firstLine(out.String()), "allot: ")))
	case errors.As(err, &ee):
		return &live.StoreDamagedError{Path: path, Why: fmt.Sprintf("reading it crashed the checker (%v)", ee.ProcessState)}
	}
	return fmt.Errorf("check %s: %w", path, err)
}

// newLogger is the daemon's log: text lines (or JSON) on w.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, badInput(fmt.Errorf("--log-format %q: want text or json", format))
}

func newShimCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "shim RUNDIR",
		Short:  "Supervise one run of a job (started by the daemon)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return local.RunShim(args[0])
		},
	}
}

func newCheckStoreCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check-store FILE",
		Short: "Check a live daemon's store (state.db, or a backup) page by page",
		Long: `Read every page and record of a store file without changing it: its meta
pages, its size against what its last transaction uses, bbolt's consistency
check, and every job and event decoded. live serve runs it before it opens
its store; use it on a backup before restoring it. Exit 0: sound; 1: damaged
(the message says what and how to restore); 2: it cannot be read.`,
		Example: `  allot live backup -o /tmp/allot-state.db && allot live check-store /tmp/allot-state.db
  allot live check-store /var/lib/allot/state.db`,
		Annotations: map[string]string{needsDaemon: "checks its store"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(args[0]); err != nil {
				return badInput(err)
			}
			if err := live.VerifyStore(args[0]); err != nil {
				var de *live.StoreDamagedError
				if errors.As(err, &de) {
					return &problemError{err.Error()}
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: sound\n", args[0])
			return nil
		},
	}
}

func newBackupCmd() *cobra.Command {
	var socket, out string
	cmd := &cobra.Command{
		Use:   "backup -o FILE",
		Short: "Copy a running daemon's store, consistent, while it runs",
		Long: `Ask the daemon for a consistent copy of its store (state.db) and write it to
FILE, whole or not at all. Only the daemon's admins may. To restore: stop
the daemon, check the copy (allot live check-store FILE), put it in place of
DATA_DIR/state.db, and start the daemon: jobs still running are re-adopted,
those that ended meanwhile are settled from their records.`,
		Example:     `  allot live backup -o /backup/allot-$(date +%F).db`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &usageError{cmd: cmd.CommandPath(), msg: "-o FILE is required"}
			}
			var data []byte
			if err := live.NewClient(socketPath(socket)).Do("GET", "/v1/backup", nil, &data); err != nil {
				return clientErr(err)
			}
			if err := writeFileAtomic(out, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "allot live backup: %d bytes to %s\n", len(data), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the file to write")
	addSocketFlag(cmd, &socket)
	return cmd
}
