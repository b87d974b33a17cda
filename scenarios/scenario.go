package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/workload"
)

// Scenario is a loaded, validated scenario file.
type Scenario struct {
	Path        string
	Name        string
	Description string

	Catalog  *hardware.Catalog
	Fleet    hardware.Fleet
	Cohorts  []Cohort
	Teams    []Team
	Priority []PriorityClass
	Policy   Policy

	Objectives []Objective
	Timeline   []Change

	TracePath   string // absolute; "" for synthetic
	SkipInvalid bool
	Synthetic   *workload.Synthetic

	Seed    uint64
	Horizon float64
	Warmup  float64
	Bucket  float64

	// Live is the live section; nil when the file has none.
	Live *Live

	// Warnings are what loads but deserves a word: FILE:LINE: key.path:
	// message, each once.
	Warnings []string

	raw *fileYAML
	at  places
	dir string
}

// Change is one timeline entry.
type Change struct {
	At        float64
	NodeType  string // capacity change when set
	NodeDelta int
	Team      string // quota change when set
	Quota     map[string]Quota
	Line      int
}

// PriorityValue returns a class's value (0 for "").
func (s *Scenario) PriorityValue(class string) (int, bool) {
	if class == "" {
		return 0, true
	}
	for _, p := range s.Priority {
		if p.Name == class {
			return p.Value, true
		}
	}
	return 0, false
}

// TeamIndex finds a team.
func (s *Scenario) TeamIndex(name string) int {
	for i, t := range s.Teams {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// Load reads and validates a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse validates scenario YAML; path names the file in errors and anchors
// relative trace paths.
func Parse(path string, data []byte) (*Scenario, error) {
	var f fileYAML
	at, err := decodeStrict(path, data, &f)
	if err != nil {
		return nil, err
	}
	b := &builder{file: path, dir: filepath.Dir(path), f: &f, at: at, s: &Scenario{Path: path}}
	return b.build()
}

type builder struct {
	file string // the scenario file
	dir  string
	f    *fileYAML
	at   places // where each key path is written (a policy file's sections in that file)
	s    *Scenario
	// forLive: a file for live serve, where workload and sim may be absent.
	forLive bool
	// formerTypes are the instance types of the scenario rebuilt, which
	// objectives may still name.
	formerTypes []string
}

// errAt is an error at a key path, placed where the path is written, or
// where its nearest written parent is (a required key that is missing).
func (b *builder) errAt(path, format string, args ...any) error {
	return b.wrapAt(path, nil, format, args...)
}

// wrapAt is errAt with a cause.
func (b *builder) wrapAt(path string, cause error, format string, args ...any) error {
	p := b.at.find(path)
	if p.file == "" {
		p.file = b.file
	}
	return &FileError{File: p.file, Line: p.line, Path: path, Msg: fmt.Sprintf(format, args...), Err: cause}
}

func (b *builder) build() (*Scenario, error) {
	f, s := b.f, b.s
	if strings.TrimSpace(f.Name) == "" && b.forLive {
		f.Name = strings.TrimSuffix(filepath.Base(b.file), filepath.Ext(b.file))
	}
	if strings.TrimSpace(f.Name) == "" {
		return nil, b.errAt("name", "required: the scenario's name")
	}
	s.Name, s.Description = f.Name, f.Description
	s.raw, s.at, s.dir = f, b.at, b.dir
	steps := []func() error{b.fleet, b.priorities, b.cohorts, b.teams, b.policy, b.workload, b.sim, b.timeline, b.quotaWarnings, b.objectives, b.live}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return s, nil
}
