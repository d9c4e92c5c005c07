package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

// step is one event of the demo's session.
type step struct {
	event declared.Event
	tool  *declared.ToolCall
}

func bash(command string) *declared.ToolCall {
	in, _ := json.Marshal(map[string]string{"command": command})
	return &declared.ToolCall{Name: "Bash", Input: in}
}

// session is what a coding session looks like to the host: the agent
// starts, is asked to fix a bug, runs commands, commits, stores a memory,
// commits again, answers, and the session ends.
var session = []step{
	{event: declared.SessionStart},
	{event: declared.PreRequest},
	{event: declared.PreToolUse, tool: bash("go test ./cart/...")},
	{event: declared.PostToolUse, tool: bash("go test ./cart/...")},
	{event: declared.PreToolUse, tool: bash("git push --force origin main")},
	{event: declared.PostToolUse, tool: bash(`git commit -am "cart: round prices in cents"`)},
	{event: declared.PreToolUse, tool: &declared.ToolCall{Name: "mcp__memory__store_memory",
		Input: json.RawMessage(`{"project":"shop","fact":"Rounding happens once, at checkout."}`)}},
	{event: declared.PostToolUse, tool: bash(`git commit -am "cart: test rounding"`)},
	{event: declared.PostRequest},
	{event: declared.SessionEnd},
}

// runDemo plays session as a host would: it connects to the server as a
// client that supports every event, adds it under the name "memory" as
// trusted (not fully: its required declaration fires as important), with a
// ten-minute cooldown per declaration, and prints at each event what the
// host would put in the agent's context, and why anything that matched was
// left out.
func runDemo(ctx context.Context, w io.Writer) error {
	srv, err := newServer(seeded())
	if err != nil {
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return err
	}
	// snippet:start host
	caps := declared.DeclareSupport(nil, declared.Events()...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-host", Version: "0.1.0"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	hooks, err := client.New(client.Config{
		Project:  "shop",
		Trust:    map[string]client.Trust{"memory": client.Trusted},
		Cooldown: 10 * time.Minute,
		// A host would ask its user; the demo shows what it would ask and
		// approves everything.
		Approve: func(_ context.Context, p client.Proposal) bool {
			fmt.Fprintf(w, "approve %s#%d: %s", p.Server, p.Index, p.Declaration.Event)
			if m := p.Declaration.Matcher; m != nil {
				b, _ := json.Marshal(m)
				fmt.Fprintf(w, " %s", b)
			}
			fmt.Fprintf(w, " %s", p.Priority)
			if p.Priority != p.Declaration.Priority {
				fmt.Fprintf(w, " (declared %s)", p.Declaration.Priority)
			}
			fmt.Fprintln(w)
			return true
		},
		Audit: func(r client.Record) {
			switch r.Outcome {
			case client.Accepted, client.Injected, client.Truncated:
			default:
				fmt.Fprintf(w, "   left out: %s\n", r)
			}
		},
	})
	if err != nil {
		return err
	}
	if err := hooks.Add(ctx, "memory", cs); err != nil {
		return err
	}
	// snippet:end host
	// snippet:start fire
	for _, s := range session {
		fmt.Fprintf(w, "\n== %s", s.event)
		if s.tool != nil {
			fmt.Fprintf(w, " %s %s", s.tool.Name, s.tool.Input)
		}
		fmt.Fprintln(w)
		injs := hooks.Fire(ctx, client.Firing{Event: s.event, SessionID: "s-1", Tool: s.tool})
		if len(injs) == 0 {
			fmt.Fprintln(w, "   (nothing to inject)")
		}
		for _, in := range injs {
			fmt.Fprintf(w, "   inject %s#%d [%s]: %s\n", in.Server, in.Index, in.Priority, strings.ReplaceAll(in.Text, "\n", "\n      "))
		}
	}
	// snippet:end fire
	return nil
}
