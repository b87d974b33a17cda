package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

type liveYAML struct {
	SocketMode  string       `yaml:"socket_mode"`
	SocketGroup string       `yaml:"socket_group"`
	Access      []accessYAML `yaml:"access"`
	TokenFile   string       `yaml:"token_file"`
}

type accessYAML struct {
	User  string   `yaml:"user"`
	Group string   `yaml:"group"`
	Teams []string `yaml:"teams"`
	Admin bool     `yaml:"admin"`
}

// Live is live mode's access section: the socket's mode and group, and
// who may submit to which teams or administer them.
type Live struct {
	SocketMode  os.FileMode // 0: absent (the daemon's user only)
	SocketGroup string
	Access      []Access
	TokenFile   string
}

// Access is one rule: a user or a group, the teams it may submit to, and
// whether it administers them (every team when Teams is empty).
type Access struct {
	User, Group string
	Teams       []string
	Admin       bool
	Where       string // its key path, for errors found later (an unknown user)
}

func (b *builder) live() error {
	ly := b.f.Live
	if ly == nil {
		return nil
	}
	l := &Live{SocketGroup: ly.SocketGroup, TokenFile: ly.TokenFile}
	if ly.SocketMode != "" {
		m, err := strconv.ParseUint(ly.SocketMode, 8, 32)
		if err != nil || m > 0o777 {
			return b.errAt("live.socket_mode", "%q: want an octal file mode such as \"0660\"", ly.SocketMode)
		}
		l.SocketMode = os.FileMode(m)
	}
	teams := b.teamNames()
	for i, a := range ly.Access {
		where := fmt.Sprintf("live.access[%d]", i)
		if (a.User == "") == (a.Group == "") {
			return b.errAt(where, "give exactly one of user or group")
		}
		if len(a.Teams) == 0 && !a.Admin {
			return b.errAt(where, "grants nothing: list teams, or set admin: true")
		}
		for _, t := range a.Teams {
			if !slices.Contains(teams, t) {
				return b.errAt(where+".teams", "unknown team %q (teams: %v)", t, teams)
			}
		}
		l.Access = append(l.Access, Access{User: a.User, Group: a.Group, Teams: a.Teams, Admin: a.Admin, Where: where})
	}
	b.s.Live = l
	return nil
}

// LoadLive reads the file `allot live serve --config` takes: a whole
// scenario or a policy file (its workload and sim, where present, are
// checked and ignored). A file without a fleet section gets the fleet
// section fleet returns (the devices found on the machine).
func LoadLive(path string, fleet func() (string, error)) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLive(path, data, fleet, false)
}

// ParseLive is LoadLive on a file's contents; path names it in errors.
func ParseLive(path string, data []byte, fleet func() (string, error)) (*Scenario, error) {
	return parseLive(path, data, fleet, false)
}

// ParsePolicy is ParseLive without reading the workload section at all
// (an export needs the policy and fleet; a replay's trace need not be
// there). The section is dropped from the parsed document, so errors
// still name the file's own lines.
func ParsePolicy(path string, data []byte, fleet func() (string, error)) (*Scenario, error) {
	return parseLive(path, data, fleet, false, "workload")
}

// FleetSection is the fleet section of a scenario or policy file as YAML
// text ("" when it has none): what ParseLive's fleet callback returns for
// a file that leaves it out.
func FleetSection(data []byte) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return "", err
	}
	fleet := lookup(doc.Content[0], "fleet")
	if fleet == nil {
		return "", nil
	}
	out, err := marshal(fleet)
	return string(out), err
}

// ParseLiveOnFleet reads a policy file's contents (a policy held in a
// Kubernetes ConfigMap; path names it in errors) on a fleet that comes
// from elsewhere (the cluster's nodes): a fleet section of its own is an
// error.
func ParseLiveOnFleet(path string, data []byte, fleet string) (*Scenario, error) {
	return parseLive(path, data, func() (string, error) { return fleet, nil }, true)
}

func parseLive(path string, data []byte, fleet func() (string, error), given bool, without ...string) (*Scenario, error) {
	var f fileYAML
	at, err := decodeStrict(path, data, &f, without...)
	if err != nil {
		return nil, err
	}
	own := len(f.Fleet.Nodes) > 0 || len(f.Fleet.InstanceTypes) > 0
	if own && given {
		return nil, &FileError{File: path, Line: at.find("fleet").line, Path: "fleet", Msg: "the fleet comes from the cluster's nodes: remove this section"}
	}
	if !own && fleet != nil {
		text, err := fleet()
		if err != nil {
			return nil, fmt.Errorf("%s: no fleet section, and no devices found: %w", path, err)
		}
		if err := yaml.Unmarshal([]byte(text), &f.Fleet); err != nil {
			return nil, fmt.Errorf("discovered fleet: %w", err)
		}
	}
	b := &builder{file: path, dir: filepath.Dir(path), f: &f, at: at, s: &Scenario{Path: path}, forLive: true}
	return b.build()
}
