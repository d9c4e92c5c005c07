package framework_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// midAdd is a log handler that, when the SDK logs a warning from inside
// its AddTool (a tool name it finds invalid, logged before it serves the
// tool), runs at, so that a test sees the server at that moment.
type midAdd struct {
	mu sync.Mutex
	at func()
}

func (h *midAdd) Enabled(context.Context, slog.Level) bool { return true }

func (h *midAdd) Handle(_ context.Context, r slog.Record) error {
	if !strings.Contains(r.Message, "invalid tool name") {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.at != nil {
		h.at()
	}
	return nil
}

func (h *midAdd) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *midAdd) WithGroup(string) slog.Handler      { return h }

// TestToolKnownOnceServed adds a tool after Start and looks at the server
// while the SDK is adding it (before a call can reach it) and after: Tool
// says the tool is there only once a client's call reaches it, so that
// whoever waits on Tool (a gateway mounting an upstream's tool, a test)
// never calls into an "unknown tool".
func TestToolKnownOnceServed(t *testing.T) {
	h := &midAdd{}
	srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &framework.Options{Logger: slog.New(h)})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	// The name has a space: the SDK warns of it, then serves the tool.
	const name = "late tool"
	type seen struct {
		known   bool
		callErr error
	}
	var during *seen
	h.mu.Lock()
	h.at = func() {
		_, known := srv.Tool(name)
		cctx, cancel := context.WithTimeout(ctx, time.Minute) // a bound on a hang
		defer cancel()
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name})
		during = &seen{known, err}
	}
	h.mu.Unlock()
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: name}, nothing); err != nil {
		t.Fatal(err)
	}
	_, known := srv.Tool(name)
	_, callErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
	after := &seen{known, callErr}

	if during == nil {
		t.Fatal("the SDK did not warn of the tool's name while adding it: the test no longer sees the server mid-add")
	}
	for _, tc := range []struct {
		when string
		got  *seen
	}{
		{"while the SDK adds it", during},
		{"once AddToolFunc returned", after},
	} {
		if tc.got.known != (tc.got.callErr == nil) {
			t.Errorf("%s: Tool says known=%v, but a call gives %v", tc.when, tc.got.known, tc.got.callErr)
		}
	}
	if !after.known {
		t.Error("Tool does not know the tool once AddToolFunc returned")
	}
}
