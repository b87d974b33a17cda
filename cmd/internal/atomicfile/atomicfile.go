// Package atomicfile writes files whole or not at all, so that an
// interrupted command never leaves half a file where a reader looks.
package atomicfile

import "os"

// Write writes data to path through a temporary file beside it, renamed
// into place once written.
func Write(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
