package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

// Link-time values win; a stamped commit is cut to 12 characters and
// marked dirty when the tree was.
func TestVersionPrefersLinkTimeValuesAndMarksADirtyCommit(t *testing.T) {
	if got := Version("v1.2.3", "abc"); got != "allot v1.2.3 (abc)" {
		t.Errorf("Version = %q", got)
	}
	if got := Version("", ""); !strings.HasPrefix(got, "allot ") {
		t.Errorf("Version = %q", got)
	}
	got := stampedCommit([]debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}})
	if got != "0123456789ab-dirty" {
		t.Errorf("stampedCommit = %q", got)
	}
}
