package gateway_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/internal/proctest"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestUpstreamStderr kills the stdio upstream of a client session: what
// the process wrote to its standard error, and how it ended, are in the
// gateway's log, with the upstream's name.
func TestUpstreamStderr(t *testing.T) {
	srv, _, logs := serveLogged(t, nil, stdio("a"))
	cs := connect(t, srv, nil)
	if got, isErr := call(t, cs, "die", nil); !isErr || !strings.Contains(got, `upstream "a" went away during tools/call "die"`) {
		t.Errorf("die = %q (isError %v)", got, isErr)
	}
	for _, want := range []string{
		`msg="gateway: upstream stderr" upstream=a pid=`,
		`line="upstream: dying on purpose"`,
		`msg="gateway: upstream process ended" upstream=a pid=`,
		`status="exit status 3"`,
	} {
		eventually(t, "the log to say "+want, func() bool { return strings.Contains(logs.String(), want) })
	}
}

// TestFailureTellsClientsNoInternals kills an HTTP upstream mid-call: the
// client reads that the upstream went away, and then that it is
// unavailable, without its address or session; the operator's log has
// the cause (as the SDK reports it: the failed request, or the failed
// stream of the session, whichever it notices first).
func TestFailureTellsClientsNoInternals(t *testing.T) {
	up := httpUpstream(t, "a")
	up.Shared = true
	up.MinBackoff, up.MaxBackoff = time.Hour, time.Hour // stays down
	srv, gw, logs := serveLogged(t, nil, up)
	cs := connect(t, srv, nil)
	addr := strings.TrimPrefix(strings.TrimSuffix(up.URL, "/mcp"), "http://")

	got, isErr := call(t, cs, "die", nil)
	if !isErr || got != `upstream "a" went away during tools/call "die"` {
		t.Errorf("die = %q (isError %v)", got, isErr)
	}
	eventually(t, "upstream a to be down", func() bool { return gw.Health()[0].State == gateway.StateDown })
	got, isErr = call(t, cs, "echo", nil)
	if !isErr || got != `upstream "a" is unavailable (down)` {
		t.Errorf("echo while down = %q (isError %v)", got, isErr)
	}
	if log := logs.String(); !strings.Contains(log, `msg="gateway: forwarded request went away" upstream=a method=tools/call name=die err=`) {
		t.Errorf("the log does not give the cause:\n%s", log)
	}
	if strings.Contains(got, addr) {
		t.Errorf("the client reads the upstream's address %s", addr)
	}
}

// TestCloseEndsProcesses closes a gateway whose client session's stdio
// upstream is busy with a call that never ends: Close returns only once
// the process is gone, so that none outlives the gateway.
func TestCloseEndsProcesses(t *testing.T) {
	a := stdio("a")
	a.Timeout = 100 * time.Millisecond
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{a}})
	srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
	check(t, srv.Use(gw))
	check(t, srv.Start())
	cs := connect(t, srv, nil)
	call(t, cs, "hang", nil) // its process now runs a handler that never returns
	if n := children(t, filepath.Base(upstreamBin)); n != 2 {
		t.Fatalf("%d upstream processes before Close, want 2 (the gateway's, the client session's)", n)
	}
	check(t, gw.Close())
	if n := children(t, filepath.Base(upstreamBin)); n != 0 {
		t.Errorf("%d upstream processes after Close, want none", n)
	}
}

// children counts the live child processes of the test named comm,
// skipping the test where processes cannot be read.
func children(t *testing.T, comm string) int {
	t.Helper()
	n, err := proctest.Children(os.Getpid(), comm)
	if errors.Is(err, proctest.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}
