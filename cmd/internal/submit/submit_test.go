package submit

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
)

// The flags become the request: durations in seconds, --env NAME=VALUE
// as given and --env NAME with this process's value.
func TestFillReadsDurationsAndTheEnvironment(t *testing.T) {
	t.Setenv("H5_SECRET", "s3cret")
	req := live.Request{Team: "research"}
	f := Flags{TimeLimit: "2h", CheckpointInterval: "10m", Env: []string{"EPOCHS=3", "H5_SECRET"}}
	if err := Fill(&req, f, []string{"python", "train.py"}); err != nil {
		t.Fatal(err)
	}
	if req.TimeLimit != 7200 || req.CheckpointInterval != 600 {
		t.Errorf("durations %g and %g, want 7200 and 600", req.TimeLimit, req.CheckpointInterval)
	}
	if want := []string{"EPOCHS=3", "H5_SECRET=s3cret"}; !slices.Equal(req.Env, want) {
		t.Errorf("env %q, want %q", req.Env, want)
	}
	if want := []string{"python", "train.py"}; !slices.Equal(req.Command, want) {
		t.Errorf("command %q", req.Command)
	}
}

// What Fill refuses is a usage error in the flag's words; a name it
// could not find is printed escaped.
func TestFillRefusesAsUsageErrors(t *testing.T) {
	for _, c := range []struct {
		team string
		f    Flags
		want string
	}{
		{"", Flags{}, "--team is required"},
		{"a", Flags{TimeLimit: "soon"}, `--time-limit "soon": want a duration such as 90m or 2h`},
		{"a", Flags{TimeLimit: "0s"}, `--time-limit "0s": want a duration such as 90m or 2h`},
		{"a", Flags{CheckpointInterval: "-1m"}, `--checkpoint-interval "-1m": want a duration such as 10m`},
		{"a", Flags{Env: []string{"H5_UNSET_\x1b"}}, `--env H5_UNSET_\x1b: H5_UNSET_\x1b is not set here; give --env H5_UNSET_\x1b=VALUE`},
		{"a", Flags{Env: []string{"ALLOT_JOB_ID=1"}}, "--env: "},
	} {
		req := live.Request{Team: c.team}
		err := Fill(&req, c.f, []string{"true"})
		var ue *errtext.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, c.want) {
			t.Errorf("%+v: %v, want a usage error %q", c.f, err, c.want)
		}
	}
}

// On Kubernetes the image sets the environment: --env is refused before
// anything is sent.
func TestSubmitRefusesTheEnvironmentOnKubernetes(t *testing.T) {
	_, err := Submit(&kube.Remote{}, &live.Request{Team: "a", Env: []string{"X=1"}})
	var ue *errtext.UsageError
	if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "--env is for the local daemon") {
		t.Errorf("got %v", err)
	}
}
