#!/bin/sh
# A tiny "training" job for allot live mode: it counts steps, saves the
# step to $ALLOT_CHECKPOINT_DIR/step every few steps and when told to stop
# (SIGTERM), and resumes from it when restarted.
#
#   STEPS  steps to run (default 20)
#   STEP_S seconds per step (default 0.5)
#   EVERY  checkpoint every EVERY steps (default 5)
STEPS=${STEPS:-20}
STEP_S=${STEP_S:-0.5}
EVERY=${EVERY:-5}
CKPT=${ALLOT_CHECKPOINT_DIR:-.}/step

save() {
  echo "$step" > "$CKPT.tmp" && mv "$CKPT.tmp" "$CKPT"
}

step=0
[ -f "$CKPT" ] && step=$(cat "$CKPT")
echo "job ${ALLOT_JOB_ID:-?} restart ${ALLOT_RESTART_COUNT:-0} devices ${CUDA_VISIBLE_DEVICES:-none}: resuming at step $step"
trap 'save; echo "SIGTERM at step $step: checkpoint saved"; exit 143' TERM

while [ "$step" -lt "$STEPS" ]; do
  sleep "$STEP_S" &
  wait $!            # wait returns at once on a signal, so the trap runs
  step=$((step + 1))
  echo "step $step"
  [ $((step % EVERY)) -eq 0 ] && save
done
save
echo "done at step $step"
