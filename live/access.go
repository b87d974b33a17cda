package live

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Rule grants a user (UID >= 0) or a group (GID >= 0) the right to submit
// to Teams, and to administer them when Admin is set (every team when
// Teams is empty): administer means cancel any job and read its logs.
type Rule struct {
	UID, GID int
	Teams    []string
	Admin    bool
}

// Access is the live section's rules, resolved to ids. The daemon's own
// user is admin of every team whatever the rules say; with no rules
// nobody else may connect.
//
// The read rule, the one rule for every read of the API (describe, jobs
// --all-teams, top's overview, /v1/snapshot and /v1/history): every user
// the daemon admits may see every job's metadata (id, name, team, class,
// accelerators, state, reason, devices, owner, times) and the machine's
// history and snapshot; a job's command line, working directory,
// environment and logs only its owner, its team's admins and the
// machine's admins may read (mayRead), as command lines often carry
// tokens. The others get those fields blank (redactView, redactJob,
// redactEvent).
type Access struct {
	Self  int
	Rules []Rule
	// GroupsOf lists a user's group ids (nil: none but what rules name by uid).
	GroupsOf func(uid int) []int

	// A user's groups, looked up at most every groupsTTL: every connection
	// is checked at accept, and a flood of them must not be a flood of
	// lookups in /etc/group.
	mu     sync.Mutex
	groups map[int]cachedGroups
}

type cachedGroups struct {
	gids []int
	at   time.Time
}

// groupsTTL is how long a user's groups are kept: a change of groups
// takes effect within it.
const groupsTTL = 5 * time.Second

func (a *Access) groupsOf(uid int) []int {
	if a.GroupsOf == nil {
		return nil
	}
	now := time.Now()
	a.mu.Lock()
	if c, ok := a.groups[uid]; ok && now.Sub(c.at) < groupsTTL {
		a.mu.Unlock()
		return c.gids
	}
	a.mu.Unlock()
	gids := a.GroupsOf(uid)
	a.mu.Lock()
	if a.groups == nil || len(a.groups) > 4096 {
		a.groups = map[int]cachedGroups{}
	}
	a.groups[uid] = cachedGroups{gids, now}
	a.mu.Unlock()
	return gids
}

// grants is what one caller may do.
type grants struct {
	uid        int
	known      bool
	admin      bool
	teams      map[string]bool
	teamAdmins map[string]bool
}

func (a *Access) of(uid int) grants {
	g := grants{uid: uid, teams: map[string]bool{}, teamAdmins: map[string]bool{}}
	if a == nil || uid < 0 {
		return g
	}
	if uid == a.Self {
		g.known, g.admin = true, true
		return g
	}
	gids := a.groupsOf(uid)
	for _, r := range a.Rules {
		if !(r.UID >= 0 && r.UID == uid) && !(r.GID >= 0 && slices.Contains(gids, r.GID)) {
			continue
		}
		g.known = true
		if r.Admin && len(r.Teams) == 0 {
			g.admin = true
		}
		for _, t := range r.Teams {
			g.teams[t] = true
			if r.Admin {
				g.teamAdmins[t] = true
			}
		}
	}
	return g
}

// mayConnect says whether uid may use the API at all.
func (a *Access) mayConnect(uid int) bool { return a.of(uid).known }

// maySubmit says whether uid may submit to team.
func (a *Access) maySubmit(uid int, team string) error {
	if g := a.of(uid); g.admin || g.teams[team] {
		return nil
	}
	return &ForbiddenError{fmt.Sprintf("uid %d may not submit to team %q", uid, team)}
}

// mayRead is the read rule's second half: whether the caller may read
// the command line, directory, environment and logs of a job of team
// owned by owner.
func (g grants) mayRead(owner int, team string) bool {
	return g.known && (owner == g.uid || g.admin || g.teamAdmins[team])
}

// mayOperate says whether uid may cancel j or read its logs: its owner,
// its team's admins and the machine's admins may.
func (a *Access) mayOperate(uid int, j *Job, what string) error {
	if a.of(uid).mayRead(j.UID, j.Team) {
		return nil
	}
	return &ForbiddenError{fmt.Sprintf("uid %d may not %s job %s (team %s, owned by uid %d)", uid, what, j.ID, j.Team, j.UID)}
}

// mayAdminister says whether uid administers the whole daemon (changing
// its policy, say): the daemon's user and admins of every team.
func (a *Access) mayAdminister(uid int, what string) error {
	if a.of(uid).admin {
		return nil
	}
	return &ForbiddenError{fmt.Sprintf("uid %d may not %s: only the daemon's admins may", uid, what)}
}

// redactView blanks what the read rule keeps from g in v.
func (g grants) redactView(v *View) {
	if !g.mayRead(v.UID, v.Team) {
		v.Command, v.Dir, v.Env = nil, "", nil
	}
}

// redactJob blanks what the read rule keeps from g in a stored job (the
// history's jobs).
func (g grants) redactJob(j *Job) {
	if !g.mayRead(j.UID, j.Team) {
		j.Command, j.Dir, j.Env, j.RequestID = nil, "", nil, ""
	}
}

// redactEvent cuts a command line from an event of a job g may not read:
// a "submitted" event has carried one after its accelerators ("team a,
// class "low", 1 accelerators: CMD").
func (g grants) redactEvent(e *Event, owner int, team string) {
	if e.Kind != "submitted" || g.mayRead(owner, team) {
		return
	}
	const mark = " accelerators: "
	if i := strings.Index(e.Detail, mark); i >= 0 {
		e.Detail = e.Detail[:i+len(mark)-2]
	}
}

// ForbiddenError is a request the caller has no right to make.
type ForbiddenError struct{ Msg string }

func (e *ForbiddenError) Error() string { return e.Msg }
