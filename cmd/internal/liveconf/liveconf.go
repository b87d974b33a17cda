// Package liveconf makes live mode's configuration of a scenario or policy
// file: the controller's configuration on this machine's devices or on a
// cluster's fleet, a promoted policy's, the live section's access rules,
// and snapshot files of live state; and allot live serve's daemon on this
// machine (LocalDaemon) or controller of a cluster (ServeKube). It joins scenarios and live, which
// only the command line may import together (ARCHITECTURE.md), so it sits
// under cmd.
package liveconf

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
)

// Daemon is what a daemon on this machine runs with, read from a scenario
// or policy file.
type Daemon struct {
	Config *live.Config
	// Scenario is the file as loaded, with its warnings (a quota beyond
	// the fleet).
	Scenario *scenarios.Scenario
	// Live is the file's live section (nil: none).
	Live *scenarios.Live
	// Reconfig is a promoted policy file's configuration, on the
	// daemon's fleet: its own, or the one this daemon was started on when
	// the file has none.
	Reconfig func(name string, data []byte) (*live.Config, error)
}

// Load reads a scenario (or policy file with a fleet) as the controller's
// configuration; the fleet's devices are numbered from 0 in the order of
// its types and nodes. A file with no fleet gets this machine's devices
// (NVIDIA GPUs, then Neuron devices: local.DiscoverFleet).
func Load(path string) (*Daemon, error) {
	var found map[string]live.FlavorDevices
	var fleetText string
	discover := func() (string, error) {
		text, byType, err := local.DiscoverFleet(context.Background())
		if err != nil {
			return "", err
		}
		found, fleetText = byType, text
		return text, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := scenarios.ParseLive(path, data, discover)
	if err != nil {
		return nil, err
	}
	if fleetText == "" {
		if fleetText, err = scenarios.FleetSection(data); err != nil {
			return nil, err
		}
	}
	cfg := FromScenario(s, found)
	cfg.PolicyID = PolicyID(path, data)
	reconfig := func(name string, data []byte) (*live.Config, error) {
		ps, err := scenarios.ParseLive(name, data, func() (string, error) { return fleetText, nil })
		if err != nil {
			return nil, err
		}
		pc := FromScenario(ps, found)
		pc.PolicyID = PolicyID(name, data)
		return pc, nil
	}
	return &Daemon{Config: cfg, Scenario: s, Live: s.Live, Reconfig: reconfig}, nil
}

// PolicyID names a policy file in the history: its base name and the
// start of the SHA-256 of its text.
func PolicyID(path string, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s@%x", filepath.Base(path), sum[:6])
}

// FromScenario is a loaded scenario's controller configuration; found
// holds discovered devices by instance type (nil: all declared, numbered
// from 0).
func FromScenario(s *scenarios.Scenario, found map[string]live.FlavorDevices) *live.Config {
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

// Local is the daemon of a loaded file on this machine, with its access
// rules: its configuration, a promoted policy's, its snapshots, and the
// live section's socket mode and group (looked up; path names the file in
// errors). The caller sets where it keeps its state and what it serves.
func (ld *Daemon) Local(access *live.Access, path string) (*local.Daemon, error) {
	d := &local.Daemon{Config: ld.Config, Reconfig: ld.Reconfig, Access: access, Snapshot: DaemonSnapshot, SocketGID: -1}
	if ls := ld.Live; ls != nil {
		d.SocketMode, d.Shared = ls.SocketMode, ls.SocketGroup != "" || ls.SocketMode&0o077 != 0
		if ls.SocketGroup != "" {
			g, err := user.LookupGroup(ls.SocketGroup)
			if err != nil {
				return nil, fmt.Errorf("%s: live.socket_group: %w", path, err)
			}
			d.SocketGID, _ = strconv.Atoi(g.Gid)
		}
	}
	return d, nil
}
