// Package hardware describes what a fleet is made of: the built-in catalog
// of AWS accelerated instance types (accelerator kind and count, memory,
// price, relative training speed, each with the source of its figures),
// custom types declared by a scenario, fleets of nodes, and the failure
// model of a node.
//
// Relative speed is a throughput factor against the catalog's reference
// accelerator, the NVIDIA A100 (speed 1.0): a job whose duration is given
// for the reference runs speed times faster on a faster type.
package hardware
