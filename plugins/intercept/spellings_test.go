package intercept_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// rawHost is an interceptor host written against the go-sdk alone, as a
// host of another implementation would be: one validator that denies
// every tools/call request, declared with mode, and answering invoke
// under the methods given. It counts the invocations each method got.
type rawHost struct {
	srv *mcp.Server
	mu  sync.Mutex
	got map[string]int
}

func newRawHost(t *testing.T, mode wire.Mode, methods ...string) *rawHost {
	t.Helper()
	h := &rawHost{srv: mcp.NewServer(&mcp.Implementation{Name: "raw-host"}, nil), got: map[string]int{}}
	desc := wire.Interceptor{Name: "deny", Type: wire.Validation, Mode: mode,
		Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Request}}}
	if err := mcp.AddReceivingCustomMethod(h.srv, wire.MethodList, func(context.Context, *mcp.ServerSession, *wire.ListParams) (*wire.ListResult, error) {
		return &wire.ListResult{Interceptors: []wire.Interceptor{desc}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, m := range methods {
		if err := mcp.AddReceivingCustomMethod(h.srv, m, func(_ context.Context, _ *mcp.ServerSession, p *wire.InvokeParams) (*wire.Result, error) {
			h.mu.Lock()
			h.got[m]++
			h.mu.Unlock()
			valid := false
			return &wire.Result{Interceptor: p.Name, Type: wire.Validation, Phase: p.Phase, Valid: &valid, Severity: wire.Error,
				Messages: []wire.Message{{Message: "denied by policy", Severity: wire.Error}}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// server is the invoker's configuration of the host.
func (h *rawHost) server() intercept.Server {
	return intercept.Server{Name: "raw", Transport: func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := h.srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func (h *rawHost) invocations(method string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got[method]
}

// TestOtherSpellings: hookflow reads what hosts written to other states
// of the SEP put on the wire, on both sides. A descriptor's mode
// "enforce" (the older name) is active: its denial blocks. A host that
// answers only interceptors/invoke (the plural under discussion) is
// invoked under it, after one method-not-found answer to the singular
// hookflow sends first; a host that answers the singular never sees the
// plural.
func TestOtherSpellings(t *testing.T) {
	tests := []struct {
		name    string
		mode    wire.Mode
		methods []string
		// singular and plural are the invocations each spelling gets
		// over two calls.
		singular, plural int
	}{
		{name: "active, singular", mode: wire.Active, methods: []string{wire.MethodInvoke}, singular: 2},
		{name: "enforce, singular", mode: wire.ModeEnforce, methods: []string{wire.MethodInvoke}, singular: 2},
		{name: "plural only", mode: "", methods: []string{wire.MethodInvokePlural}, plural: 2},
		{name: "both", mode: "", methods: []string{wire.MethodInvoke, wire.MethodInvokePlural}, singular: 2},
	}
	for _, tt := range tests {
		t.Run("sending/"+tt.name, func(t *testing.T) {
			h := newRawHost(t, tt.mode, tt.methods...)
			ch, err := intercept.NewChain(context.Background(), intercept.Config{Servers: []intercept.Server{h.server()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ch.Close() })
			for range 2 {
				if got := callThroughClient(t, ch, `{"note":"hi"}`); !got.deny {
					t.Fatalf("%+v, want the call blocked", got)
				}
			}
			if s, p := h.invocations(wire.MethodInvoke), h.invocations(wire.MethodInvokePlural); s != tt.singular || p != tt.plural {
				t.Errorf("invocations: %d singular, %d plural; want %d, %d", s, p, tt.singular, tt.plural)
			}
		})
		t.Run("server/"+tt.name, func(t *testing.T) {
			h := newRawHost(t, tt.mode, tt.methods...)
			for range 2 {
				if got := callHookflowServer(t, intercept.Config{Servers: []intercept.Server{h.server()}}, `{"note":"hi"}`); !got.deny {
					t.Fatalf("%+v, want the call blocked", got)
				}
			}
			// Each call is a new server, with a new connection to the
			// host: each learns the spelling once.
			if s, p := h.invocations(wire.MethodInvoke), h.invocations(wire.MethodInvokePlural); s != tt.singular || p != tt.plural {
				t.Errorf("invocations: %d singular, %d plural; want %d, %d", s, p, tt.singular, tt.plural)
			}
		})
	}
}
