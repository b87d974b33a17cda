package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/stretchr/testify/require"
)

const sacctHeader = "JobID|JobName|User|Account|Partition|QOS|Submit|Start|End|Elapsed|State|AllocTRES|ReqTRES|Timelimit|Priority\n"

// goodRow is a job that imports; the bad rows below change one field.
const goodRow = "7|j|u|a|p|normal|2024-03-01T10:00:00|2024-03-01T10:01:00|2024-03-01T11:01:00|01:00:00|COMPLETED|cpu=8,gres/gpu=1,mem=8G|cpu=8,gres/gpu=1,mem=8G|02:00:00|10\n"

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestSacctBadRowsNameFileLineAndColumn(t *testing.T) {
	field := func(i int, v string) string {
		f := strings.Split(strings.TrimSuffix(goodRow, "\n"), "|")
		f[i] = v
		return strings.Join(f, "|") + "\n"
	}
	for _, c := range []struct{ name, text, want string }{
		{"job id", field(0, "7a"), `line 3: column JobID: "7a" is not a Slurm job ID (1234, 1234_7, 1234_[1-5], 1234+0, 1234.batch)`},
		{"array list", field(0, "7_[5-2]"), `line 3: column JobID: "[5-2]" is not an array task list ([1-5], [1,3,5-7], [1-9%2])`},
		{"submit format", field(6, "03/01/24 10:00"), `line 3: column Submit: "03/01/24 10:00" is not a time as Slurm prints it (2024-03-01T10:00:00; SLURM_TIME_FORMAT unset)`},
		{"submit unknown", field(6, "Unknown"), `line 3: column Submit: "Unknown": every job has a submit time`},
		{"start before submit", field(7, "2024-03-01T09:00:00"), `line 3: column Start: 2024-03-01T09:00:00 is before Submit 2024-03-01T10:00:00`},
		{"end before start", field(8, "2024-03-01T10:00:30"), `line 3: column End: 2024-03-01T10:00:30 is before Start 2024-03-01T10:01:00`},
		{"elapsed", field(9, "1:75:00"), `line 3: column Elapsed: "1:75:00" is not [D-]HH:MM:SS`},
		{"state", field(10, "DONE"), `line 3: column State: "DONE" is not a job state sacct prints (COMPLETED, CANCELLED by UID, PREEMPTED, REQUEUED, ...)`},
		{"tres count", field(11, "cpu=8,gres/gpu=two"), `line 3: column AllocTRES: gres/gpu="two" is not a count (in "cpu=8,gres/gpu=two")`},
		{"tres memory", field(11, "cpu=8,mem=8Q"), `line 3: column AllocTRES: mem="8Q" is not a memory size (a number with K, M, G, T or P)`},
		{"tres item", field(12, "cpu=8,gpu"), `line 3: column ReqTRES: "gpu" is not NAME=VALUE (in "cpu=8,gpu")`},
		{"timelimit", field(13, "soon"), `line 3: column Timelimit: "soon" is not [D-]HH:MM:SS (or UNLIMITED, Partition_Limit)`},
		{"nothing asked", field(11, "mem=8G"), `line 3: column AllocTRES: job 7 asks for neither GPUs nor CPUs (mem=8G)`},
		{"fields", "7|j|u\n", `line 3: 3 fields, the header has 15 (a '|' inside a value, or a cut line?)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, "sacct.txt", sacctHeader+goodRow+c.text)
			_, err := ImportSlurm(SlurmFiles{Sacct: p})
			require.EqualError(t, err, p+": "+c.want)
		})
	}
	p := writeFile(t, "sacct.txt", "JobID|User|Submit|Start|State|AllocTRES|Elapsed\n")
	_, err := ImportSlurm(SlurmFiles{Sacct: p})
	require.EqualError(t, err, p+": line 1: column Account: missing from the header ("+p+" has JobID|User|Submit|Start|State|AllocTRES|Elapsed); is this the output of sacct --parsable2 --allocations?")
}

func TestSacctWithParsableTrailingBarsReads(t *testing.T) {
	p := writeFile(t, "sacct.txt", strings.ReplaceAll(sacctHeader+goodRow, "\n", "|\n"))
	imp, err := ImportSlurm(SlurmFiles{Sacct: p})
	require.NoError(t, err)
	require.Equal(t, []float64{0, 3600, 60, 1, 8}, []float64{imp.Jobs[0].Submit, imp.Jobs[0].Duration, imp.Jobs[0].OrigStart, imp.Jobs[0].Accelerators, imp.Jobs[0].MemoryGiB})
}

func TestBadNodesQOSAndSharesNameFileLineAndField(t *testing.T) {
	sacct := writeFile(t, "sacct.txt", sacctHeader+goodRow)
	for _, c := range []struct {
		name string
		in   func(string) SlurmFiles
		text string
		want string
	}{
		{"gres count", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, Nodes: p} },
			"NodeName=n1 CPUTot=8 RealMemory=1000 Gres=gpu:a100:x\n", `line 1: column Gres: node n1: "gpu:a100:x": the count "x" is not a whole number`},
		{"cpus", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, Nodes: p} },
			"NodeName=n1 CPUTot=8 RealMemory=1000\nNodeName=n2 CPUTot=many\n", `line 2: column CPUTot: node n2: "many" is not a CPU count`},
		{"not a node", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, Nodes: p} },
			"PartitionName=gpu Nodes=n[1-4]\n", `line 1: not a node: expected NodeName=... (the output of scontrol show nodes --oneliner)`},
		{"qos priority", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, QOS: p} },
			"Name|Priority|GraceTime\nnormal|high|00:00:00\n", `line 2: column Priority: qos normal: "high" is not a whole number >= 0`},
		{"qos grace", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, QOS: p} },
			"Name|Priority|GraceTime\nnormal|1|5 minutes\n", `line 2: column GraceTime: "5 minutes" is not [D-]HH:MM:SS`},
		{"shares", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, Shares: p} },
			"Account|User|RawShares\nroot||\n a||lots\n", `line 3: column RawShares: "lots" is not a number of shares (or parent)`},
		{"grptres", func(p string) SlurmFiles { return SlurmFiles{Sacct: sacct, Assoc: p} },
			"Cluster|Account|User|Share|GrpTRES\nc|a||1|gres/gpu=-1\n", `line 2: column GrpTRES: gres/gpu="-1" is not a count (in "gres/gpu=-1")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, "in.txt", c.text)
			_, err := ImportSlurm(c.in(p))
			require.EqualError(t, err, p+": "+c.want)
		})
	}
}

func TestNodesListedWithoutOnelinerAreJoined(t *testing.T) {
	sacct := writeFile(t, "sacct.txt", sacctHeader+goodRow)
	nodes := writeFile(t, "nodes.txt", `NodeName=h1 Arch=x86_64 CoresPerSocket=48
   CPUAlloc=0 CPUEfctv=192 CPUTot=192 CPULoad=0.00
   Gres=gpu:nvidia_h100_80gb_hbm3:8(S:0-1)
   OS=Linux 5.15.0-101-generic #111-Ubuntu SMP Tue Mar 5 20:16:58 UTC 2024
   RealMemory=2097152 AllocMem=0 FreeMem=2000000 Sockets=2 Boards=1
   State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
   Partitions=p

NodeName=h2 CPUTot=192 RealMemory=2097152 Gres=gpu:nvidia_h100_80gb_hbm3:8(S:0-1) State=IDLE Partitions=p
`)
	imp, err := ImportSlurm(SlurmFiles{Sacct: sacct, Nodes: nodes})
	require.NoError(t, err)
	require.Equal(t, &scenfile.Fleet{Nodes: []scenfile.NodeGroup{{Type: "p5.48xlarge", Count: 2}}}, imp.File.Fleet)
	require.Equal(t, []string{"p5.48xlarge"}, imp.Jobs[0].InstanceTypes, "an untyped GPU job: its partition's GPU types")
}

func TestQOSPreemptionThatPriorityCannotSayIsWarned(t *testing.T) {
	sacct := writeFile(t, "sacct.txt", sacctHeader+goodRow)
	qos := writeFile(t, "qos.txt", `Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode
normal|100|00:00:30|||cancel
high|1000|00:00:30|scavenger||cancel
scavenger|1|00:00:30||00:05:00|cancel
`)
	assoc := writeFile(t, "assoc.txt", "Cluster|Account|User|Share|GrpTRES\nc|a||1|gres/gpu=1\n")
	imp, err := ImportSlurm(SlurmFiles{Sacct: sacct, QOS: qos, Assoc: assoc})
	require.NoError(t, err)
	require.Equal(t, &scenfile.Preemption{GracePeriod: "30s", MinRuntime: "5m", MaxRetries: scenfile.Ptr(0)}, imp.File.Policy.Preemption, "PreemptMode cancel: the first preemption ends a job")
	require.Contains(t, imp.Warnings, "qos high: Preempt: preempts [scavenger]; allot lets a class preempt every class of lower priority: [normal, scavenger]")
	require.Contains(t, imp.Warnings, "qos normal: Preempt: preempts []; allot lets a class preempt every class of lower priority: [scavenger]")
}

func TestSlurmDurationsAndMemoryUnits(t *testing.T) {
	for s, want := range map[string]float64{"00:00:00": 0, "01:02:03": 3723, "2-00:00:00": 172800, "1-12:30:15": 131415, "45:10": 2710, "00:00:01.500": 1.5} {
		got, err := slurmDuration(s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
	}
	for s, want := range map[string]float64{"64G": 64, "1T": 1024, "4096M": 4, "4096": 4, "1048576K": 1, "2P": 2 * 1024 * 1024} {
		got, err := slurmMemGiB(s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
	}
}

func TestSacctArrayTaskListsExpand(t *testing.T) {
	for spec, want := range map[string][]string{"[1-3]": {"1", "2", "3"}, "[1,4,6-7]": {"1", "4", "6", "7"}, "[0-8:4%1]": {"0", "4", "8"}} {
		got, _, err := expandArray(spec)
		require.NoError(t, err, spec)
		require.Equal(t, want, got, spec)
	}
}

func TestEveryCatalogGPUKindRoundTripsThroughItsSlurmName(t *testing.T) {
	cat := hardware.Builtin()
	for _, n := range cat.Names() {
		typ, _ := cat.Lookup(n)
		if typ.Resource != hardware.ResourceNvidiaGPU {
			continue // Trainium is not a gres/gpu
		}
		name := slurmGPUName(typ.Accelerator)
		require.NotEmpty(t, name, "%s's kind %s has a Slurm name", n, typ.Accelerator)
		require.Equal(t, []string{typ.Accelerator}, slurmGPUKind(name), name)
	}
	// AutoDetect's names read as the short ones.
	for name, kind := range map[string]string{"nvidia_a100-sxm4-80gb": "a100-80g", "nvidia_h100_80gb_hbm3": "h100", "NVIDIA_L40S": "l40s", "a10g": "a10g"} {
		require.Equal(t, kind, slurmGPUKind(name)[0], name)
	}
	require.Nil(t, slurmGPUKind("v100"))
}
