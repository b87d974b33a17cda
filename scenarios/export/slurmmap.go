package export

import (
	"strings"

	"github.com/allot-sim/allot/hardware"
)

// slurmGPUKinds maps GPU type names as Slurm's gres.conf gives them
// (Type=a100, or AutoDetect's nvidia_a100-sxm4-80gb) to the catalog's
// accelerator kinds, and back: a name reads as the first row whose words
// it all contains; a kind is written as the words of its first row of
// its own. Several kinds in a row: the name does not say which (the
// first is assumed, with a warning).
var slurmGPUKinds = []struct {
	words []string
	kinds []string
}{
	{[]string{"h200"}, []string{"h200"}},
	{[]string{"h100"}, []string{"h100"}},
	{[]string{"b200"}, []string{"b200"}},
	{[]string{"a100", "80g"}, []string{"a100-80g"}},
	{[]string{"a100", "40g"}, []string{"a100-40g"}},
	{[]string{"a100"}, []string{"a100-40g", "a100-80g"}},
	{[]string{"a10g"}, []string{"a10g"}},
	{[]string{"l40s"}, []string{"l40s"}},
}

// slurmGPUKind is the catalog kinds a Slurm GPU type name may be (nil:
// none the catalog has).
func slurmGPUKind(name string) []string {
	n := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	for _, row := range slurmGPUKinds {
		all := true
		for _, w := range row.words {
			all = all && strings.Contains(n, w)
		}
		if all {
			return row.kinds
		}
	}
	return nil
}

// slurmGPUName is the Slurm GPU type name of a catalog kind ("" when the
// table has none).
func slurmGPUName(kind string) string {
	for _, row := range slurmGPUKinds {
		if len(row.kinds) == 1 && row.kinds[0] == kind {
			return strings.Join(row.words, "-")
		}
	}
	return ""
}

// catalogTypesOf lists the catalog's types of an accelerator kind,
// priced ones first (a what-if wants a price), in catalog order.
func catalogTypesOf(kind string) []*hardware.InstanceType {
	cat := hardware.Builtin()
	var priced, unpriced []*hardware.InstanceType
	for _, n := range cat.Names() {
		t, _ := cat.Lookup(n)
		switch {
		case t.Accelerator != kind:
		case t.Priced:
			priced = append(priced, t)
		default:
			unpriced = append(unpriced, t)
		}
	}
	return append(priced, unpriced...)
}

// slurmPreemptModes maps a QOS's PreemptMode to allot's preemption model
// and back: what becomes of a job preempted under each mode.
var slurmPreemptModes = []struct {
	mode       string // as sacctmgr prints it, lower-cased
	maxRetries int    // policy.preemption.max_retries
	exact      bool
	note       string // how allot differs, for the warning
}{
	{"requeue", -1, true, ""},
	{"cancel", 0, true, ""},
	{"suspend", -1, false, "allot stops and requeues a preempted job; Slurm suspends it where it runs and resumes it there: modelled as requeue"},
	{"gang", -1, false, "allot does not time-slice jobs (gang scheduling): modelled as requeue"},
}

// slurmPreemptMode finds a mode's row; ok false for a mode not in the
// table (off, cluster, or unknown).
func slurmPreemptMode(mode string) (maxRetries int, exact bool, note string, ok bool) {
	for _, row := range slurmPreemptModes {
		if row.mode == mode {
			return row.maxRetries, row.exact, row.note, true
		}
	}
	return 0, false, "", false
}
