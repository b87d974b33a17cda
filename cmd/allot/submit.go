package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/submit"
	"github.com/allot-sim/allot/live"
	"github.com/spf13/cobra"
)

func newSubmitCmd() *cobra.Command {
	var req live.Request
	var sf submit.Flags
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:   "submit --team T --priority CLASS --accelerators N [flags] -- CMD [ARGS...]",
		Short: "Submit a job to the live daemon; prints its id",
		Long: `Submit a job: CMD runs in this directory, as you, as a process group on the
devices the policy gives it. It gets a clean environment, not this
shell's: HOME, USER, LOGNAME, SHELL and PATH from your account, its
devices (CUDA_VISIBLE_DEVICES, NEURON_RT_VISIBLE_CORES), ALLOT_JOB_ID,
ALLOT_CHECKPOINT_DIR, ALLOT_RESTART_COUNT and ALLOT_ADMITTED_AT, and what
--env sets: --env NAME=VALUE, or --env NAME for this shell's value of
NAME (repeatable; NAME is letters, digits and '_', not ALLOT_* or the
device variables). A preempted job gets SIGTERM, the policy's grace
period to checkpoint, then SIGKILL, and is restarted later with the same
command.

The command line, directory and environment are shown only to you and
your team's and the machine's admins; other users see the job's name,
team, state and devices. Each submission carries a random request id:
when the daemon's answer is lost (the connection breaks, or no answer
comes), submit asks again with the same id and gets the job the first
request made, never a second one.`,
		Example: `  allot submit --team research --priority low --accelerators 2 -- sh docs/examples/train.sh
  allot submit --team research --priority low --accelerators 1 --env WANDB_API_KEY --env EPOCHS=3 -- python train.py
  allot submit --backend kubernetes --team research --priority low --accelerators 8 --image my/train:1 -- python train.py`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := submit.Fill(&req, sf, args); err != nil {
				return err
			}
			r, _, err := kt.remote(cmd)
			if err != nil {
				return err
			}
			id, err := submit.Submit(r, &req)
			if err != nil {
				return liveErr(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), id)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Team, "team", "", "the team the job runs for")
	f.StringVar(&req.PriorityClass, "priority", "", "priority class (the config's priority_classes)")
	f.IntVar(&req.Accelerators, "accelerators", 0, "accelerators the job needs")
	f.StringVar(&req.InstanceType, "instance-type", "", "run only on this instance type")
	f.StringVar(&req.Name, "name", "", "a name to show (default job-ID)")
	f.StringVar(&sf.TimeLimit, "time-limit", "", "fail the job when a run lasts longer (e.g. 2h)")
	f.StringVar(&sf.CheckpointInterval, "checkpoint-interval", "", "how often the job checkpoints (e.g. 10m): preemption prefers jobs that lose least")
	f.StringArrayVar(&sf.Env, "env", nil, "set NAME=VALUE in the job's clean environment; NAME alone passes this shell's value (repeatable)")
	f.StringVar(&kt.job.Image, "image", "", "with --backend kubernetes: the container image that runs CMD")
	f.StringVar(&kt.job.Resource, "resource", "nvidia.com/gpu", "with --backend kubernetes: the accelerator resource (aws.amazon.com/neuron for Trainium)")
	f.IntVar(&kt.job.Pods, "pods", 1, "with --backend kubernetes: pods that run together (a gang, admitted whole), the accelerators split evenly")
	f.StringArrayVar(&kt.job.Tolerations, "toleration", nil, "with --backend kubernetes: tolerate a taint, KEY[=VALUE]:EFFECT (repeatable)")
	addRemoteFlags(cmd, &kt)
	return cmd
}
