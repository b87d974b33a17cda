package search

import (
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// Finish handles a search that stopped for a round, err being why it
// stopped (nil: it ran to its end): a shard writes its runs to outDir, a
// replay says on stdout what the next round needs, an emit prints its
// Jobs. It returns handled=false when the search ran to its end and its
// answer is to be shown; c may be nil (a search alone).
func (c *Rounds) Finish(err error, outDir string, stdout, stderr io.Writer) (handled bool, _ error) {
	var need *needRoundError
	switch {
	case c == nil:
		return false, err
	case errors.Is(err, errRoundRun):
		return true, c.writeShard(outDir, stderr)
	case errors.As(err, &need):
		if c.f.Emit != "" {
			return true, c.emit(stdout, need.runs)
		}
		fmt.Fprintf(stdout, "round %d needs %d runs: run each shard of it (allot %s --shards N --shard I --state %s --out round-%d/), then 'allot sweep merge round-%d/ --state %s'\n",
			c.state.Rounds+1, need.runs, strings.Join(c.state.Args, " "), c.f.State, c.state.Rounds+1, c.state.Rounds+1, c.f.State)
		return true, nil
	case err != nil:
		return true, err
	case c.f.Emit != "":
		fmt.Fprintf(stdout, "# the search is complete: 'allot sweep merge' of its last round printed the answer\n")
		return true, nil
	}
	if c.f.Shards > 1 && !c.f.ReplayOnly {
		fmt.Fprintf(stderr, "the search is complete: nothing left for shard %d to run\n", c.f.Shard)
		return true, nil
	}
	return false, nil
}

// writeShard writes a shard's runs of the round into outDir.
func (c *Rounds) writeShard(outDir string, stderr io.Writer) error {
	if outDir == "" {
		return &InputError{fmt.Errorf("--shards needs --out: the directory the shard's file goes to")}
	}
	sh := roundShard{Kind: c.state.Kind, Args: c.state.Args, Digest: c.state.Digest, Round: c.state.Rounds + 1,
		Index: c.f.Shard, Of: c.f.Shards, Needed: c.needed, Runs: c.produced}
	file := filepath.Join(outDir, roundShardFile(sh.Index, sh.Of))
	if err := writeJSONFile(file, sh); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "round %d, shard %d of %d: %d of the round's %d runs; wrote %s (merge the round with 'allot sweep merge %s --state %s')\n",
		sh.Round, sh.Index, sh.Of, len(sh.Runs), sh.Needed, file, outDir, c.f.State)
	return nil
}

// emit prints the next round as an Indexed Job, one completion per
// shard, and the Job that merges it; both run allot in the image, in the
// claim's directory, which holds the scenario files, the state and the
// round's shards.
func (c *Rounds) emit(w io.Writer, runs int) error {
	round := c.state.Rounds + 1
	n := int32(c.f.Shards)
	state := path.Join(c.f.Mount, c.f.State)
	if path.IsAbs(c.f.State) {
		state = c.f.State
	}
	out := path.Join(c.f.Mount, fmt.Sprintf("round-%d", round))
	name := fmt.Sprintf("allot-%s-round-%d", c.state.Kind, round)
	shard := append(slices.Clone(c.state.Args), "--shards", strconv.Itoa(c.f.Shards), "--state", state, "--out", out)
	merge := []string{"sweep", "merge", out, "--state", state}
	indexed := batchv1.IndexedCompletion
	fmt.Fprintf(w, "# Round %d of 'allot %s': %d runs in %d shards.\n", round, strings.Join(c.state.Args, " "), runs, n)
	fmt.Fprintf(w, "# Apply the first Job; when it completes, apply the second (it merges the round\n# and prints the next round, or the answer); then emit again.\n")
	for i, j := range []*batchv1.Job{c.job(name, round, shard, n, &indexed), c.job(name+"-merge", round, merge, 1, nil)} {
		data, err := sigsyaml.Marshal(j)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		w.Write(data)
	}
	return nil
}

// job is a Job of a round: completions pods running allot with args in
// the claim's directory.
func (c *Rounds) job(name string, round int, args []string, completions int32, mode *batchv1.CompletionMode) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app.kubernetes.io/name": "allot", "scheduling.allot.dev/sweep-round": strconv.Itoa(round)}},
		Spec: batchv1.JobSpec{
			Completions: &completions, Parallelism: &completions, CompletionMode: mode,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "allot", Image: c.f.Image, Command: []string{"allot"}, Args: args, WorkingDir: c.f.Mount,
					VolumeMounts: []corev1.VolumeMount{{Name: "sweep", MountPath: c.f.Mount}}}},
				Volumes: []corev1.Volume{{Name: "sweep", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.f.Claim}}}},
			}},
		},
	}
}
