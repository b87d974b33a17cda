package export

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/workload"
)

// slurmNode is one node of `scontrol show nodes --oneliner`.
type slurmNode struct {
	line       int
	name       string
	gpuType    string // Slurm's GPU type name; "" untyped
	gpus       int
	cpus       float64
	memGiB     float64
	partitions []string
	state      string
}

// onelinerKey starts a KEY=VALUE pair; a word without one continues the
// value before it (OS=Linux 5.15.0 #1 SMP ..., Reason=Not responding).
var onelinerKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*=`)

// readSlurmNodes reads `scontrol show nodes --oneliner` (or without
// --oneliner: a record's indented lines are joined to its NodeName line).
func readSlurmNodes(path string, w *importWarnings) ([]slurmNode, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type record struct {
		line int
		text string
	}
	var recs []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.TrimSpace(text) == "":
		case strings.HasPrefix(text, "NodeName="):
			recs = append(recs, record{line, text})
		case (text[0] == ' ' || text[0] == '\t') && len(recs) > 0:
			recs[len(recs)-1].text += " " + strings.TrimSpace(text)
		default:
			return nil, &workload.FieldError{File: path, Line: line, Unit: "line",
				Reason: "not a node: expected NodeName=... (the output of scontrol show nodes --oneliner)"}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, &workload.FieldError{File: path, Reason: "no nodes: expected the output of scontrol show nodes --oneliner"}
	}
	nodes := make([]slurmNode, 0, len(recs))
	for _, r := range recs {
		n, err := parseSlurmNode(path, r.line, r.text, w)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func parseSlurmNode(path string, line int, text string, w *importWarnings) (slurmNode, error) {
	kv := map[string]string{}
	last := ""
	for _, tok := range strings.Fields(text) {
		if onelinerKey.MatchString(tok) {
			k, v, _ := strings.Cut(tok, "=")
			kv[k], last = v, k
		} else {
			kv[last] += " " + tok
		}
	}
	n := slurmNode{line: line, name: kv["NodeName"], state: kv["State"]}
	bad := func(key, format string, args ...any) error {
		return &workload.FieldError{File: path, Line: line, Unit: "line", Field: key,
			Reason: fmt.Sprintf("node %s: ", n.name) + fmt.Sprintf(format, args...)}
	}
	cfg, err := parseTRES(kv["CfgTRES"])
	if err != nil {
		return n, bad("CfgTRES", "%v", err)
	}
	n.cpus, n.memGiB = cfg.cpus, cfg.memGiB
	if s, ok := kv["CPUTot"]; ok {
		if n.cpus, err = strconv.ParseFloat(s, 64); err != nil || n.cpus < 0 {
			return n, bad("CPUTot", "%q is not a CPU count", s)
		}
	}
	if s, ok := kv["RealMemory"]; ok {
		mb, err := strconv.ParseFloat(s, 64)
		if err != nil || mb < 0 {
			return n, bad("RealMemory", "%q is not megabytes", s)
		}
		n.memGiB = mb / 1024
	}
	if n.cpus <= 0 {
		return n, bad("CPUTot", "no CPUs (neither CPUTot nor CfgTRES cpu=)")
	}
	if err := n.gres(kv["Gres"], w); err != nil {
		return n, bad("Gres", "%v", err)
	}
	if p := strings.TrimSpace(kv["Partitions"]); p != "" && p != "(null)" {
		n.partitions = strings.Split(p, ",")
	}
	return n, nil
}

// gres reads a node's Gres (gpu:a100:8(S:0-1),mps:800; gpu:8; (null)).
// Several GPU types on one node are counted as the most numerous one.
func (n *slurmNode) gres(s string, w *importWarnings) error {
	s = strings.TrimSpace(s)
	if s == "" || s == "(null)" {
		return nil
	}
	counts := map[string]int{}
	var order []string
	for _, item := range splitOutsideParens(s) {
		if i := strings.IndexByte(item, '('); i >= 0 {
			item = item[:i] // (S:0-1), (IDX:0-7): sockets, indexes
		}
		parts := strings.Split(item, ":")
		if parts[0] != "gpu" {
			w.add("nodes", "Gres", "%s (on %s and others) is not mapped: only GPUs are", parts[0], n.name)
			continue
		}
		typ := ""
		switch len(parts) {
		case 2:
		case 3:
			typ = parts[1]
		default:
			return fmt.Errorf("%q is not gpu[:TYPE]:COUNT", item)
		}
		c, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil || c < 0 {
			return fmt.Errorf("%q: the count %q is not a whole number", item, parts[len(parts)-1])
		}
		if _, seen := counts[typ]; !seen {
			order = append(order, typ)
		}
		counts[typ] += c
	}
	most := -1
	for _, typ := range order {
		n.gpus += counts[typ]
		if counts[typ] > most {
			n.gpuType, most = typ, counts[typ]
		}
	}
	if len(order) > 1 {
		w.add("node "+n.name, "Gres", "several GPU types (%s): allot's node has one kind; counted as %d GPUs of %s", strings.Join(order, ", "), n.gpus, n.gpuType)
	}
	return nil
}

// splitOutsideParens splits at commas not inside parentheses.
func splitOutsideParens(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
