package live

import (
	"fmt"
	"slices"
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
type Access struct {
	Self  int
	Rules []Rule
	// GroupsOf lists a user's group ids (nil: none but what rules name by uid).
	GroupsOf func(uid int) []int
}

// grants is what one caller may do.
type grants struct {
	known      bool
	admin      bool
	teams      map[string]bool
	teamAdmins map[string]bool
}

func (a *Access) of(uid int) grants {
	g := grants{teams: map[string]bool{}, teamAdmins: map[string]bool{}}
	if a == nil || uid < 0 {
		return g
	}
	if uid == a.Self {
		g.known, g.admin = true, true
		return g
	}
	var gids []int
	if a.GroupsOf != nil {
		gids = a.GroupsOf(uid)
	}
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

// mayOperate says whether uid may cancel j or read its logs: its owner,
// its team's admins and the machine's admins may.
func (a *Access) mayOperate(uid int, j *Job, what string) error {
	if g := a.of(uid); j.UID == uid || g.admin || g.teamAdmins[j.Team] {
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

// ForbiddenError is a request the caller has no right to make.
type ForbiddenError struct{ Msg string }

func (e *ForbiddenError) Error() string { return e.Msg }
