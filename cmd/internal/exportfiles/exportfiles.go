// Package exportfiles writes a policy's export for another engine
// (scenarios/export) as allot export and allot promote --to leave it: the
// Kueue objects and configuration, or the AWS inputs that aws ...
// --cli-input-json takes, each with the warnings of what the engine
// cannot carry. Export runs allot export; ApplyKueue applies the Kueue
// objects to a cluster.
package exportfiles

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/atomicfile"
	"github.com/allot-sim/allot/scenarios/export"
)

// Kueue writes a Kueue export into dir: objects.yaml (objs, the export's
// ObjectsYAML), kueue-config.yaml and warnings.txt.
func Kueue(dir string, k *export.Kueue, objs []byte) error {
	conf, err := k.ConfigYAML()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, body := range map[string][]byte{"objects.yaml": objs, "kueue-config.yaml": conf, "warnings.txt": warningsText(k.Warnings)} {
		if err := atomicfile.Write(filepath.Join(dir, name), body); err != nil {
			return err
		}
	}
	return nil
}

// KueueObjects is how many objects a Kueue export holds.
func KueueObjects(k *export.Kueue) int {
	return len(k.Namespaces) + len(k.Flavors) + len(k.PriorityClasses) + len(k.Cohorts) + len(k.ClusterQueues) + len(k.LocalQueues)
}

// HyperPod is a HyperPod export's inputs by file name.
func HyperPod(h *export.HyperPod) map[string]any {
	files := map[string]any{"scheduler-config.json": h.SchedulerConfig}
	for i, q := range h.ComputeQuotas {
		files["compute-quota-"+h.Teams[i]+".json"] = q
	}
	return files
}

// HyperPodJSON is a HyperPod export's inputs as one object, for standard
// output: the scheduler configuration and the compute quotas.
func HyperPodJSON(h *export.HyperPod) (map[string]any, error) {
	var quotas []json.RawMessage
	for _, q := range h.ComputeQuotas {
		data, err := export.CLIJSON(q)
		if err != nil {
			return nil, err
		}
		quotas = append(quotas, data)
	}
	sc, err := export.CLIJSON(h.SchedulerConfig)
	if err != nil {
		return nil, err
	}
	return map[string]any{"scheduler_config": json.RawMessage(sc), "compute_quotas": quotas}, nil
}

// Batch is an AWS Batch export's inputs by file name.
func Batch(b *export.Batch) map[string]any {
	files := map[string]any{"job-queue.json": b.JobQueue}
	if b.SchedulingPolicy != nil {
		files["scheduling-policy.json"] = b.SchedulingPolicy
	}
	for i, q := range b.QuotaShares {
		files["quota-share-"+b.Teams[i]+".json"] = q
	}
	return files
}

// JSON is inputs by file name as one object, for standard output, keyed
// by the file names without .json.
func JSON(files map[string]any) (map[string]json.RawMessage, error) {
	all := map[string]json.RawMessage{}
	for name, v := range files {
		data, err := export.CLIJSON(v)
		if err != nil {
			return nil, err
		}
		all[strings.TrimSuffix(name, ".json")] = data
	}
	return all, nil
}

// AWS writes each input into dir as --cli-input-json takes it, and the
// warnings. A per-team file of an earlier export (perTeam, a glob) that
// this one does not write is removed, and said so on log, so the
// directory holds one export, not two.
func AWS(dir string, files map[string]any, warnings []string, perTeam string, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stale, err := filepath.Glob(filepath.Join(dir, perTeam))
	if err != nil {
		return err
	}
	for _, p := range stale {
		if _, ours := files[filepath.Base(p)]; !ours {
			if err := os.Remove(p); err != nil {
				return err
			}
			fmt.Fprintf(log, "removed %s: a team this export does not have\n", p)
		}
	}
	for name, v := range files {
		data, err := export.CLIJSON(v)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(dir, name), append(data, '\n')); err != nil {
			return err
		}
	}
	return atomicfile.Write(filepath.Join(dir, "warnings.txt"), warningsText(warnings))
}

// warningsText is warnings.txt: one warning a line.
func warningsText(warnings []string) []byte {
	text := strings.Join(warnings, "\n")
	if text != "" {
		text += "\n"
	}
	return []byte(text)
}
