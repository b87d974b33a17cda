package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
)

// needsDaemon marks a command whose help example talks to a running
// daemon: TestEveryHelpExampleRuns skips it (the live tests run a daemon).
const needsDaemon = "needs-daemon"

func defaultDataDir() string {
	if os.Getuid() == 0 {
		return "/var/lib/allot"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "allot")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".allot"
	}
	return filepath.Join(home, ".local", "share", "allot")
}

// socketPath is --socket, else $ALLOT_SOCKET, else the default data
// directory's socket, else (when there is none) the machine's root
// daemon's.
func socketPath(flag string) string {
	if flag != "" {
		return flag
	}
	if s := os.Getenv("ALLOT_SOCKET"); s != "" {
		return s
	}
	own := filepath.Join(defaultDataDir(), "allot.sock")
	if _, err := os.Stat(own); err != nil {
		if _, err := os.Stat(rootSocket); err == nil {
			return rootSocket // the machine's daemon, run as root
		}
	}
	return own
}

// rootSocket is where a daemon run as root with the default data
// directory listens, for every user of the machine to find.
const rootSocket = "/run/allot/allot.sock"

// liveConfig turns a scenario (or policy file with a fleet) into the
// controller's configuration; the fleet's devices are numbered from 0 in
// the order of its types and nodes. A file with no fleet gets this
// machine's devices (NVIDIA GPUs, then Neuron devices). What the file
// warns of (a quota beyond the fleet) is printed on warn.
func liveConfig(path string, warn io.Writer) (*live.Config, *scenarios.Live, func(string, []byte) (*live.Config, error), error) {
	var found map[string]live.FlavorDevices
	var fleetText string
	discover := func() (string, error) {
		ctx := context.Background()
		gpus, gerr := local.DiscoverNVIDIA(ctx)
		neurons, nerr := local.DiscoverNeuron(ctx)
		if len(gpus) == 0 && len(neurons) == 0 {
			return "", fmt.Errorf("no accelerators found (%w; %w)", orNone(gerr, "nvidia-smi"), orNone(nerr, "neuron-ls"))
		}
		text, byType := discoveredFleet(gpus, neurons)
		found, fleetText = byType, text
		return text, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, badInput(err)
	}
	s, err := scenarios.ParseLive(path, data, discover)
	if err != nil {
		return nil, nil, nil, badInput(err)
	}
	simrun.Warn(warn, s)
	if fleetText == "" {
		if fleetText, err = scenarios.FleetSection(data); err != nil {
			return nil, nil, nil, badInput(err)
		}
	}
	cfg := liveConfigOf(s, found)
	cfg.PolicyID = policyID(path, data)
	// A promoted policy file runs on the daemon's fleet: its own, or the
	// one this daemon was started on when the file has none.
	reconfig := func(name string, data []byte) (*live.Config, error) {
		ps, err := scenarios.ParseLive(name, data, func() (string, error) { return fleetText, nil })
		if err != nil {
			return nil, err
		}
		pc := liveConfigOf(ps, found)
		pc.PolicyID = policyID(name, data)
		return pc, nil
	}
	return cfg, s.Live, reconfig, nil
}

// policyID names a policy file in the history: its base name and the
// start of the SHA-256 of its text.
func policyID(path string, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s@%x", filepath.Base(path), sum[:6])
}

func orNone(err error, tool string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s lists no devices", tool)
}

// liveConfigOf is a loaded scenario's controller configuration; found
// holds discovered devices by instance type (nil: all declared).
func liveConfigOf(s *scenarios.Scenario, found map[string]live.FlavorDevices) *live.Config {
	built := s.Build()
	cfg := &live.Config{Name: s.Name, Policy: s.Policy.Kind, Model: built.Model, Priorities: map[string]int32{"": 0},
		GracePeriod: time.Duration(s.Policy.Preemption.GracePeriod * float64(time.Second)), MaxRetries: s.Policy.Preemption.MaxRetries}
	for _, t := range s.Teams {
		cfg.Teams = append(cfg.Teams, t.Name)
		var q []int
		for _, it := range built.Flavors {
			q = append(q, int(t.Quota[it.Name].Accelerators))
		}
		cfg.Quotas = append(cfg.Quotas, q)
	}
	for _, p := range s.Priority {
		cfg.Priorities[p.Name] = int32(p.Value)
	}
	next := 0
	for f, t := range built.Flavors {
		fd := live.FlavorDevices{Name: t.Name, PerNode: t.Accelerators, PricePerHour: t.PricePerHour, Priced: t.Priced}
		if d, ok := found[t.Name]; ok {
			fd.Devices, fd.Kind, fd.Cores = d.Devices, d.Kind, d.Cores
		} else {
			for i := 0; i < t.Accelerators*max(0, built.Model.Flavors[f].Nodes); i++ {
				fd.Devices = append(fd.Devices, strconv.Itoa(next))
				next++
			}
		}
		cfg.Flavors = append(cfg.Flavors, fd)
	}
	return cfg
}

// discoveredFleet is the fleet section of this machine's devices: one node
// of one instance type per GPU model (nvidia-<model>, e.g.
// nvidia-h100-80gb-hbm3) and one for its Neuron devices (neuron-<family>,
// e.g. neuron-trn1, one accelerator per device), with their devices.
func discoveredFleet(gpus []local.GPU, neurons []local.NeuronDevice) (string, map[string]live.FlavorDevices) {
	byType := map[string]live.FlavorDevices{}
	var order []string
	add := func(name string, kind, dev string, cores []int) {
		d, ok := byType[name]
		if !ok {
			order = append(order, name)
			d.Kind = kind
		}
		d.Devices = append(d.Devices, dev)
		if cores != nil {
			if d.Cores == nil {
				d.Cores = map[string][]int{}
			}
			d.Cores[dev] = cores
		}
		byType[name] = d
	}
	accel := map[string]string{}
	for _, g := range gpus {
		model := slug(strings.TrimPrefix(g.Name, "NVIDIA "))
		accel["nvidia-"+model] = model
		add("nvidia-"+model, live.KindNVIDIA, g.Index, nil)
	}
	for _, n := range neurons {
		family, chip := neuronFamily(n.InstanceType)
		accel["neuron-"+family] = chip
		add("neuron-"+family, live.KindNeuron, strconv.Itoa(n.Index), n.Cores)
	}
	var b strings.Builder
	b.WriteString("instance_types:\n")
	for _, n := range order {
		fmt.Fprintf(&b, "  - {name: %s, accelerator: %s, accelerators: %d}\n", n, accel[n], len(byType[n].Devices))
	}
	b.WriteString("nodes:\n")
	for _, n := range order {
		fmt.Fprintf(&b, "  - {type: %s, count: 1}\n", n)
	}
	return b.String(), byType
}

// slug lowers a model name to letters, digits and single dashes.
func slug(s string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(s)), "-")
}

// neuronFamily names a Neuron machine's family (trn1 of trn1.32xlarge)
// and its chip (trainium1); "device" and "neuron" when neuron-ls does not
// say which instance it runs on.
func neuronFamily(instanceType string) (family, chip string) {
	family, _, _ = strings.Cut(instanceType, ".")
	family = strings.TrimSuffix(family, "n") // trn1n is a trn1 with more network
	switch family {
	case "trn1":
		return family, "trainium1"
	case "trn2":
		return family, "trainium2"
	case "inf2":
		return family, "inferentia2"
	case "":
		return "device", "neuron"
	}
	return slug(family), "neuron"
}

func newLiveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "live",
		Short: "Run a policy on real work: a durable job queue for this machine",
		Long: `Live mode runs the policy core the simulator uses on real processes: a
daemon (allot live serve) keeps a durable queue in its data directory and
starts, preempts and restarts jobs; allot submit, jobs, describe, cancel and
logs talk to it over its Unix socket, and allot live export writes its
history as a run directory that allot report renders.`,
		Example: `  allot live serve --help`,
	}
	cmd.AddCommand(newServeCmd(), newShimCmd(), newLiveSnapshotCmd(), newLiveExportCmd(), newCheckStoreCmd(), newBackupCmd())
	cmd.AddCommand(newReplayCmd(), newSleepJobCmd())
	return cmd
}

// clientErr maps a daemon's answer to an exit code: its refusals of a
// request are bad input (2), as are unknown jobs. What the daemon said
// is printed through live.Printable: it may quote what users named.
func clientErr(err error) error {
	var ae *live.APIError
	if errors.As(err, &ae) {
		return badInput(errors.New(live.Printable(ae.Msg)))
	}
	if err != nil {
		return errors.New(live.Printable(err.Error()))
	}
	return nil
}

func addSocketFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "socket", "", "the daemon's socket (default $ALLOT_SOCKET, else the data directory's)")
}

func newSubmitCmd() *cobra.Command {
	var req live.Request
	var socket, limit, ckpt string
	var envs []string
	var kt kubeTarget
	var kj kubeJob
	cmd := &cobra.Command{
		Use:   "submit --team T --priority CLASS --accelerators N [flags] -- CMD [ARGS...]",
		Short: "Submit a job to the live daemon; prints its id",
		Long: `Submit a job: CMD runs in this directory, as you, as a process group on the
devices the policy gives it. It gets a clean environment, not this
shell's: HOME, USER, LOGNAME, SHELL and PATH from your account, its
devices (CUDA_VISIBLE_DEVICES, NEURON_RT_VISIBLE_CORES), ALLOT_JOB_ID,
ALLOT_CHECKPOINT_DIR, ALLOT_RESTART_COUNT and ALLOT_ADMITTED_AT, and what
--env sets: --env NAME=VALUE, or --env NAME for this shell's value of
NAME (repeatable; NAME is letters, digits and '_', not ALLOT_* or the
device variables). A preempted job gets SIGTERM, the policy's grace
period to checkpoint, then SIGKILL, and is restarted later with the same
command.

The command line, directory and environment are shown only to you and
your team's and the machine's admins; other users see the job's name,
team, state and devices. Each submission carries a random request id:
when the daemon's answer is lost (the connection breaks, or no answer
comes), submit asks again with the same id and gets the job the first
request made, never a second one.`,
		Example: `  allot submit --team research --priority low --accelerators 2 -- sh docs/examples/train.sh
  allot submit --team research --priority low --accelerators 1 --env WANDB_API_KEY --env EPOCHS=3 -- python train.py
  allot submit --backend kubernetes --team research --priority low --accelerators 8 --image my/train:1 -- python train.py`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if req.Team == "" {
				return &usageError{cmd: cmd.CommandPath(), msg: "--team is required"}
			}
			if limit != "" {
				d, err := scenarios.ParseDuration(limit)
				if err != nil || d <= 0 {
					return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--time-limit %q: want a duration such as 90m or 2h", limit)}
				}
				req.TimeLimit = d
			}
			if ckpt != "" {
				d, err := scenarios.ParseDuration(ckpt)
				if err != nil || d <= 0 {
					return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--checkpoint-interval %q: want a duration such as 10m", ckpt)}
				}
				req.CheckpointInterval = d
			}
			req.Command = args
			for _, e := range envs {
				name, value, ok := strings.Cut(e, "=")
				if !ok {
					if value, ok = os.LookupEnv(name); !ok {
						return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--env %s: %s is not set here; give --env %s=VALUE", live.Printable(name), live.Printable(name), live.Printable(name))}
					}
				}
				if err := live.CheckEnv(name + "=" + value); err != nil {
					return &usageError{cmd: cmd.CommandPath(), msg: "--env: " + live.Printable(err.Error())}
				}
				req.Env = append(req.Env, name+"="+value)
			}
			if on, err := kt.on(cmd); err != nil || on {
				if err != nil {
					return err
				}
				if len(req.Env) > 0 {
					return &usageError{cmd: cmd.CommandPath(), msg: "--env is for the local daemon; on Kubernetes the image sets the environment"}
				}
				kj.req = req
				id, err := submitKube(&kt, &kj)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), id)
				return nil
			}
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			req.Dir = dir
			// A request id, so that a retry after a lost answer returns
			// the first job instead of making a second.
			req.RequestID = live.NewRequestID()
			id, err := live.NewClient(socketPath(socket)).Submit(&req)
			if err != nil {
				return clientErr(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), id)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Team, "team", "", "the team the job runs for")
	f.StringVar(&req.PriorityClass, "priority", "", "priority class (the config's priority_classes)")
	f.IntVar(&req.Accelerators, "accelerators", 0, "accelerators the job needs")
	f.StringVar(&req.InstanceType, "instance-type", "", "run only on this instance type")
	f.StringVar(&req.Name, "name", "", "a name to show (default job-ID)")
	f.StringVar(&limit, "time-limit", "", "fail the job when a run lasts longer (e.g. 2h)")
	f.StringVar(&ckpt, "checkpoint-interval", "", "how often the job checkpoints (e.g. 10m): preemption prefers jobs that lose least")
	f.StringArrayVar(&envs, "env", nil, "set NAME=VALUE in the job's clean environment; NAME alone passes this shell's value (repeatable)")
	f.StringVar(&kj.image, "image", "", "with --backend kubernetes: the container image that runs CMD")
	f.StringVar(&kj.resource, "resource", "nvidia.com/gpu", "with --backend kubernetes: the accelerator resource (aws.amazon.com/neuron for Trainium)")
	f.IntVar(&kj.pods, "pods", 1, "with --backend kubernetes: pods that run together (a gang, admitted whole), the accelerators split evenly")
	f.StringArrayVar(&kj.tolerations, "toleration", nil, "with --backend kubernetes: tolerate a taint, KEY[=VALUE]:EFFECT (repeatable)")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

func newJobsCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "jobs [--all-teams] [--json]",
		Short: "List your live jobs (--all-teams: everyone's)",
		Example: `  allot jobs
  allot jobs --all-teams --json`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "/v1/jobs"
			if all {
				path += "?all=1"
			}
			var jobs []live.View
			if on, err := kt.on(cmd); err != nil {
				return err
			} else if on {
				if jobs, err = kubeJobs(&kt); err != nil {
					return err
				}
			} else if err := live.NewClient(socketPath(socket)).Do("GET", path, nil, &jobs); err != nil {
				return clientErr(err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), jobs)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tTEAM\tCLASS\tACC\tSTATE\tDEVICES\tREASON")
			p := live.Printable
			for _, j := range jobs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p(j.ID), p(j.Name), p(j.Team), p(j.PriorityClass), j.Accelerators, p(j.State),
					p(strings.Join(j.Devices, ",")), p(j.Reason))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&all, "all-teams", false, "every user's jobs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

func newDescribeCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "describe JOB",
		Short:       "A live job's state, why it is pending, and its history",
		Example:     `  allot describe 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var d live.Description
			var raw []byte
			on, err := kt.on(cmd)
			if err != nil {
				return err
			} else if on {
				kd, err := describeKube(&kt, args[0])
				if err != nil {
					return err
				}
				d = *kd
			} else if err := live.NewClient(socketPath(socket)).Do("GET", "/v1/jobs/"+args[0], nil, &raw); err != nil {
				return clientErr(err)
			} else if err := json.Unmarshal(raw, &d); err != nil {
				return err
			}
			if asJSON {
				if raw != nil {
					return printJSON(cmd.OutOrStdout(), json.RawMessage(raw))
				}
				return printJSON(cmd.OutOrStdout(), d)
			}
			printDescription(cmd.OutOrStdout(), &d, eventTimes(raw, d.History), !on)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

// eventTimes is the wall-clock instant of each event of a describe answer:
// its "at" when the daemon gives one, else the daemon's epoch plus its
// time in seconds; nil when neither is known.
func eventTimes(raw []byte, events []live.Event) []time.Time {
	var a struct {
		Epoch   *time.Time `json:"epoch"`
		History []struct {
			At *time.Time `json:"at"`
		} `json:"history"`
	}
	if raw == nil || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	out := make([]time.Time, len(events))
	for i, e := range events {
		switch {
		case i < len(a.History) && a.History[i].At != nil && !a.History[i].At.IsZero():
			out[i] = *a.History[i].At
		case a.Epoch != nil && !a.Epoch.IsZero():
			out[i] = a.Epoch.Add(time.Duration(e.Time * float64(time.Second)))
		default:
			return nil
		}
	}
	return out
}

// printDescription writes describe's text: everything a user named or a
// job said goes through live.Printable. at is each event's wall-clock
// instant (nil: unknown); local says the daemon is this machine's, which
// leaves out the command line of a job only its owner and admins read.
func printDescription(w io.Writer, d *live.Description, at []time.Time, local bool) {
	p := live.Printable
	fmt.Fprintf(w, "job %s (%s): %s\n", p(d.ID), p(d.Name), p(d.State))
	if d.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", p(d.Reason))
	}
	fmt.Fprintf(w, "team %s, priority class %s, %d accelerators, devices [%s], %d preemptions, %d restarts, owner uid %d\n",
		p(d.Team), strconv.Quote(d.PriorityClass), d.Accelerators, p(strings.Join(d.Devices, ",")), d.Preemptions, d.Restarts, d.UID)
	const stamp = "2006-01-02 15:04:05 MST"
	times := "submitted " + d.Submitted.Local().Format(stamp)
	if d.Started != nil {
		times += ", first started " + d.Started.Local().Format(stamp)
	}
	if d.Ended != nil {
		times += ", ended " + d.Ended.Local().Format(stamp)
	}
	fmt.Fprintln(w, times)
	if d.ExitCode != nil {
		fmt.Fprintf(w, "exit code: %d\n", *d.ExitCode)
	}
	switch {
	case len(d.Command) > 0:
		fmt.Fprintf(w, "command: %s\n", p(strings.Join(d.Command, " ")))
		if d.Dir != "" {
			fmt.Fprintf(w, "directory: %s\n", p(d.Dir))
		}
		if len(d.Env) > 0 {
			var names []string
			for _, e := range d.Env {
				n, _, _ := strings.Cut(e, "=")
				names = append(names, p(n))
			}
			fmt.Fprintf(w, "environment: %s set (values in --json)\n", strings.Join(names, ", "))
		}
	case local:
		fmt.Fprintln(w, "command: not shown (only the job's owner and its team's and the machine's admins see it)")
	}
	fmt.Fprintln(w, "history:")
	for i, e := range d.History {
		when := ""
		if at != nil {
			when = at[i].Local().Format("2006-01-02 15:04:05.000") + "  "
		}
		fmt.Fprintf(w, "  %s%10.3fs  %-10s %s\n", when, e.Time, p(e.Kind), p(e.Detail))
	}
}

func newCancelCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:         "cancel JOB",
		Short:       "Cancel a live job (a running one gets SIGTERM and its grace period)",
		Example:     `  allot cancel 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if on, err := kt.on(cmd); err != nil || on {
				if err != nil {
					return err
				}
				return cancelKube(&kt, args[0])
			}
			return clientErr(live.NewClient(socketPath(socket)).Do("POST", "/v1/jobs/"+args[0]+"/cancel", nil, nil))
		},
	}
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

func newLogsCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs [-f] JOB",
		Short: "A live job's output (stdout, then stderr, of every run)",
		Example: `  allot logs 1
  allot logs -f 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if on, err := kt.on(cmd); err != nil || on {
				if err != nil {
					return err
				}
				return logsKube(cmd, &kt, args[0], follow)
			}
			c := live.NewClient(socketPath(socket))
			base := "/v1/jobs/" + args[0] + "/logs"
			if !follow {
				var data []byte
				if err := c.Do("GET", base, nil, &data); err != nil {
					return clientErr(err)
				}
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			return followLogs(cmd, c, args[0], base)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing stdout as the job writes it, until it ends; then its stderr")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

// followLogs prints a job's stdout as it grows until the job is done for
// good, then its stderr.
func followLogs(cmd *cobra.Command, c *live.Client, id, base string) error {
	var shown int
	for {
		var d live.Description
		if err := c.Do("GET", "/v1/jobs/"+id, nil, &d); err != nil {
			return clientErr(err)
		}
		var data []byte
		if err := c.Do("GET", base+"?stream=stdout&offset="+strconv.Itoa(shown), nil, &data); err != nil {
			return clientErr(err)
		}
		if _, err := cmd.OutOrStdout().Write(data); err != nil {
			return err
		}
		shown += len(data)
		if d.State == live.StateSucceeded || d.State == live.StateFailed || d.State == live.StateCancelled {
			if err := c.Do("GET", base+"?stream=stderr", nil, &data); err != nil {
				return clientErr(err)
			}
			_, err := cmd.OutOrStdout().Write(data)
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
