#!/usr/bin/env bash
# Prints the path of an AWS CLI that knows Batch quota shares and HyperPod
# task governance, for the AWS export test (cmd/allot/awscli_test.go):
# ALLOT_AWS_CLI, aws on PATH, or one installed once with pip into
# ~/.cache/allot/awscli (Debian's awscli 2.9 predates both). Never fails:
# without network or Python's venv it says so and the test skips.
set -u
knows() {
  "$1" batch create-quota-share --generate-cli-skeleton input >/dev/null 2>&1 &&
    "$1" sagemaker create-compute-quota --generate-cli-skeleton input >/dev/null 2>&1
}
venv=${XDG_CACHE_HOME:-$HOME/.cache}/allot/awscli
for c in "${ALLOT_AWS_CLI:-}" "$(command -v aws 2>/dev/null)" "$venv/bin/aws"; do
  if [ -n "$c" ] && [ -x "$c" ] && knows "$c"; then
    echo "$c"
    exit 0
  fi
done
echo "ensure-awscli: installing awscli into $venv for the AWS export test (once)" >&2
if python3 -m venv "$venv" >/dev/null 2>&1 &&
   "$venv/bin/pip" install -q --retries 0 --timeout 20 --upgrade awscli >/dev/null 2>&1 &&
   knows "$venv/bin/aws"; then
  echo "$venv/bin/aws"
  exit 0
fi
echo "ensure-awscli: no AWS CLI that knows create-quota-share and create-compute-quota (no network?);" \
  "the AWS export test will skip. Get one with: python3 -m pip install --user --upgrade awscli" >&2
exit 0
