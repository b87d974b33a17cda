package liveconf

import (
	"fmt"
	"os"
	"os/user"
	"strconv"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/scenarios"
)

// Access resolves a live section's users and groups to ids (config names
// the file in errors); with no section, the daemon's own user only. A
// daemon not run as root refuses a rule for another user or a group: it
// would run their jobs as its own user.
func Access(config string, l *scenarios.Live) (*live.Access, error) {
	a := &live.Access{Self: os.Getuid(), GroupsOf: groupsOf}
	if l == nil {
		return a, nil
	}
	for _, r := range l.Access {
		if os.Geteuid() != 0 && (r.Group != "" || r.User != "" && r.User != selfName()) {
			who := "user " + r.User
			if r.Group != "" {
				who = "group " + r.Group
			}
			return nil, fmt.Errorf("%s: %s: this daemon runs as uid %d, not root, so it can run jobs only as its own user, "+
				"not for %s: run it as root to take other users' jobs, or remove the rule", config, r.Where, os.Geteuid(), who)
		}
		rule := live.Rule{UID: -1, GID: -1, Teams: r.Teams, Admin: r.Admin}
		if r.User != "" {
			u, err := user.Lookup(r.User)
			if err != nil {
				return nil, fmt.Errorf("%s: %s.user: %w", config, r.Where, err)
			}
			rule.UID, _ = strconv.Atoi(u.Uid)
		} else {
			g, err := user.LookupGroup(r.Group)
			if err != nil {
				return nil, fmt.Errorf("%s: %s.group: %w", config, r.Where, err)
			}
			rule.GID, _ = strconv.Atoi(g.Gid)
		}
		a.Rules = append(a.Rules, rule)
	}
	return a, nil
}

func selfName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

func groupsOf(uid int) []int {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return nil
	}
	ids, _ := u.GroupIds()
	var out []int
	for _, s := range ids {
		if g, err := strconv.Atoi(s); err == nil {
			out = append(out, g)
		}
	}
	return out
}
