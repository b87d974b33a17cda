package exportfiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/scenarios/export"
)

const teams = "../../../scenarios/hyperpod-teams.yaml"

// An engine allot does not export to, or HyperPod without its cluster,
// is a usage error before the file is read; a file that cannot be read
// is the input's.
func TestExportRefusesTheEngineBeforeTheFile(t *testing.T) {
	for _, c := range []struct {
		o     Options
		usage bool
		want  string
	}{
		{Options{Engine: "slurm", Path: "none.yaml"}, true, `"slurm": want kueue, hyperpod or aws-batch`},
		{Options{Engine: "hyperpod", Path: "none.yaml"}, true, "export hyperpod needs --cluster-arn ARN"},
		{Options{Engine: "kueue", Path: "none.yaml"}, false, "none.yaml"},
	} {
		var out, errW bytes.Buffer
		err := Export(&out, &errW, c.o)
		var (
			ue *errtext.UsageError
			ie *errtext.InputError
		)
		if c.usage && !errors.As(err, &ue) || !c.usage && !errors.As(err, &ie) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q (usage %v)", c.o, err, c.want, c.usage)
		}
		if out.Len() > 0 || errW.Len() > 0 {
			t.Errorf("%+v printed %q and %q", c.o, out.String(), errW.String())
		}
	}
}

// Without -o the export is printed (Kueue's objects as YAML, the AWS
// inputs as one JSON object) and the warnings go to standard error; with
// -o DIR the files are written and said so.
func TestExportPrintsOrWritesAndWarnsOnStandardError(t *testing.T) {
	var out, errW bytes.Buffer
	if err := Export(&out, &errW, Options{Engine: "kueue", Path: teams}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "kind: ClusterQueue") || strings.Contains(errW.String(), "wrote") {
		t.Errorf("kueue to stdout: stdout %.200q, stderr %q", out.String(), errW.String())
	}
	out.Reset()
	errW.Reset()
	if err := Export(&out, &errW, Options{Engine: "aws-batch", Path: teams, Batch: export.BatchTarget{ComputeEnvironment: "ce"}}); err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &all); err != nil || all["job-queue"] == nil {
		t.Errorf("aws-batch to stdout: %v, keys of %.200q", err, out.String())
	}
	if !strings.HasPrefix(errW.String(), "warning: ") {
		t.Errorf("no warning on stderr: %q", errW.String())
	}
	dir := filepath.Join(t.TempDir(), "k")
	out.Reset()
	errW.Reset()
	if err := Export(&out, &errW, Options{Engine: "kueue", Path: teams, OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "objects.yaml")); err != nil || out.Len() > 0 || !strings.Contains(errW.String(), "wrote "+dir+": ") {
		t.Errorf("kueue to %s: %v, stdout %q, stderr %q", dir, err, out.String(), errW.String())
	}
}

// promote --to runs allot export with the flags that are set, and no
// others.
func TestPromoteArgsPassOnTheFlagsSet(t *testing.T) {
	o := Options{Engine: "aws-batch", Path: "p.yaml", OutDir: "out", Batch: export.BatchTarget{Region: "us-east-1", ServiceEnvironment: "training"}}
	args := PromoteArgs(o)
	if want := []string{"export", "aws-batch", "p.yaml", "-o", "out"}; !slices.Equal(args[:5], want) {
		t.Errorf("args %q", args)
	}
	rest := strings.Join(args[5:], " ")
	if len(args) != 9 || !strings.Contains(rest, "--region us-east-1") || !strings.Contains(rest, "--service-environment training") {
		t.Errorf("flags %q", args[5:])
	}
	o = Options{Engine: "kueue", Path: "p.yaml", OutDir: "out", Kueue: export.KueueOptions{AcceleratorsOnly: true}}
	if args := PromoteArgs(o); args[len(args)-1] != "--accelerators-only" || len(args) != 6 {
		t.Errorf("kueue args %q", args)
	}
}
