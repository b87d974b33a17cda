package kube

import (
	"flag"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain quiets client-go's own log (leader election): go test prints
// it among the results, and the benchmarks' figures are read from them.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}
