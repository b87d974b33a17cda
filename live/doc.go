// Package live will run a policy against real work — processes on this
// machine, or Jobs on a Kubernetes cluster — with the same core and the
// same run records as the simulator. It is not built yet (issues 6 and 7);
// nothing imports it.
package live
