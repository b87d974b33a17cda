package export

import (
	"fmt"
	"strings"
)

// warnings gathers an export's warnings, one line per kind: a kind said
// of many teams is one line listing them ("teams[a, b]: ..."), so a
// 200-team scenario does not print the same sentence 200 times.
type warnings struct {
	kinds []string            // in the order first met
	teams map[string][]string // by kind: its teams, in the order met
}

// add is a warning about the policy as a whole.
func (w *warnings) add(format string, args ...any) {
	w.team("", format, args...)
}

// team is a warning about one team: format is what follows "teams[NAME]".
func (w *warnings) team(name, format string, args ...any) {
	kind := fmt.Sprintf(format, args...)
	if w.teams == nil {
		w.teams = map[string][]string{}
	}
	names, seen := w.teams[kind]
	if !seen {
		w.kinds = append(w.kinds, kind)
	}
	if name != "" {
		for _, n := range names {
			if n == name {
				return
			}
		}
		w.teams[kind] = append(names, name)
	} else if !seen {
		w.teams[kind] = nil
	}
}

// lines are the warnings as printed and written to warnings.txt.
func (w *warnings) lines() []string {
	var out []string
	for _, k := range w.kinds {
		if names := w.teams[k]; len(names) > 0 {
			k = "teams[" + strings.Join(names, ", ") + "]" + k
		}
		out = append(out, k)
	}
	return out
}
