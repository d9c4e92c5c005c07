package command_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain checks, once every test has run (the parallel ones included),
// that no hook the tests ran is left as a zombie of this process.
func TestMain(m *testing.M) {
	code := m.Run()
	if z := zombieChildren(); len(z) > 0 {
		fmt.Fprintf(os.Stderr, "zombie children left by the tests' hooks: %v\n", z)
		code = 1
	}
	os.Exit(code)
}
