package scenarios

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/workload/importers"
)

// DraftOptions shape the scenario written beside an imported trace.
type DraftOptions struct {
	Name      string
	TracePath string // as the scenario should name it (relative to the scenario file)
	Policy    string // policy kind; "" = quota
}

// Draft writes a runnable scenario for an imported trace: its fleet (as
// the trace describes it, or as the importer sized it), its teams and
// priority classes, a policy and a horizon that covers the trace. It is
// meant to be read and edited: the importer's notes are its description.
func Draft(r *importers.Result, o DraftOptions) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	policy := o.Policy
	if policy == "" {
		policy = "quota"
	}
	w("# Written by `allot trace import --format %s`. Edit freely.\n", r.Format)
	w("name: %s\n", yq(o.Name))
	w("description: |\n")
	w("  Replay of an imported %s trace (%d jobs of %d rows).\n", r.Format, len(r.Jobs), r.Rows)
	for _, n := range r.Notes {
		w("  - %s.\n", strings.ReplaceAll(n, "\n", " "))
	}
	if len(r.LeftOut) > 0 {
		var reasons []string
		for k := range r.LeftOut {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		for _, k := range reasons {
			w("  - Left out: %d rows, %s.\n", r.LeftOut[k], k)
		}
	}
	w("fleet:\n")
	if len(r.Types) > 0 {
		w("  instance_types:\n")
		for _, t := range r.Types {
			w("    - name: %s\n", yq(t.Name))
			w("      accelerator: %s\n", yq(t.Accelerator))
			w("      accelerators: %d\n", t.Accelerators)
			if t.Resource != "" {
				w("      resource: %s\n", t.Resource)
			}
			if t.VCPUs > 0 {
				w("      vcpus: %s\n", num(t.VCPUs))
			}
			if t.MemoryGiB > 0 {
				w("      memory_gib: %s\n", num(t.MemoryGiB))
			}
			if len(t.SpeedByClass) > 0 {
				w("      speed:\n")
				var classes []string
				for c := range t.SpeedByClass {
					classes = append(classes, c)
				}
				sort.Strings(classes)
				for _, c := range classes {
					w("        %s: %s\n", yq(c), num(t.SpeedByClass[c]))
				}
			} else {
				w("      speed: %s\n", num(t.Speed))
			}
		}
	}
	w("  nodes:\n")
	for _, n := range r.Nodes {
		w("    - {type: %s, count: %d}\n", yq(n.Type), n.Count)
	}
	w("teams:\n")
	for _, t := range r.Teams {
		if len(t.Quota) == 0 {
			w("  - {name: %s}\n", yq(t.Name))
			continue
		}
		var parts []string
		for _, n := range r.Nodes {
			if q, ok := t.Quota[n.Type]; ok {
				parts = append(parts, fmt.Sprintf("%s: %s", yq(n.Type), num(q)))
			}
		}
		w("  - {name: %s, quota: {%s}}\n", yq(t.Name), strings.Join(parts, ", "))
	}
	if len(r.PriorityClasses) > 0 {
		w("priority_classes:\n")
		for _, p := range r.PriorityClasses {
			w("  - {name: %s, value: %d}\n", yq(p.Name), p.Value)
		}
	}
	w("policy:\n  kind: %s\n", policy)
	w("  reservations: none              # under --policy fifo/priority: one plain queue\n")
	w("  # A preempted job checkpoints within the grace period and pays a restore\n")
	w("  # on restart; the trace has no periodic checkpoints.\n")
	w("  preemption: {grace_period: 2m, checkpoint_save: 90s, restore: 5m}\n")
	w("workload:\n  trace: %s\n", yq(filepath.ToSlash(o.TracePath)))
	days := math.Max(1, math.Ceil(r.End/86400))
	w("sim:\n  seed: 1\n  horizon: %gd\n  warmup: 0s\n  bucket: 1h\n", days)
	return []byte(b.String())
}

// yq quotes a YAML scalar when it needs it.
func yq(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`()") || strings.TrimSpace(s) != s ||
		s == "true" || s == "false" || s == "null" || s == "yes" || s == "no" {
		return strconv.Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.Quote(s)
	}
	return s
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
