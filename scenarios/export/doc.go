// Package export writes a policy as the objects and inputs of the engines
// teams already run: Kueue (its own v1beta2 API types), SageMaker HyperPod
// task governance and AWS Batch (the AWS SDK's input types), with what
// each cannot express said as warnings.
package export
