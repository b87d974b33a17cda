//go:build allotcheck

package policies

// checking: built with -tags allotcheck, every shortcut that answers is
// recomputed the plain way and a mismatch panics with its name (check.go).
const checking = true
