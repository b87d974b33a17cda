package export

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// sacctRecord is one allocation record of `sacct --parsable2
// --allocations`: a job, an array task or a heterogeneous component, or
// one run of a requeued job (sacct --duplicates lists each run).
type sacctRecord struct {
	row                                 pipeRow
	id                                  string // 1234, 1234_7, 1234+0
	name, user, account, partition, qos string
	state                               string // COMPLETED, CANCELLED (without "by UID"), ...
	submit, start, end                  time.Time
	started, ended                      bool    // Start, End known
	elapsed                             float64 // NaN when absent
	alloc, req                          tres
	timelimit                           string // seconds, "" for UNLIMITED / Partition_Limit
	priority                            string
	hetComponent                        bool
}

// sacctColumns are the columns the import needs; the others of the
// documented --format are read where present.
var sacctColumns = []string{"JobID", "Account", "Submit", "Start", "State"}

// sacctStates are sacct's job state codes (sacct(1), JOB STATE CODES),
// and the orig_status each becomes.
var sacctStates = map[string]string{
	"BOOT_FAIL": "boot_fail", "CANCELLED": "cancelled", "COMPLETED": "completed", "DEADLINE": "deadline",
	"FAILED": "failed", "NODE_FAIL": "node_fail", "OUT_OF_MEMORY": "out_of_memory", "PENDING": "pending",
	"PREEMPTED": "preempted", "RUNNING": "running", "REQUEUED": "requeued", "RESIZING": "running",
	"REVOKED": "revoked", "SUSPENDED": "suspended", "TIMEOUT": "timeout",
}

// sacctJobID is a JobID: the job, then an array task (_7) or a pending
// array's tasks (_[1-5%2]), then a heterogeneous component (+0), then a
// step (.batch, .0), which --allocations leaves out.
var sacctJobID = regexp.MustCompile(`^(\d+)(?:_(\d+|\[[0-9,\-%:]+\]))?(?:\+(\d+))?(\.[A-Za-z0-9_+\-]+)?$`)

// readSacct reads the records, pending arrays expanded into one per task;
// job steps are left out, counted in a warning.
func readSacct(path string, w *importWarnings) ([]sacctRecord, error) {
	t, err := readPipeTable(path, "sacct --parsable2 --allocations", sacctColumns...)
	if err != nil {
		return nil, err
	}
	if !t.has("Elapsed") && !t.has("End") {
		return nil, fmt.Errorf("%s: line 1: column Elapsed: missing from the header, and End too: a job's duration needs one", path)
	}
	if !t.has("AllocTRES") && !t.has("ReqTRES") {
		return nil, fmt.Errorf("%s: line 1: column AllocTRES: missing from the header, and ReqTRES too: a job's GPUs and CPUs need one", path)
	}
	var recs []sacctRecord
	var steps []string
	for _, row := range t.rows {
		m := sacctJobID.FindStringSubmatch(row.get("JobID"))
		if m == nil {
			return nil, row.errf("JobID", "%q is not a Slurm job ID (1234, 1234_7, 1234_[1-5], 1234+0, 1234.batch)", row.get("JobID"))
		}
		if m[4] != "" {
			steps = append(steps, m[0])
			continue
		}
		r, err := readSacctRecord(row)
		if err != nil {
			return nil, err
		}
		if tasks := m[2]; strings.HasPrefix(tasks, "[") {
			ids, throttled, err := expandArray(tasks)
			if err != nil {
				return nil, row.errf("JobID", "%v", err)
			}
			if throttled {
				w.add("sacct", "JobID", "array throttles (%%N in %s and others: tasks running at once) are not modelled", row.get("JobID"))
			}
			for _, task := range ids {
				c := r
				c.id = m[1] + "_" + task + plusComponent(m[3])
				recs = append(recs, c)
			}
			continue
		}
		r.id = row.get("JobID")
		r.hetComponent = m[3] != ""
		recs = append(recs, r)
	}
	if len(steps) > 0 {
		w.add("sacct", "JobID", "%s (%s first) left out: a job's own record holds its allocation (sacct --allocations lists only those)", count(len(steps), "job step record"), steps[0])
	}
	return recs, nil
}

func plusComponent(c string) string {
	if c == "" {
		return ""
	}
	return "+" + c
}

// expandArray lists a pending array's task IDs: [1-5%2], [1,3,5-7],
// [0-15:4] (a step).
func expandArray(spec string) (ids []string, throttled bool, err error) {
	body := strings.TrimSuffix(strings.TrimPrefix(spec, "["), "]")
	if i := strings.IndexByte(body, '%'); i >= 0 {
		body, throttled = body[:i], true
	}
	for _, part := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		step := "1"
		if isRange {
			hi, step, _ = strings.Cut(hi, ":")
			if step == "" {
				step = "1"
			}
		} else {
			hi = lo
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		s, errS := strconv.Atoi(step)
		if errA != nil || errB != nil || errS != nil || b < a || s < 1 {
			return nil, false, fmt.Errorf("%q is not an array task list ([1-5], [1,3,5-7], [1-9%%2])", spec)
		}
		if len(ids)+(b-a)/s+1 > 1_000_000 {
			return nil, false, fmt.Errorf("%q lists more than a million tasks", spec)
		}
		for i := a; i <= b; i += s {
			ids = append(ids, strconv.Itoa(i))
		}
	}
	return ids, throttled, nil
}

func readSacctRecord(row pipeRow) (sacctRecord, error) {
	r := sacctRecord{row: row, name: row.get("JobName"), user: row.get("User"), account: row.get("Account"),
		partition: row.get("Partition"), qos: row.get("QOS"), priority: row.get("Priority"), elapsed: math.NaN()}
	var err error
	state := row.get("State")
	word, _, _ := strings.Cut(state, " ") // "CANCELLED by 1001"
	if _, ok := sacctStates[word]; !ok {
		return r, row.errf("State", "%q is not a job state sacct prints (COMPLETED, CANCELLED by UID, PREEMPTED, REQUEUED, ...)", state)
	}
	r.state = word
	var ok bool
	if r.submit, ok, err = row.slurmTime("Submit"); err != nil {
		return r, err
	} else if !ok {
		return r, row.errf("Submit", "%q: every job has a submit time", row.get("Submit"))
	}
	if r.start, r.started, err = row.slurmTime("Start"); err != nil {
		return r, err
	}
	if r.end, r.ended, err = row.slurmTime("End"); err != nil {
		return r, err
	}
	switch {
	case r.started && r.start.Before(r.submit):
		return r, row.errf("Start", "%s is before Submit %s", row.get("Start"), row.get("Submit"))
	case r.ended && r.started && r.end.Before(r.start):
		return r, row.errf("End", "%s is before Start %s", row.get("End"), row.get("Start"))
	}
	if d, ok, err := row.duration("Elapsed"); err != nil {
		return r, err
	} else if ok {
		r.elapsed = d
	}
	if r.alloc, err = parseTRES(row.get("AllocTRES")); err != nil {
		return r, row.errf("AllocTRES", "%v", err)
	}
	if r.req, err = parseTRES(row.get("ReqTRES")); err != nil {
		return r, row.errf("ReqTRES", "%v", err)
	}
	switch tl := row.get("Timelimit"); tl {
	case "", "UNLIMITED", "Partition_Limit", "INVALID":
	default:
		d, err := slurmDuration(tl)
		if err != nil {
			return r, row.errf("Timelimit", "%v (or UNLIMITED, Partition_Limit)", err)
		}
		r.timelimit = strconv.FormatFloat(d, 'f', -1, 64)
	}
	return r, nil
}

// resources are what the record used: AllocTRES, else (never allocated)
// ReqTRES.
func (r *sacctRecord) resources() (tres, string) {
	if r.alloc.set {
		return r.alloc, "AllocTRES"
	}
	return r.req, "ReqTRES"
}

// ran says whether the record is a run: started, and not a pending
// job's expected start (sacct prints one) nor a requeued job waiting.
func (r *sacctRecord) ran() bool {
	return r.started && r.state != "PENDING" && (r.state != "REQUEUED" || r.ended)
}

// ranFor is a run's length: Elapsed, else End - Start; ok false when
// neither is known.
func (r *sacctRecord) ranFor() (float64, bool) {
	if !math.IsNaN(r.elapsed) {
		return r.elapsed, true
	}
	if r.started && r.ended {
		return r.end.Sub(r.start).Seconds(), true
	}
	return 0, false
}
