package local

import (
	"fmt"
	"os"
	"testing"
)

// shimEnv makes this test binary act as the shim (`allot live shim DIR`),
// so the backend's tests start real supervisors.
const shimEnv = "ALLOT_LOCAL_TEST_BINARY_IS_SHIM"

func TestMain(m *testing.M) {
	if os.Getenv(shimEnv) == "1" {
		if err := RunShim(os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
