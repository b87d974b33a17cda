package kubetest

import (
	"net"
	"strconv"
	"testing"
)

// A port taken between being picked and being bound (here by a listener
// that accepts and hangs up, as the other end of a stolen port does) makes
// the API server exit; Start starts it again on fresh ports.
func TestAControlPlaneWhoseAPIPortIsTakenStartsAgainOnFreshPorts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	thief, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer thief.Close()
	go func() {
		for {
			conn, err := thief.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	taken := strconv.Itoa(thief.Addr().(*net.TCPAddr).Port)
	attempts := 0
	pickPorts = func(t TB, n int) []string {
		attempts++
		ports := distinctPorts(t, n)
		if attempts == 1 {
			ports[n-1] = taken
		}
		return ports
	}
	defer func() { pickPorts = distinctPorts }()
	c := Start(t)
	if attempts != 2 {
		t.Errorf("%d attempts, want 2: one on the taken port, one on fresh ports", attempts)
	}
	if _, err := c.Client.Discovery().ServerVersion(); err != nil {
		t.Errorf("the second attempt's API server: %v", err)
	}
}
