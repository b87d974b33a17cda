package live

import (
	"fmt"
	"time"

	"github.com/allot-sim/allot/policies"
)

// Job states, the closed set of spec/cli.md.
const (
	StatePending   = "pending"
	StateRunning   = "running"
	StatePreempted = "preempted"
	StateSucceeded = "succeeded"
	StateFailed    = "failed"
	StateCancelled = "cancelled"
)

// Why a running job is being stopped.
const (
	stopPreempted = "preempted"
	stopCancelled = "cancelled"
	stopTimeLimit = "time-limit"
)

// Clock is the wall clock; tests inject their own.
type Clock interface{ Now() time.Time }

// SystemClock is the real wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// FlavorDevices are the devices of one flavor (instance type) of the
// model: node n holds Devices[n*PerNode : (n+1)*PerNode].
type FlavorDevices struct {
	Name    string
	PerNode int
	Devices []string
	// Kind says how a job is shown its devices (see DeviceEnv): KindNVIDIA,
	// KindNeuron, or "" for declared devices.
	Kind string
	// Cores are a Neuron device's NeuronCore ids, by device.
	Cores map[string][]int

	// PricePerHour (USD per node-hour, when Priced) prices the history's
	// report as a simulation's is priced.
	PricePerHour float64
	Priced       bool
}

// Config is what a controller schedules with; cmd/allot builds it from a
// scenario or policy file.
type Config struct {
	Model      *policies.Model
	Flavors    []FlavorDevices // by flavor index of Model
	Teams      []string        // by queue index of Model
	Quotas     [][]int         // by queue index, then flavor: guaranteed accelerators
	Priorities map[string]int32
	// GracePeriod is the time between the stop signal and the kill.
	GracePeriod time.Duration
	MaxRetries  int // preemptions before a job fails; -1 = unlimited

	// Name and Policy name the config and its policy kind in the history.
	Name, Policy string
	// PolicyID names the policy file the decisions come from (its name
	// and a digest of its text): every event records it, so a history
	// says which policy made each decision across promotions.
	PolicyID string
}

// Job is one job, as stored.
type Job struct {
	ID            string   `json:"id"`
	Seq           int64    `json:"seq"`
	Name          string   `json:"name"`
	Team          string   `json:"team"`
	PriorityClass string   `json:"priority_class"`
	Accelerators  int      `json:"accelerators"`
	InstanceType  string   `json:"instance_type"`
	Command       []string `json:"command"`
	Dir           string   `json:"dir"`
	// Env is what the submitter asked to set (--env).
	Env       []string `json:"env,omitempty"`
	RequestID string   `json:"request_id,omitempty"`
	UID       int      `json:"uid"`
	TimeLimit float64  `json:"time_limit,omitempty"` // seconds; 0 = none
	// CheckpointInterval (s) is how often the job says it checkpoints: the
	// core weighs the work a preemption would lose by it.
	CheckpointInterval float64    `json:"checkpoint_interval,omitempty"`
	State              string     `json:"state"`
	Reason             string     `json:"reason"`
	ExitCode           *int       `json:"exit_code"`
	Submitted          time.Time  `json:"submitted"`
	Started            *time.Time `json:"started"`
	Ended              *time.Time `json:"ended,omitempty"`
	Preemptions        int        `json:"preemptions"`
	// Run numbers the job's runs from 1; the restart count is Run-1.
	Run int `json:"run"`
	// Attempt numbers its admissions, and so its run directories: a run
	// decided but never started is started again under the same Run, in
	// a directory of its own.
	Attempt int `json:"attempt,omitempty"`
	// StartFailures counts admissions in a row whose run could not be
	// started; RetryAt (controller seconds) is when it may be admitted
	// again after the last.
	StartFailures int      `json:"start_failures,omitempty"`
	RetryAt       float64  `json:"retry_at,omitempty"`
	Order         float64  `json:"order"` // queue position, kept across preemptions
	Flavor        int      `json:"flavor"`
	Nodes         []int32  `json:"nodes,omitempty"`
	Devices       []string `json:"devices,omitempty"`
	// DeviceEnv shows the run its devices (CUDA_VISIBLE_DEVICES=...).
	DeviceEnv  []string `json:"device_env,omitempty"`
	AdmittedAt float64  `json:"admitted_at"`
	// RunAdmitted is when the current run was admitted, on the wall clock:
	// the job sees it as ALLOT_ADMITTED_AT.
	RunAdmitted *time.Time `json:"run_admitted,omitempty"`
	RunStart    float64    `json:"run_start"`
	Stopping    string     `json:"stopping,omitempty"`
	KillAt      float64    `json:"kill_at,omitempty"`
	PreemptBy   string     `json:"preempt_by,omitempty"`
	// PendingSince is when it last started waiting (controller seconds).
	PendingSince float64 `json:"pending_since"`
}

// Final says whether the job is done for good.
func (j *Job) Final() bool {
	return j.State == StateSucceeded || j.State == StateFailed || j.State == StateCancelled
}

// Request is a job submission.
type Request struct {
	Name          string  `json:"name"`
	Team          string  `json:"team"`
	PriorityClass string  `json:"priority_class"`
	Accelerators  int     `json:"accelerators"`
	InstanceType  string  `json:"instance_type"`
	TimeLimit     float64 `json:"time_limit"`
	// CheckpointInterval in seconds; 0 = the job does not say.
	CheckpointInterval float64  `json:"checkpoint_interval"`
	Command            []string `json:"command"`
	Dir                string   `json:"dir"`
	// Env is NAME=VALUE pairs the job gets beside its clean environment.
	Env []string `json:"env,omitempty"`
	// RequestID makes a submission idempotent: a retry with the same id
	// from the same user returns the job the first one made.
	RequestID string `json:"request_id,omitempty"`
}

// RequestError is a request the controller refuses: nothing was written.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// NotFoundError names a job that does not exist.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no job %q", e.ID) }
