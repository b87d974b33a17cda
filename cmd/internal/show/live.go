package show

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/allot-sim/allot/live"
)

// Jobs prints live jobs as a table, as allot jobs does: everything a
// user named or a job said goes through live.Printable.
func Jobs(w io.Writer, jobs []live.View) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tTEAM\tCLASS\tACC\tSTATE\tDEVICES\tREASON")
	p := live.Printable
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p(j.ID), p(j.Name), p(j.Team), p(j.PriorityClass), j.Accelerators, p(j.State),
			p(strings.Join(j.Devices, ",")), p(j.Reason))
	}
	return tw.Flush()
}

// Description writes describe's text: everything a user named or a
// job said goes through live.Printable.
func Description(w io.Writer, d *live.Detail) {
	p := live.Printable
	fmt.Fprintf(w, "job %s (%s): %s\n", p(d.ID), p(d.Name), p(d.State))
	if d.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", p(d.Reason))
	}
	fmt.Fprintf(w, "team %s, priority class %s, %d accelerators, devices [%s], %d preemptions, %d restarts, owner uid %d\n",
		p(d.Team), strconv.Quote(d.PriorityClass), d.Accelerators, p(strings.Join(d.Devices, ",")), d.Preemptions, d.Restarts, d.UID)
	const stamp = "2006-01-02 15:04:05 MST"
	times := "submitted " + d.Submitted.Local().Format(stamp)
	if d.Started != nil {
		times += ", first started " + d.Started.Local().Format(stamp)
	}
	if d.Ended != nil {
		times += ", ended " + d.Ended.Local().Format(stamp)
	}
	fmt.Fprintln(w, times)
	if d.ExitCode != nil {
		fmt.Fprintf(w, "exit code: %d\n", *d.ExitCode)
	}
	switch {
	case len(d.Command) > 0:
		fmt.Fprintf(w, "command: %s\n", p(strings.Join(d.Command, " ")))
		if d.Dir != "" {
			fmt.Fprintf(w, "directory: %s\n", p(d.Dir))
		}
		if len(d.Env) > 0 {
			var names []string
			for _, e := range d.Env {
				n, _, _ := strings.Cut(e, "=")
				names = append(names, p(n))
			}
			fmt.Fprintf(w, "environment: %s set (values in --json)\n", strings.Join(names, ", "))
		}
	case d.CommandWithheld:
		fmt.Fprintln(w, "command: not shown (only the job's owner and its team's and the machine's admins see it)")
	}
	fmt.Fprintln(w, "history:")
	for i, e := range d.History {
		when := ""
		if d.At != nil {
			when = d.At[i].Local().Format("2006-01-02 15:04:05.000") + "  "
		}
		fmt.Fprintf(w, "  %s%10.3fs  %-10s %s\n", when, e.Time, p(e.Kind), p(e.Detail))
	}
}

// Promotion shows how one scheduling pass decides under each policy,
// job by job, where the two differ.
func Promotion(w io.Writer, curID, newID string, cur, next live.Decisions) {
	fmt.Fprintf(w, "promote %s (the current policy: %s)\n\n", newID, curID)
	say := func(d live.Decisions, id string) string {
		if f, ok := d.Admitted[id]; ok {
			return "admitted on " + f
		}
		if why, ok := d.Preempted[id]; ok {
			return "preempted: " + why
		}
		return "no change"
	}
	ids := slices.Collect(maps.Keys(cur.Admitted))
	for _, m := range []map[string]string{cur.Preempted, next.Admitted, next.Preempted} {
		for id := range m {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b) // numeric ids in order
		}
		return strings.Compare(a, b)
	})
	var rows [][]string
	same := 0
	for _, id := range ids {
		a, b := say(cur, id), say(next, id)
		if a == b {
			same++
			continue
		}
		rows = append(rows, []string{id, a, b})
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "one scheduling pass now decides the same under both policies (%d decisions)\n", same)
		return
	}
	fmt.Fprintln(w, "one scheduling pass now, where the policies differ:")
	Table(w, []string{"job", "current policy", "new policy"}, rows)
	fmt.Fprintf(w, "(%d of %d decisions differ)\n", len(rows), len(rows)+same)
}
