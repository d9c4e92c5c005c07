package framework_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// An app's tools:list-tools hooks decide the visibility of that app's tools
// only: they do not run when another app's tool is called, and they can hide
// their own app's tools from calls.
func TestListHooksOfOneAppDoNotRunForAnother(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "vis", Version: "0"}, nil)
	a, err := srv.App("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := srv.App("b")
	if err != nil {
		t.Fatal(err)
	}
	type none struct{}
	tool := func(r framework.Registrar, name string) {
		t.Helper()
		if err := framework.AddToolFunc(r, &mcp.Tool{Name: name, Description: name}, func(context.Context, *mcp.CallToolRequest, none) (none, error) {
			return none{}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	tool(a, "a_tool")
	tool(a, "a_secret")
	tool(b, "b_tool")
	var aListRuns atomic.Int64
	if err := a.Hook(flows.Hook{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Name: "hide", Fn: func(c *flows.Context) error {
		aListRuns.Add(1)
		res := flows.As[flows.List[*mcp.ListToolsResult]](c).Result()
		kept := res.Tools[:0]
		for _, tl := range res.Tools {
			if tl.Name != "a_secret" {
				kept = append(kept, tl)
			}
		}
		res.Tools = kept
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "b_tool"}); err != nil {
		t.Fatalf("b_tool: %v", err)
	}
	if n := aListRuns.Load(); n != 0 {
		t.Errorf("app a's list hook ran %d times for app b's tool, want 0", n)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "a_tool"}); err != nil {
		t.Fatalf("a_tool: %v", err)
	}
	if n := aListRuns.Load(); n != 1 {
		t.Errorf("app a's list hook ran %d times for app a's tool, want 1", n)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "a_secret"}); err == nil {
		t.Error("a_secret: hidden by app a's list hook, but the call succeeded")
	}
}
