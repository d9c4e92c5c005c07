package gateway_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// toolNames lists the tools cs sees.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// TestToolsPerClientSession: an upstream that offers a tool only to
// clients that declare sampling. Through the gateway each client session
// sees, and can call, exactly what its own upstream session offers it,
// whatever the other sessions do; a list change reaches only the
// session whose list changed.
func TestToolsPerClientSession(t *testing.T) {
	for _, tr := range []struct {
		name     string
		upstream func(t *testing.T) gateway.Upstream
	}{
		{"stdio", func(*testing.T) gateway.Upstream { return stdio("up") }},
		{"http", func(t *testing.T) gateway.Upstream { return httpUpstream(t, "up", "-persession") }},
	} {
		t.Run(tr.name, func(t *testing.T) {
			srv, _ := serve(t, nil, tr.upstream(t))
			var mu sync.Mutex
			changed := map[string]int{}
			client := func(name string, samples bool) *mcp.ClientSession {
				opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					mu.Lock()
					defer mu.Unlock()
					changed[name]++
				}}
				if samples {
					opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
						return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "x"}, Role: "assistant"}, nil
					}
				}
				return connect(t, srv, opts)
			}
			capable, plain := client("capable", true), client("plain", false)
			for round := range 2 {
				if names := toolNames(t, capable); !slices.Contains(names, "sampling_only") || !slices.Contains(names, "echo") {
					t.Errorf("round %d: the capable client sees %v, want sampling_only and echo", round, names)
				}
				if got, isErr := call(t, capable, "sampling_only", nil); isErr || got != "for a client that samples" {
					t.Errorf("round %d: capable sampling_only = %q (isError %v)", round, got, isErr)
				}
				if names := toolNames(t, plain); slices.Contains(names, "sampling_only") || !slices.Contains(names, "echo") {
					t.Errorf("round %d: the plain client sees %v, want echo and not sampling_only", round, names)
				}
				_, err := plain.CallTool(context.Background(), &mcp.CallToolParams{Name: "sampling_only"})
				var wire *jsonrpc.Error
				if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, "unknown tool") {
					t.Errorf("round %d: plain sampling_only: err = %v, want unknown tool", round, err)
				}
				if got, _ := call(t, plain, "echo", map[string]any{"r": round}); got == "" {
					t.Errorf("round %d: plain echo failed", round)
				}
			}
			// The capable client's first list brought sampling_only to the
			// server; the SDK tells every session of that a moment later,
			// and the gateway passes it on to each (each had listed no
			// later change), once. What a client hears after that is about
			// later changes.
			heard := func(name string) int {
				mu.Lock()
				defer mu.Unlock()
				return changed[name]
			}
			eventually(t, "both clients to hear of sampling_only", func() bool { return heard("capable") > 0 && heard("plain") > 0 })
			capableBefore, plainBefore := heard("capable"), heard("plain")
			// A tool the plain client's upstream session adds reaches it,
			// and only it: the plain client sees it and is told (the SDK
			// tells a moment after the list has it); the capable client,
			// whose view did not change, is not told.
			call(t, plain, "add_tool", map[string]any{"text": "added"})
			eventually(t, "the plain client to see its new tool", func() bool { return slices.Contains(toolNames(t, plain), "added") })
			eventually(t, "the plain client to hear its list changed", func() bool { return heard("plain") > plainBefore })
			if slices.Contains(toolNames(t, capable), "added") {
				t.Errorf("the capable client sees the tool the plain client's upstream session added")
			}
			if got := heard("capable"); got != capableBefore {
				t.Errorf("the capable client heard %d list changes after the plain client's, want none", got-capableBefore)
			}
		})
	}
}

// TestInstructionsMerged: the upstreams' instructions reach the client,
// each under its upstream's name, in configuration order.
func TestInstructionsMerged(t *testing.T) {
	a, b, c := stdio("a"), stdio("b"), stdio("c")
	a.Command = append(a.Command, "-instructions", "Use a's echo to echo.")
	b.Command = append(b.Command, "-noresources", "-instructions", "  Call b's tools slowly.\n")
	c.Command = append(c.Command, "-noresources") // no instructions
	b.Prefix, c.Prefix = "b_", "c_"
	srv, _ := serve(t, nil, a, b, c)
	cs := connect(t, srv, nil)
	want := "## a\n\nUse a's echo to echo.\n\n## b\n\nCall b's tools slowly."
	if got := cs.InitializeResult().Instructions; got != want {
		t.Errorf("instructions = %q, want %q", got, want)
	}
}

// TestTaskToolsLeftOut: a tool the upstream says must be called as a task
// is not mounted (the gateway cannot make such a call): clients neither
// see it nor reach it, and the log says why.
func TestTaskToolsLeftOut(t *testing.T) {
	up := stdio("a")
	up.Command = append(up.Command, "-tasks")
	srv, _, logs := serveLogged(t, nil, up)
	cs := connect(t, srv, nil)
	if names := toolNames(t, cs); slices.Contains(names, "research") || !slices.Contains(names, "echo") {
		t.Errorf("tools = %v, want echo and not research", names)
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "research"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("research: err = %v, want unknown tool", err)
	}
	if !strings.Contains(logs.String(), "must be called as a task") || !strings.Contains(logs.String(), "tool=research") {
		t.Errorf("log:\n%s\nwant research left out as a task", logs.String())
	}
}

// TestPerSessionInApp: attached to an app, the gateway still merges the
// instructions and shows each session what its own upstream session
// offers.
func TestPerSessionInApp(t *testing.T) {
	a := stdio("a")
	a.Command = append(a.Command, "-instructions", "hi")
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{a}})
	srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, &framework.Options{Subscribe: gw.Subscribe, Unsubscribe: gw.Unsubscribe})
	app, err := srv.App("upstreams")
	check(t, err)
	check(t, app.Use(gw))
	check(t, srv.Start())
	t.Cleanup(func() { gw.Close() })
	capable := connect(t, srv, &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "x"}, Role: "assistant"}, nil
	}})
	plain := connect(t, srv, nil)
	if got := capable.InitializeResult().Instructions; got != "## a\n\nhi" {
		t.Errorf("instructions = %q", got)
	}
	if names := toolNames(t, capable); !slices.Contains(names, "sampling_only") {
		t.Errorf("the capable client sees %v, want sampling_only", names)
	}
	if names := toolNames(t, plain); slices.Contains(names, "sampling_only") {
		t.Errorf("the plain client sees %v, want no sampling_only", names)
	}
}
