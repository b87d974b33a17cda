package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"

	"github.com/allot-sim/allot/scenarios"
)

// variantDigest fingerprints what a variant's runs depend on: the scenario
// file, the policy (and its file), the trace, and the allot build. Shards of
// one comparison made from different inputs or builds then refuse to merge.
func variantDigest(s *scenarios.Scenario, policy string) (string, error) {
	h := sha256.New()
	add := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(h, f)
		return err
	}
	if err := add(s.Path); err != nil {
		return "", err
	}
	io.WriteString(h, "\x00policy:"+policy+"\x00")
	if st, err := os.Stat(policy); err == nil && st.Mode().IsRegular() {
		if err := add(policy); err != nil {
			return "", err
		}
	}
	if s.TracePath != "" {
		if err := add(s.TracePath); err != nil {
			return "", err
		}
	}
	io.WriteString(h, "\x00build:"+buildID())
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildID is the source revision the binary was built from, if recorded.
func buildID() string {
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
