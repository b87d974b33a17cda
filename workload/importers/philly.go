package importers

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/hardware"
)

// Gavel's Philly-derived traces (scheduler/traces/msr/seed=N/VC.trace):
// tab-separated, no header:
//   job_type, command, num_steps_arg, needs_data_dir, total_steps,
//   arrival_time_s, scale_factor
// simulation_throughputs.json: {gpu: {"('type', scale)": {"null": steps/s}}}.

var phillyCols = []string{"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time_s", "scale_factor"}

// phillyGPUs are Gavel's GPU kinds, fastest first: the order of the
// cluster spec "v100:p100:k80" and of each job's instance types.
var phillyGPUs = []string{"v100", "p100", "k80"}

// throughputs[gpu][jobType][scale] = steps per second running alone.
type throughputs map[string]map[string]map[int]float64

var gavelKey = regexp.MustCompile(`^\('(.*)', (\d+)\)$`)

func readThroughputs(path string) (throughputs, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw map[string]map[string]map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := throughputs{}
	for _, gpu := range phillyGPUs {
		byKey, ok := raw[gpu]
		if !ok {
			return nil, fmt.Errorf("%s: no throughputs for GPU %q", path, gpu)
		}
		out[gpu] = map[string]map[int]float64{}
		for k, v := range byKey {
			m := gavelKey.FindStringSubmatch(k)
			if m == nil {
				return nil, fmt.Errorf("%s: %s: key %q is not ('job type', scale)", path, gpu, k)
			}
			alone, ok := v["null"].(float64)
			if !ok || alone < 0 {
				return nil, fmt.Errorf("%s: %s: %s: no \"null\" (running alone) throughput", path, gpu, k)
			}
			// 0 means the job does not run there (it does not fit).
			scale, _ := strconv.Atoi(m[2])
			if out[gpu][m[1]] == nil {
				out[gpu][m[1]] = map[int]float64{}
			}
			out[gpu][m[1]][scale] = alone
		}
	}
	return out, nil
}

// rate is a job type's steps per second at a scale on a GPU: measured
// where Gavel measured it, else the largest measured scale below,
// scaled linearly (an optimistic reading for 16-64 GPU jobs).
func (tp throughputs) rate(gpu, jobType string, scale int) (float64, bool) {
	byScale := tp[gpu][jobType]
	if v, ok := byScale[scale]; ok {
		return v, v > 0
	}
	best := 0
	for s := range byScale {
		if s < scale && s > best {
			best = s
		}
	}
	if best == 0 || byScale[best] == 0 {
		return 0, false
	}
	return byScale[best] * float64(scale) / float64(best), true
}

// findBeside looks for a file in the traces' folder and its parent.
func findBeside(files []string, name string) string {
	for _, dir := range []string{filepath.Dir(files[0]), filepath.Dir(filepath.Dir(files[0]))} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func importPhilly(files []string, opt Options) (*Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("gavel-philly: no trace files given")
	}
	tpPath := opt.Throughputs
	if tpPath == "" {
		if tpPath = findBeside(files, "simulation_throughputs.json"); tpPath == "" {
			return nil, fmt.Errorf("gavel-philly: simulation_throughputs.json not found beside %s or in its parent folder; give --throughputs", files[0])
		}
	}
	tp, err := readThroughputs(tpPath)
	if err != nil {
		return nil, err
	}
	perNode := opt.GPUsPerNode
	if perNode <= 0 {
		perNode = 8
	}
	r := &Result{Format: "gavel-philly"}
	gpus, specPath, err := phillyFleet(opt, tpPath)
	if err != nil {
		return nil, err
	}
	var vcs []string
	cannot := 0
	for _, f := range files {
		vc := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		vcs = append(vcs, vc)
		if err := readPhillyVC(f, vc, tp, gpus, r, &cannot); err != nil {
			return nil, err
		}
	}
	if cannot > 0 {
		r.note("%d jobs cannot run on some GPU kind of the fleet (Gavel measured 0 steps/s: the model does not fit); those kinds are left out of their instance types", cannot)
	}
	r.finish()
	speeds := phillySpeeds(tp)
	for i, g := range phillyGPUs {
		if gpus[i] <= 0 {
			continue
		}
		it := hardware.InstanceType{Name: "philly-" + g, Accelerator: g, AcceleratorModel: strings.ToUpper(g),
			Accelerators: perNode, Resource: hardware.ResourceNvidiaGPU, Speed: speeds[g]["default"], Custom: true,
			Source: "Gavel cluster spec " + specPath + "; speed per job type from " + tpPath}
		if g != phillyGPUs[0] {
			it.SpeedByClass = speeds[g]
		}
		r.Types = append(r.Types, it)
		r.Nodes = append(r.Nodes, hardware.NodeGroup{Type: it.Name, Count: (gpus[i] + perNode - 1) / perNode})
	}
	if len(r.Nodes) == 0 {
		return nil, fmt.Errorf("gavel-philly: the cluster spec %s has no GPUs", specPath)
	}
	r.note("teams = virtual clusters (one per trace file, named by it); job_class = Gavel job type; accelerators = scale_factor")
	r.note("duration_s = total_steps / throughput of (job type, scale) on V100 running alone, from %s; scales Gavel did not measure (7, 12, 16-64) use the largest measured scale below, scaled linearly", filepath.Base(tpPath))
	r.note("fleet: Gavel's cluster spec %s (%d V100, %d P100, %d K80 GPUs) in nodes of %d GPUs", filepath.Base(specPath), gpus[0], gpus[1], gpus[2], perNode)
	r.note("speeds: V100 = 1.0; P100 and K80 per job type = their single-GPU throughput / V100's (measured), default = the mean over job types")
	r.note("no original start or end times: compare replays with the published Philly statistics instead")
	if err := phillyQuotas(r, vcs, opt.VCNodes); err != nil {
		return nil, err
	}
	return r, nil
}

// phillyFleet reads GPUs per kind from Gavel's cluster spec.
func phillyFleet(opt Options, tpPath string) ([]int, string, error) {
	p := opt.ClusterSpec
	if p == "" {
		p = filepath.Join(filepath.Dir(tpPath), "cluster_specs.json")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, "", fmt.Errorf("gavel-philly: cluster spec: %w (give --cluster-spec, a JSON {\"philly\": [\"V100:P100:K80\"]})", err)
	}
	var spec map[string][]string
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, "", fmt.Errorf("%s: %w", p, err)
	}
	specs := spec["philly"]
	if len(specs) == 0 {
		return nil, "", fmt.Errorf("%s: no \"philly\" cluster spec", p)
	}
	parts := strings.Split(specs[0], ":")
	if len(parts) != 3 {
		return nil, "", fmt.Errorf("%s: philly spec %q: want V100:P100:K80 GPU counts", p, specs[0])
	}
	out := make([]int, 3)
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("%s: philly spec %q: %q is not a GPU count", p, specs[0], s)
		}
		out[i] = n
	}
	return out, p, nil
}

func readPhillyVC(path, vc string, tp throughputs, gpus []int, r *Result, cannot *int) error {
	t, err := openTable(path, '\t', phillyCols)
	if err != nil {
		return err
	}
	defer t.close()
	t.r.LazyQuotes = true
	var types []string
	for i, g := range phillyGPUs {
		if gpus[i] > 0 {
			types = append(types, "philly-"+g)
		}
	}
	if err := t.each(func() error {
		r.Rows++
		jt := t.str("job_type")
		var steps, arrival, scale float64
		if err := t.nums([]string{"total_steps", "arrival_time_s", "scale_factor"}, &steps, &arrival, &scale); err != nil {
			return err
		}
		switch {
		case steps <= 0:
			return t.errf("total_steps", "want > 0, got %g", steps)
		case arrival < 0:
			return t.errf("arrival_time_s", "negative time %g", arrival)
		case scale < 1 || scale != math.Trunc(scale):
			return t.errf("scale_factor", "want a whole number of GPUs >= 1, got %g", scale)
		}
		rate, ok := tp.rate("v100", jt, int(scale))
		if !ok {
			return t.errf("job_type", "no V100 throughput for job type %q", jt)
		}
		j := newJob()
		j.ID = fmt.Sprintf("%s-%d", vc, t.line)
		j.Team, j.Class, j.Submit = vc, jt, arrival
		j.Accelerators, j.Duration = scale, steps/rate
		for _, typ := range types {
			if _, ok := tp.rate(strings.TrimPrefix(typ, "philly-"), jt, int(scale)); ok {
				j.InstanceTypes = append(j.InstanceTypes, typ)
			} else {
				*cannot++
			}
		}
		r.Jobs = append(r.Jobs, j)
		return nil
	}); err != nil {
		return err
	}
	return nil
}

// phillySpeeds is each GPU's speed relative to V100 per job type, at one GPU.
func phillySpeeds(tp throughputs) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	var jobTypes []string
	for jt := range tp["v100"] {
		jobTypes = append(jobTypes, jt)
	}
	sort.Strings(jobTypes)
	for _, g := range phillyGPUs {
		m := map[string]float64{}
		sum, n := 0.0, 0
		for _, jt := range jobTypes {
			ref, ok1 := tp["v100"][jt][1]
			v, ok2 := tp[g][jt][1]
			if ok1 && ok2 {
				m[jt] = round4(v / ref)
				sum += v / ref
				n++
			}
		}
		m["default"] = 1
		if n > 0 {
			m["default"] = round4(sum / float64(n))
		}
		out[g] = m
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// phillyQuotas gives each VC listed in philly_vc.csv a share of every GPU
// kind in proportion to its node count (largest remainders, so the shares
// add up to the fleet); other VCs only borrow.
func phillyQuotas(r *Result, vcs []string, path string) error {
	nodes := map[string]float64{}
	if path != "" {
		t, err := openTable(path, ',', nil)
		if err != nil {
			return err
		}
		defer t.close()
		if err := t.need("vc", "node num"); err != nil {
			return err
		}
		for {
			if err := t.next(); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			n, err := t.num("node num", false)
			if err != nil {
				return err
			}
			if n < 0 {
				return t.errf("node num", "negative: %g", n)
			}
			nodes[t.str("vc")] = n
		}
	}
	total := 0.0
	var named []string
	for _, vc := range vcs {
		if nodes[vc] > 0 {
			total += nodes[vc]
			named = append(named, vc)
		}
	}
	quota := map[string]map[string]float64{}
	for ti, it := range r.Types {
		capacity := r.Nodes[ti].Count * it.Accelerators
		shares := apportion(capacity, named, nodes, total)
		for vc, q := range shares {
			if quota[vc] == nil {
				quota[vc] = map[string]float64{}
			}
			quota[vc][it.Name] = float64(q)
		}
	}
	for _, vc := range vcs {
		r.Teams = append(r.Teams, Team{Name: vc, Quota: quota[vc]})
	}
	if path == "" {
		r.note("no quotas: give --vc-nodes philly_vc.csv to share the fleet among the VCs by their Philly node counts")
		return nil
	}
	var without []string
	for _, vc := range vcs {
		if nodes[vc] == 0 {
			without = append(without, vc)
		}
	}
	r.note("quotas: %d VCs share each GPU kind in proportion to their node counts in %s; %d VCs not listed there (%s) have no quota and only borrow",
		len(named), filepath.Base(path), len(without), strings.Join(without, ", "))
	return nil
}

// apportion splits capacity by weight with whole units (largest remainder).
func apportion(capacity int, names []string, weight map[string]float64, total float64) map[string]int {
	out := map[string]int{}
	if total <= 0 || capacity <= 0 {
		return out
	}
	type rem struct {
		name string
		frac float64
	}
	var rems []rem
	left := capacity
	for _, n := range names {
		exact := float64(capacity) * weight[n] / total
		out[n] = int(math.Floor(exact))
		left -= out[n]
		rems = append(rems, rem{n, exact - math.Floor(exact)})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].frac > rems[b].frac })
	for i := 0; i < left && i < len(rems); i++ {
		out[rems[i].name]++
	}
	return out
}
