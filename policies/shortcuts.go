package policies

import (
	"fmt"
	"strings"
)

// Shortcut names one of the ways the core answers without computing again
// (docs/performance.md says what each one rests on). Each is switched off
// by WithShortcutsOff (all of them: allot sim --reference), and counted while on: a
// hit is an answer the shortcut gave, a miss a time it was asked and the
// core computed.
type Shortcut uint8

const (
	SettledCycle     Shortcut = iota // a cycle that would repeat the last idle one is not run
	KeptNomination                   // a head keeps its nomination while nothing it reads changed
	RememberedSearch                 // a head's search on a type is taken again or replayed
	QuickNone                        // a search that ended at the quick test ends there again
	FitOnce                          // a head with victims is not asked again whether it fits, unless usage was added before it
	FlatOrder                        // heads and victim teams under a root of teams alone are read off one sorted list
	TieSkip                          // a later type that could only tie with the best so far is not searched
	FirstTest                        // a victim search that no set of victims could satisfy reads no candidate
	OwnLimits                        // a head its own team's limits keep out keeps its nomination until its team changes
	numShortcuts
)

var shortcutNames = [numShortcuts]string{"settled-cycle", "kept-nomination", "remembered-search", "quick-none",
	"fit-once", "flat-order", "tie-skip", "first-test", "own-limits"}

func (s Shortcut) String() string {
	if s < numShortcuts {
		return shortcutNames[s]
	}
	return fmt.Sprintf("shortcut(%d)", uint8(s))
}

// Shortcuts lists every shortcut, in a fixed order.
func Shortcuts() []Shortcut {
	out := make([]Shortcut, numShortcuts)
	for i := range out {
		out[i] = Shortcut(i)
	}
	return out
}

// ShortcutSet is a set of shortcuts.
type ShortcutSet uint16

// AllShortcuts is every shortcut.
const AllShortcuts = ShortcutSet(1<<numShortcuts - 1)

// Has says whether s is in the set.
func (set ShortcutSet) Has(s Shortcut) bool { return set&(1<<s) != 0 }

// ParseShortcuts reads a comma-separated list of shortcut names ("all" is
// every one).
func ParseShortcuts(list string) (ShortcutSet, error) {
	var set ShortcutSet
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if name == "all" {
			set |= AllShortcuts
			continue
		}
		found := false
		for i, n := range shortcutNames {
			if n == name {
				set |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown shortcut %q (shortcuts: all, %s)", name, strings.Join(shortcutNames[:], ", "))
		}
	}
	return set, nil
}

// ShortcutCounts are the hits and misses of each shortcut over a core's
// life, and the work they are read against.
type ShortcutCounts struct {
	Hits, Misses [numShortcuts]int64
	Work         WorkCounts
}

// WorkCounts is what the quota policy did, counted whatever the shortcuts:
// what a workload costs, and why (docs/performance.md).
type WorkCounts struct {
	Nominations int64 // heads nominated afresh, not kept from an earlier cycle
	Searches    int64 // victim searches run, not remembered
	Tried       int64 // victims those searches took on trial before they fit or gave up
	Claimed     int64 // heads whose victims a head processed before them in the cycle had claimed
}

// on says whether shortcut s may answer.
func (c *Core) on(s Shortcut) bool { return !c.off.Has(s) }

// tally counts one asking of shortcut s and passes its answer through.
func (c *Core) tally(s Shortcut, hit bool) bool {
	if checking {
		c.checkNoBypass(s)
	}
	if hit {
		c.counts.Hits[s]++
	} else {
		c.counts.Misses[s]++
	}
	return hit
}

// ShortcutCounts returns the shortcuts' hits and misses so far.
func (c *Core) ShortcutCounts() ShortcutCounts { return c.counts }
