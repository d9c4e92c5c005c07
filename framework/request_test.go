package framework_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// seenRequest is what a hook or the tool read from flows.Request.
type seenRequest struct {
	where, id, method, sessionID, header, client, protocol string
	hasSession, hasCaps                                    bool
}

func see(where string, r *flows.Request) seenRequest {
	s := seenRequest{where: where, id: r.ID, method: r.Method, sessionID: r.SessionID, protocol: r.ProtocolVersion,
		hasSession: r.Session != nil, hasCaps: r.ClientCapabilities != nil}
	if r.Header != nil {
		s.header = r.Header.Get(testHeader)
	}
	if r.ClientInfo != nil {
		s.client = r.ClientInfo.Name
	}
	return s
}

// TestRequestInfo checks what hooks and the tool learn about the request on
// each transport: a minted, unique request ID; the session ID over stateful
// HTTP; HTTP headers over HTTP; the client's info and capabilities.
func TestRequestInfo(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			ctx := context.Background()
			var mu sync.Mutex
			var seen []seenRequest
			record := func(s seenRequest) {
				mu.Lock()
				seen = append(seen, s)
				mu.Unlock()
			}
			srv := framework.NewServer(&mcp.Implementation{Name: "request-info", Version: "1"}, nil)
			addEntities(t, srv)
			err := errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: "who"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (echoOut, error) {
					c := flows.FromContext(ctx)
					record(see("execute", c.Request()))
					return echoOut{Echo: c.Request().ID}, nil
				}),
				srv.Hook(
					flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "see", Fn: func(c *flows.Context) error {
						record(see("hook", c.Request()))
						return nil
					}},
					flows.Hook{Flow: flows.PromptsListPrompts, Stage: stages.BeforeValidation, Name: "see", Fn: func(c *flows.Context) error {
						record(see("list hook", c.Request()))
						return nil
					}},
				),
			)
			if err != nil {
				t.Fatal(err)
			}
			cs := tr.connect(t, srv, nil)

			const calls = 3
			for range calls {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "who", Arguments: map[string]any{}})
				if err != nil || res.IsError {
					t.Fatalf("res=%+v err=%v", res, err)
				}
			}
			if _, err := cs.ListPrompts(ctx, nil); err != nil {
				t.Fatal(err)
			}

			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 2*calls+1 {
				t.Fatalf("recorded %d requests, want %d: %+v", len(seen), 2*calls+1, seen)
			}
			ids := map[string]bool{}
			for i, s := range seen {
				wantMethod := "tools/call"
				if s.where == "list hook" {
					wantMethod = "prompts/list"
				}
				if s.method != wantMethod {
					t.Errorf("%s: method = %q, want %q", s.where, s.method, wantMethod)
				}
				if s.id == "" {
					t.Errorf("%s: empty request ID", s.where)
				}
				// The hook and the tool of one call see the same ID; every
				// call has its own.
				if s.where == "execute" {
					if s.id != seen[i-1].id {
						t.Errorf("execute saw ID %q, its hook %q", s.id, seen[i-1].id)
					}
					continue
				}
				if ids[s.id] {
					t.Errorf("request ID %q minted twice", s.id)
				}
				ids[s.id] = true
				if !s.hasSession {
					t.Errorf("%s: no session", s.where)
				}
				wantSession := ""
				if tr.stateful {
					wantSession = cs.ID()
					if wantSession == "" {
						t.Error("stateful HTTP client has no session ID")
					}
				}
				if s.sessionID != wantSession {
					t.Errorf("%s: session ID = %q, want %q", s.where, s.sessionID, wantSession)
				}
				wantHeader := ""
				if tr.http {
					wantHeader = "yes"
				}
				if s.header != wantHeader {
					t.Errorf("%s: header %s = %q, want %q", s.where, testHeader, s.header, wantHeader)
				}
				if s.client != "test-client" || !s.hasCaps {
					t.Errorf("%s: client info %q, capabilities present %v", s.where, s.client, s.hasCaps)
				}
				if s.protocol != tr.protocol {
					t.Errorf("%s: protocol %q, want %q", s.where, s.protocol, tr.protocol)
				}
			}
		})
	}
}

// TestRequestIDsUniqueAcrossSessions checks that IDs are unique per server,
// not per session.
func TestRequestIDsUniqueAcrossSessions(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	ids := map[string]int{}
	srv := framework.NewServer(&mcp.Implementation{Name: "ids", Version: "1"}, nil)
	addEntities(t, srv)
	if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "id", Fn: func(c *flows.Context) error {
		mu.Lock()
		ids[c.Request().ID]++
		mu.Unlock()
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const sessions, calls = 4, 10
	for range sessions {
		cs := inMemory("")(t, srv, nil)
		wg.Go(func() {
			for range calls {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if len(ids) != sessions*calls {
		t.Errorf("%d distinct IDs for %d calls", len(ids), sessions*calls)
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("ID %q used %d times", id, n)
		}
	}
}

// TestClientInfoPerClient alternates requests of two different clients on
// protocol 2026-07-28, where every request carries its client's info and
// capabilities: each request sees its own client's.
func TestClientInfoPerClient(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var seen []string
	srv := framework.NewServer(&mcp.Implementation{Name: "clients", Version: "1"}, nil)
	addEntities(t, srv)
	if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "who", Fn: func(c *flows.Context) error {
		r := c.Request()
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.ClientInfo.Name+" "+r.ClientInfo.Version+" flavour="+fmt.Sprint(r.ClientCapabilities.Experimental["flavour"]))
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	connect := func(impl *mcp.Implementation, caps *mcp.ClientCapabilities) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		cs, err := mcp.NewClient(impl, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	a := connect(&mcp.Implementation{Name: "alpha", Version: "1"}, &mcp.ClientCapabilities{Experimental: map[string]any{"flavour": "sweet"}})
	b := connect(&mcp.Implementation{Name: "beta", Version: "2"}, &mcp.ClientCapabilities{Experimental: map[string]any{"flavour": "sour"}})
	var want []string
	for i := range 6 {
		cs, w := a, "alpha 1 flavour=sweet"
		if i%3 == 2 {
			cs, w = b, "beta 2 flavour=sour"
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	mu.Lock()
	defer mu.Unlock()
	if !equal(seen, want) {
		t.Errorf("hooks saw %v, want %v", seen, want)
	}
}

// TestClientInfoAtSessionStart reads the client's info, capabilities and
// protocol version from hooks of the flow that starts a session, on every
// protocol version: initialize before 2026-07-28 (where the SDK keeps the
// params in the session only after its own handler), server/discover's
// _meta after.
func TestClientInfoAtSessionStart(t *testing.T) {
	for _, version := range mcp.SupportedProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			srv := framework.NewServer(&mcp.Implementation{Name: "start", Version: "1"}, nil)
			for _, st := range []stages.Stage{stages.BeforeValidation, stages.BeforeExecute, stages.AfterExecute} {
				if err := srv.Hook(flows.Hook{Flow: flows.SessionInitialize, Stage: st, Name: "who-" + st.String(), Fn: func(c *flows.Context) error {
					r := c.Request()
					name, sampling := "<none>", false
					if r.ClientInfo != nil {
						name = r.ClientInfo.Name + " " + r.ClientInfo.Version
					}
					if r.ClientCapabilities != nil {
						sampling = r.ClientCapabilities.Sampling != nil
					}
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, fmt.Sprintf("%s %s: %s sampling=%v version=%s", r.Method, st, name, sampling, r.ProtocolVersion))
					return nil
				}}); err != nil {
					t.Fatal(err)
				}
			}
			cs := inMemory(version)(t, srv, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			method := "initialize"
			if version >= "2026-07-28" {
				method = "server/discover"
			}
			var want []string
			for _, st := range []stages.Stage{stages.BeforeValidation, stages.BeforeExecute, stages.AfterExecute} {
				want = append(want, fmt.Sprintf("%s %s: test-client 1.0.0 sampling=true version=%s", method, st, version))
			}
			mu.Lock()
			defer mu.Unlock()
			if !equal(seen, want) {
				t.Errorf("hooks saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
