// Package buildinfo says which build of allot is running: the version
// line of allot version, and the build a digest of inputs includes so
// that results of different builds are not merged.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Version is "allot VERSION (COMMIT)": version and commit as set at link
// time, else what Go stamped into the binary ("dev", "unknown" without
// either). A commit Go stamped is marked "-dirty" when the build had
// uncommitted changes (make marks its own).
func Version(version, commit string) string {
	v, c := version, commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		if c == "" {
			c = stampedCommit(bi.Settings)
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("allot %s (%s)", v, c)
}

func stampedCommit(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// ID is the module version and source revision the binary was built
// from, as far as Go recorded them.
func ID() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value
		}
	}
	return bi.Main.Version + " " + rev + dirty
}
