package client_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

// BenchmarkFire: a host's post_tool_use with 12 static declarations of one
// server, of which the event and matcher select none, or two.
func BenchmarkFire(b *testing.B) {
	var decls []declared.Declaration
	for _, e := range declared.Events() {
		decls = append(decls,
			declared.Declaration{Event: e, Context: "about {project_name}", Priority: declared.Suggestion},
			declared.Declaration{Event: e, Context: "other", Priority: declared.Important},
		)
	}
	for i := range decls {
		if decls[i].Event.IsTool() {
			decls[i].Matcher = &declared.Matcher{ToolName: "Bash", InputContains: "git commit"}
		}
	}
	m := &memory{}
	cs := transports[0].connect(b, m.server(b, "memory", decls))
	h, err := client.New(client.Config{Project: "shop", Trust: map[string]client.Trust{"memory": client.Trusted}})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Add(context.Background(), "memory", cs); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		command string
		want    int
	}{{"none", "ls", 0}, {"two", "git commit -m x", 2}} {
		f := client.Firing{Event: declared.PostToolUse, Tool: &declared.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"` + c.command + `"}`)}}
		if n := len(h.Fire(ctx, f)); n != c.want {
			b.Fatalf("%s: %d injections, want %d", c.name, n, c.want)
		}
		b.Run("matching="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.Fire(ctx, f)
			}
		})
	}
}
