package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// TestListChangedWhileConnecting: an HTTP upstream that says its tools
// changed before it answers initialize (as servers do that register tools
// for their client's capabilities) neither crashes the gateway nor fails
// the client's calls, on the gateway's own session and on a client's.
func TestListChangedWhileConnecting(t *testing.T) {
	srv, _ := serve(t, nil, httpUpstream(t, "up", "-early"))
	for range 3 {
		cs := connect(t, srv, nil)
		if got, isErr := call(t, cs, "echo", map[string]any{"n": 1}); isErr || got != `{"n":1}` {
			t.Errorf("echo = %q (isError %v)", got, isErr)
		}
	}
}

// TestListChangedWhileConnectingAtOnce: client sessions whose upstream
// sessions all say their tools changed while they connect, at once: the
// gateway's watcher orders those sessions by their opening while they
// are still connecting, which must not race with the opening (run with
// -race), and every client's call still succeeds.
func TestListChangedWhileConnectingAtOnce(t *testing.T) {
	srv, _ := serve(t, nil, httpUpstream(t, "up", "-early"))
	var clients []*mcp.ClientSession
	for range 4 {
		clients = append(clients, connect(t, srv, nil))
	}
	var wg sync.WaitGroup
	for i, cs := range clients {
		if i == 1 {
			// The first session's list change keeps the watcher waiting
			// for it to connect (the upstream pauses 300ms); the others'
			// then reach the watcher together, while they connect. (A
			// machine too slow for this order still passes: the pause
			// sets no bound on anything the test checks.)
			time.Sleep(100 * time.Millisecond)
		}
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"n": i}})
			if err != nil {
				t.Errorf("client %d: echo: %v", i, err)
				return
			}
			if got, want := text(res), fmt.Sprintf(`{"n":%d}`, i); res.IsError || got != want {
				t.Errorf("client %d: echo = %q (isError %v), want %s", i, got, res.IsError, want)
			}
		})
	}
	wg.Wait()
}

// TestBrokenSessionReplacedBeforeNextCall: once a client session's stdio
// upstream session broke under a call (its process died, or wrote what is
// not JSON-RPC), the session's very next call runs on a new process; it
// does not fail with the old session.
func TestBrokenSessionReplacedBeforeNextCall(t *testing.T) {
	for _, breaker := range []string{"die", "garbage"} {
		t.Run(breaker, func(t *testing.T) {
			srv, _ := serve(t, nil, stdio("a"))
			cs := connect(t, srv, nil)
			var pids []string
			for i := range 3 {
				if got, isErr := call(t, cs, breaker, nil); !isErr || !strings.Contains(got, `went away`) {
					t.Fatalf("%s #%d = %q (isError %v)", breaker, i, got, isErr)
				}
				got, isErr := call(t, cs, "pid", nil)
				if isErr {
					t.Fatalf("the call after %s #%d = %q, want it to run on a new process", breaker, i, got)
				}
				if slices.Contains(pids, got) {
					t.Fatalf("pid %s again after %s #%d", got, breaker, i)
				}
				pids = append(pids, got)
			}
		})
	}
}

// TestTimeoutResetOnProgress: with ResetTimeoutOnProgress, a request that
// reports progress more often than Timeout runs past Timeout (without,
// it fails at Timeout), and MaxTotalTimeout still bounds it. The client
// asks for no progress: the gateway asks the upstream itself.
func TestTimeoutResetOnProgress(t *testing.T) {
	// slow runs 2.5s, reporting progress every 100ms: ten times within
	// the 1s timeout, however loaded the machine.
	args := map[string]any{"n": 25, "ms": 100}
	for _, tc := range []struct {
		name  string
		reset bool
		total time.Duration
		want  string
	}{
		{"timeout alone", false, 0, `upstream "a" did not answer tools/call "slow" within 1s`},
		{"reset on progress", true, 0, "done"},
		{"bounded in all", true, 1500 * time.Millisecond, `upstream "a" did not finish tools/call "slow" within 1.5s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := stdio("a")
			a.Timeout, a.ResetTimeoutOnProgress, a.MaxTotalTimeout = time.Second, tc.reset, tc.total
			srv, _ := serve(t, nil, a)
			cs := connect(t, srv, nil)
			if got, _ := call(t, cs, "slow", args); got != tc.want {
				t.Errorf("slow = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSubscriptionOnOwnSession: a client session subscribes on its own
// upstream session, so the updates a stdio upstream's process sends its
// session (the process of that client session) reach that client, and
// that client only, as they would direct.
func TestSubscriptionOnOwnSession(t *testing.T) {
	srv, _ := serve(t, nil, stdio("up"))
	var mu sync.Mutex
	counts := map[string]int{}
	client := func(name string) *mcp.ClientSession {
		cs := connect(t, srv, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			defer mu.Unlock()
			counts[name]++
		}})
		check(t, cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://hello"}))
		return cs
	}
	a, b := client("a"), client("b")
	heard := func(name string, n int) {
		t.Helper()
		eventually(t, fmt.Sprintf("%s to hear update %d", name, n), func() bool {
			mu.Lock()
			defer mu.Unlock()
			return counts[name] >= n
		})
	}
	call(t, a, "touch", nil) // a's process says test://hello changed
	heard("a", 1)
	call(t, b, "touch", nil)
	heard("b", 1)
	call(t, a, "touch", nil)
	heard("a", 2)
	mu.Lock()
	defer mu.Unlock()
	if counts["a"] != 2 || counts["b"] != 1 {
		t.Errorf("updates heard: %v, want a 2 and b 1 (each its own process's)", counts)
	}
}

// TestLargeIntegerArguments: an integer argument above 2^53 reaches the
// upstream with every digit (a float64 would round 2^53+1 to 2^53), unless
// a hook changed the arguments: then they go as the hook left them.
func TestLargeIntegerArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		hook bool
		want string
	}{
		{"as sent", false, `"arguments":{"n":9007199254740993}`},
		{"changed by a hook", true, `"arguments":{"added":true,"n":9007199254740992}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, func(srv *framework.Server) {
				if tc.hook {
					check(t, srv.Hook(flows.On(stages.AfterValidation, func(c flows.ToolCall[map[string]any, *mcp.CallToolResult]) error {
						if c.Name() == "echo" {
							(*c.Input())["added"] = true
						}
						return nil
					})))
				}
			}, stdio("a"))
			cs := connect(t, srv, nil)
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"n":9007199254740993}`)}); err != nil {
				t.Fatal(err)
			}
			got, _ := call(t, cs, "received", nil)
			if !strings.Contains(got, tc.want) {
				t.Errorf("the upstream received:\n%s\nwant %s", got, tc.want)
			}
		})
	}
}
