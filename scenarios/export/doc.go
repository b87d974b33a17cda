// Package export writes a policy as the objects and inputs of the engines
// teams already run: Kueue (its own v1beta2 API types), SageMaker HyperPod
// task governance and AWS Batch (the AWS SDK's input types), with what
// each cannot express said as warnings. It also reads them back, with
// Slurm's outputs (allot import): the same two-way tables (kueuetables.go,
// awsmap.go) say how a field maps in both directions, and what an import
// cannot map is a warning naming the object and field.
package export
