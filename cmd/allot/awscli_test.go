package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sim/allot/scenarios"
	"github.com/stretchr/testify/require"
)

// awsGet says how to get an AWS CLI that knows Batch quota shares and
// HyperPod task governance (Debian's awscli 2.9 predates both).
const awsGet = "install a recent AWS CLI: `python3 -m pip install --user --upgrade awscli` (tested with aws-cli 1.45.11), " +
	"or set ALLOT_AWS_CLI to one; `make test` runs scripts/ensure-awscli.sh"

// awsOp is an AWS operation an export file is the input of, as the CLI
// names it, and what the recorder answers: its output's required members.
type awsOp struct {
	service, command string
	// The request's path (Batch, REST-JSON) or X-Amz-Target (SageMaker,
	// JSON 1.1, always at "/").
	path, target string
	answer       string
}

var awsOps = []struct {
	file string // the file's name, or its prefix when it ends in '-'
	op   awsOp
}{
	{"scheduling-policy.json", awsOp{"batch", "create-scheduling-policy", "/v1/createschedulingpolicy", "",
		`{"name":"p","arn":"arn:aws:batch:us-east-1:123456789012:scheduling-policy/p"}`}},
	{"job-queue.json", awsOp{"batch", "create-job-queue", "/v1/createjobqueue", "",
		`{"jobQueueName":"q","jobQueueArn":"arn:aws:batch:us-east-1:123456789012:job-queue/q"}`}},
	{"quota-share-", awsOp{"batch", "create-quota-share", "/v1/createquotashare", "",
		`{"quotaShareName":"s","quotaShareArn":"arn:aws:batch:us-east-1:123456789012:job-queue/q/quota-share/s"}`}},
	{"scheduler-config.json", awsOp{"sagemaker", "create-cluster-scheduler-config", "/", "SageMaker.CreateClusterSchedulerConfig",
		`{"ClusterSchedulerConfigArn":"arn:aws:sagemaker:us-east-1:123456789012:cluster-scheduler-config/c","ClusterSchedulerConfigId":"c"}`}},
	{"compute-quota-", awsOp{"sagemaker", "create-compute-quota", "/", "SageMaker.CreateComputeQuota",
		`{"ComputeQuotaArn":"arn:aws:sagemaker:us-east-1:123456789012:compute-quota/q","ComputeQuotaId":"q"}`}},
}

func awsOpOf(file string) (awsOp, bool) {
	for _, o := range awsOps {
		if file == o.file || strings.HasSuffix(o.file, "-") && strings.HasPrefix(file, o.file) && strings.HasSuffix(file, ".json") {
			return o.op, true
		}
	}
	return awsOp{}, false
}

// awsRequest is a request as the recorder got it.
type awsRequest struct {
	method, path, target string
	body                 []byte
}

// awsRecorder stands in for the AWS endpoints on 127.0.0.1: it keeps each
// request by the call's id (the first element of the path) and answers
// the operation's minimal valid output.
type awsRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs map[string]awsRequest
}

func newAWSRecorder(t *testing.T) *awsRecorder {
	r := &awsRecorder{reqs: map[string]awsRequest{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id, rest, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
		body, _ := io.ReadAll(req.Body)
		target := req.Header.Get("X-Amz-Target")
		r.mu.Lock()
		r.reqs[id] = awsRequest{req.Method, "/" + rest, target, body}
		r.mu.Unlock()
		for _, o := range awsOps {
			if o.op.path == "/"+rest && o.op.target == target {
				if target != "" {
					w.Header().Set("Content-Type", "application/x-amz-json-1.1")
				} else {
					w.Header().Set("Content-Type", "application/json")
				}
				io.WriteString(w, o.op.answer)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"__type":"ValidationException","message":"no such operation: %s %s"}`, req.URL.Path, target)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *awsRecorder) get(id string) (awsRequest, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q, ok := r.reqs[id]
	return q, ok
}

// awsCLI runs the AWS CLI with dummy credentials and region and no
// configuration of this machine's, never reaching the network but the
// recorder: either the aws executable per call, or awscli's own driver
// (what the aws script runs) kept in one Python process, which spares
// each of a thousand calls Python's start and the model's load.
type awsCLI struct {
	exe, version string
	env          []string
	// The driver, when a Python with the same awscli as exe is found.
	driver *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
}

func newAWSCLI(t *testing.T) *awsCLI {
	if testing.Short() {
		t.Skip("runs the AWS CLI: about a second a call")
	}
	exe := os.Getenv("ALLOT_AWS_CLI")
	if exe == "" {
		p, err := exec.LookPath("aws")
		if err != nil {
			t.Skip("no aws on PATH: " + awsGet)
		}
		exe = p
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(conf, nil, 0o644))
	env := []string{
		"AWS_ACCESS_KEY_ID=AKIDALLOTTEST", "AWS_SECRET_ACCESS_KEY=allot-test-secret",
		"AWS_DEFAULT_REGION=us-east-1", "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=" + conf, "AWS_SHARED_CREDENTIALS_FILE=" + conf,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_MAX_ATTEMPTS=1", "AWS_RETRY_MODE=standard", "AWS_PAGER=",
		"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "AWS_") && !strings.HasSuffix(strings.ToUpper(k), "_PROXY") {
			env = append(env, kv)
		}
	}
	c := &awsCLI{exe: exe, env: env}
	cmd := exec.Command(exe, "--version")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("%s --version: %v: %s; %s", exe, err, out, awsGet)
	}
	c.version = strings.TrimSpace(string(out))
	t.Logf("AWS CLI: %s (%s)", c.version, exe)
	// One that predates the operations would refuse their members too.
	for _, op := range [][2]string{{"batch", "create-quota-share"}, {"sagemaker", "create-compute-quota"}} {
		if code, stderr := c.run(t, true, op[0], op[1], "--generate-cli-skeleton", "input"); code != 0 {
			t.Skipf("%s does not know %s %s (%s); %s", c.version, op[0], op[1], errorLine(stderr), awsGet)
		}
	}
	return c
}

// errorLine is the line of the CLI's standard error that says what is
// wrong (the usage and the valid choices follow it).
func errorLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.Contains(l, "error") {
			return l
		}
	}
	return lines[len(lines)-1]
}

// awsPyDriver reads one JSON argument list a line and answers its exit
// status and standard error, one JSON object a line.
const awsPyDriver = `
import contextlib, io, json, sys
import awscli.clidriver
driver = awscli.clidriver.create_clidriver()
for line in sys.stdin:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = driver.main(json.loads(line))
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
    sys.stdout.write(json.dumps({"rc": rc, "stderr": err.getvalue()}) + "\n")
    sys.stdout.flush()
`

// startDriver starts awscli's driver in a Python that imports the same
// awscli as the executable. It reports false when there is none.
func (c *awsCLI) startDriver(t *testing.T) bool {
	py, version := c.python()
	if py == "" {
		return false
	}
	cmd := exec.Command(py, "-u", "-c", awsPyDriver)
	cmd.Env = c.env
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c.driver, c.in, c.out = cmd, in, bufio.NewReader(out)
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	t.Logf("the AWS CLI's driver runs in %s (awscli %s)", py, version)
	return true
}

// python is a Python that imports the same awscli as the executable: the
// one its #! line names, else python3; "" when there is none.
func (c *awsCLI) python() (py, version string) {
	m := regexp.MustCompile(`aws-cli/(\S+)`).FindStringSubmatch(c.version)
	if m == nil {
		return "", ""
	}
	var pythons []string
	if f, err := os.Open(c.exe); err == nil {
		line, _ := bufio.NewReader(f).ReadString('\n')
		f.Close()
		if fields := strings.Fields(strings.TrimPrefix(line, "#!")); strings.HasPrefix(line, "#!") && len(fields) == 1 && strings.Contains(fields[0], "python") {
			pythons = append(pythons, fields[0])
		}
	}
	pythons = append(pythons, "python3")
	for _, py := range pythons {
		cmd := exec.Command(py, "-c", "import awscli; print(awscli.__version__)")
		cmd.Env = c.env
		if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) == m[1] {
			return py, m[1]
		}
	}
	return "", ""
}

// run runs the CLI on args: by the executable, or by the driver when
// started and exe is false.
func (c *awsCLI) run(t *testing.T, exe bool, args ...string) (int, string) {
	if exe || c.driver == nil {
		cmd := exec.Command(c.exe, args...)
		cmd.Env = c.env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		}
		require.NoError(t, err)
		return 0, stderr.String()
	}
	line, err := json.Marshal(args)
	require.NoError(t, err)
	_, err = c.in.Write(append(line, '\n'))
	require.NoError(t, err)
	answer, err := c.out.ReadBytes('\n')
	require.NoError(t, err, "the AWS CLI's driver stopped")
	var res struct {
		RC     int    `json:"rc"`
		Stderr string `json:"stderr"`
	}
	require.NoError(t, json.Unmarshal(answer, &res))
	return res.RC, res.Stderr
}

// awsShippedScenarios is every shipped scenario and policy file with a
// fleet: the files the exports take.
func awsShippedScenarios(t *testing.T) []string {
	var out []string
	root := filepath.Join("..", "..", "scenarios")
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "export") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".yaml") {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			if strings.HasPrefix(string(data), "fleet:") || strings.Contains(string(data), "\nfleet:") {
				out = append(out, p)
			}
		}
		return nil
	}))
	require.Greater(t, len(out), 15)
	return out
}

// Every file `allot export aws-batch` and `allot export hyperpod` write
// for every shipped scenario passes the AWS CLI's own validation (of the
// API model's member names, types, required members and minimums, done
// before anything is sent) and reaches a recorder on 127.0.0.1 as the
// very body of the file: the CLI exits 0 and the service would get what
// the file says. hyperpod-teams.yaml and a fair-share variant of
// amazon-search.yaml go through the aws executable itself; the rest
// through the same CLI's driver in one process.
func TestEveryShippedScenariosAWSExportPassesTheAWSCLI(t *testing.T) {
	// Beside the tests that wait on a control plane (TestKueueDifferential
	// most), not before them.
	t.Parallel()
	c := newAWSCLI(t)
	rec := newAWSRecorder(t)
	start := time.Now()
	calls := 0
	perOp := map[string]int{}

	// check runs the CLI on every input file in dir and checks what the
	// recorder got against the file.
	check := func(label, dir string, exe bool) {
		files, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, f := range files {
			if f.Name() == "warnings.txt" {
				continue
			}
			op, ok := awsOpOf(f.Name())
			require.True(t, ok, "%s: %s is no operation's input", label, f.Name())
			path := filepath.Join(dir, f.Name())
			abs, err := filepath.Abs(path)
			require.NoError(t, err)
			calls++
			id := fmt.Sprint(calls)
			code, stderr := c.run(t, exe, op.service, op.command, "--cli-input-json", "file://"+abs, "--endpoint-url", rec.URL+"/"+id)
			require.Equal(t, 0, code, "%s: aws %s %s --cli-input-json file://%s:\n%s", label, op.service, op.command, f.Name(), stderr)
			got, ok := rec.get(id)
			require.True(t, ok, "%s: %s: the CLI sent nothing", label, f.Name())
			require.Equal(t, "POST", got.method)
			require.Equal(t, op.path, got.path, "%s: %s", label, f.Name())
			require.Equal(t, op.target, got.target, "%s: %s", label, f.Name())
			require.JSONEq(t, mustRead(t, path), string(got.body), "%s: %s: the body the CLI sent is the file", label, f.Name())
			perOp[op.service+" "+op.command]++
		}
	}
	exportBoth := func(p string) (batchDir, hpDir string) {
		dir := t.TempDir()
		batchDir, hpDir = filepath.Join(dir, "batch"), filepath.Join(dir, "hyperpod")
		code, _, errOut := cli("export", "aws-batch", p, "--region", "us-east-1", "--account-id", "123456789012",
			"--compute-environment", "gpus", "--service-environment", "training", "-o", batchDir)
		if code != 0 {
			// More instance types than a quota share takes (six types
			// in s7-small-jobs-six-types) is a clear refusal.
			require.Equal(t, exitBadInput, code, "%s: %s", p, errOut)
			require.Contains(t, errOut, "a Batch quota share takes at most 5", p)
			batchDir = ""
		}
		code, _, errOut = cli("export", "hyperpod", p, "--cluster-arn", "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh", "-o", hpDir)
		if code != 0 {
			// Types HyperPod does not offer (local-gpu, philly-v100) are a
			// clear refusal, not a file.
			require.Equal(t, exitBadInput, code, "%s: %s", p, errOut)
			require.Contains(t, errOut, "HyperPod offers no", p)
			return batchDir, ""
		}
		return batchDir, hpDir
	}

	// The control: the old output, in the SDK's Go field names, is refused
	// before anything is sent.
	old := filepath.Join(t.TempDir(), "job-queue.json")
	require.NoError(t, os.WriteFile(old, []byte(`{"JobQueueName": "q", "Priority": 1, "State": "ENABLED"}`), 0o644))
	code, stderr := c.run(t, true, "batch", "create-job-queue", "--cli-input-json", "file://"+old, "--endpoint-url", rec.URL+"/old")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, `Unknown parameter in input: "JobQueueName"`)
	_, sent := rec.get("old")
	require.False(t, sent, "refused before anything is sent")

	// The executable itself, on a file of each operation.
	fair := filepath.Join(t.TempDir(), "amazon-search-fairshare.yaml")
	data, err := scenarios.EditYAML([]byte(mustRead(t, "../../scenarios/amazon-search.yaml")), []scenarios.Setting{
		{Path: "policy.kind", Value: "fairshare"}, {Path: "policy.share_decay", Value: "1h"}, {Path: "policy.compute_reservation", Value: "25%"}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fair, data, 0o644))
	firstTier := []string{"../../scenarios/hyperpod-teams.yaml", fair}
	for i, p := range firstTier {
		b, h := exportBoth(p)
		check(filepath.Base(p), b, true)
		if i == 0 { // the variant's HyperPod files are amazon-search's own
			check(filepath.Base(p), h, true)
		}
	}
	require.Len(t, perOp, len(awsOps), "every operation through the executable: %v", perOp)
	t.Logf("aws executable: %d calls in %s", calls, time.Since(start).Round(time.Millisecond))
	if !c.startDriver(t) {
		t.Logf("no Python with the executable's awscli found: every call runs the executable (about a second each)")
	}
	scenariosChecked, hyperpod := 0, 0
	for _, p := range awsShippedScenarios(t) {
		if slices.Contains(firstTier, p) {
			continue
		}
		b, h := exportBoth(p)
		if b != "" {
			check(p, b, false)
		}
		if h != "" {
			check(p, h, false)
			hyperpod++
		}
		scenariosChecked++
	}
	var ops []string
	for op, n := range perOp {
		ops = append(ops, fmt.Sprintf("%s: %d", op, n))
	}
	sort.Strings(ops)
	require.Len(t, ops, len(awsOps), "every operation checked: %v", ops)
	t.Logf("%d shipped scenarios (%d of them HyperPod's), %d files through the AWS CLI in %s: %s",
		scenariosChecked+1, hyperpod+1, calls, time.Since(start).Round(time.Millisecond), strings.Join(ops, ", "))
}
