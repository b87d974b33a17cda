// Package presets maps the settings of the engines teams already run onto
// the policy core's model: SageMaker HyperPod task governance (instance
// type fallback, a team's resource sharing, the quota ratio rule, idle
// resource sharing and its allocation) and AWS Batch (quota shares, hard
// reservations). The scenario loader calls it, so every scenario's
// HyperPod- or Batch-style settings mean what the tests here pin down.
//
// Like the core it does no I/O and imports nothing of the project but
// policies.
package presets
