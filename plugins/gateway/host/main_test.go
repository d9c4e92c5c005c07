package host_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/gateway"
)

// upstreamBin is the gateway's test upstream (../internal/testupstream),
// built once by TestMain.
var upstreamBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gateway-host-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	upstreamBin = filepath.Join(dir, "upstream")
	out, err := exec.Command("go", "build", "-o", upstreamBin, "../internal/testupstream").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the test upstream: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stdio returns an upstream that runs the test upstream over stdio.
func stdio(name string) gateway.Upstream {
	return gateway.Upstream{Name: name, Command: []string{upstreamBin}, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
}
