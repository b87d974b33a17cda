package local

import (
	"os"
	"path/filepath"
)

// RootSocket is where a daemon run as root with the default data
// directory listens, for every user of the machine to find.
const RootSocket = "/run/allot/allot.sock"

// DefaultDataDir is the daemon's data directory when none is given:
// /var/lib/allot for root, else $XDG_DATA_HOME/allot, else
// ~/.local/share/allot (.allot without a home).
func DefaultDataDir() string {
	if os.Getuid() == 0 {
		return "/var/lib/allot"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "allot")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".allot"
	}
	return filepath.Join(home, ".local", "share", "allot")
}

// SocketPath is where a client finds the daemon: socket when given, else
// $ALLOT_SOCKET, else the default data directory's socket, else (when
// there is none) the machine's root daemon's.
func SocketPath(socket string) string {
	if socket != "" {
		return socket
	}
	if s := os.Getenv("ALLOT_SOCKET"); s != "" {
		return s
	}
	own := filepath.Join(DefaultDataDir(), "allot.sock")
	if _, err := os.Stat(own); err != nil {
		if _, err := os.Stat(RootSocket); err == nil {
			return RootSocket // the machine's daemon, run as root
		}
	}
	return own
}
