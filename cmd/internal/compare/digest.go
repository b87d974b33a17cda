package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"github.com/allot-sim/allot/cmd/internal/buildinfo"
	"github.com/allot-sim/allot/scenarios"
)

// Digest fingerprints what a variant's runs depend on: the scenario
// file, the policy (and its file), the trace, and the allot build. Shards of
// one comparison made from different inputs or builds then refuse to merge.
func Digest(s *scenarios.Scenario, policy string) (string, error) {
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
	io.WriteString(h, "\x00build:"+buildinfo.ID())
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
