package framework_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// TestConcurrentCalls sends 200 concurrent requests of five kinds over 10
// in-memory sessions to a server with hooks on every stage of every flow.
// Every request gets its own correct answer; per-run state never leaks
// between runs; finally runs once per run.
func TestConcurrentCalls(t *testing.T) {
	const sessions, calls = 10, 200
	ctx := context.Background()

	var finals [flows.Count]atomic.Int64
	var stateMismatch atomic.Int64
	runID := flows.NewKey[string]("test.run-id")
	var hooks []flows.Hook
	for _, f := range flows.All() {
		for _, st := range stages.All() {
			hooks = append(hooks, flows.Hook{Flow: f.ID, Stage: st, Name: "count", Fn: func(c *flows.Context) error {
				switch c.Stage() {
				case stages.BeforeValidation:
					if _, ok := runID.Get(c); ok {
						stateMismatch.Add(1) // state left over from another run
					}
					runID.Set(c, c.Request().ID)
				case stages.Finally:
					finals[c.Flow().Index()].Add(1)
					if id, _ := runID.Get(c); id != c.Request().ID {
						stateMismatch.Add(1)
					}
				}
				return nil
			}})
		}
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "concurrent", Version: "1"}, nil)
	addEntities(t, srv)
	if err := srv.Hook(hooks...); err != nil {
		t.Fatal(err)
	}
	var css []*mcp.ClientSession
	for range sessions {
		css = append(css, inMemory("")(t, srv, nil))
	}
	for i := range finals {
		finals[i].Store(0) // forget the sessions' server/discover runs
	}

	check := func(i int) error {
		cs := css[i%sessions]
		switch i % 5 {
		case 0:
			msg := "t" + strconv.Itoa(i)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": msg}})
			if err != nil {
				return err
			}
			if want := `{"echo":"` + msg + `"}`; res.IsError || text(res) != want {
				return fmt.Errorf("echo %s: got %q", msg, text(res))
			}
		case 1:
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": i}})
			if err != nil {
				return err
			}
			if !res.IsError {
				return fmt.Errorf("invalid echo %d: not an error", i)
			}
		case 2:
			name := "n" + strconv.Itoa(i)
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": name}})
			if err != nil {
				return err
			}
			if got := res.Messages[0].Content.(*mcp.TextContent).Text; got != "Hello, "+name+"!" {
				return fmt.Errorf("greet %s: got %q", name, got)
			}
		case 3:
			id := strconv.Itoa(i)
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/" + id})
			if err != nil {
				return err
			}
			if got := res.Contents[0].Text; got != "item "+id {
				return fmt.Errorf("read %s: got %q", id, got)
			}
		case 4:
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return err
			}
			if len(res.Tools) != 1 {
				return fmt.Errorf("list: %d tools", len(res.Tools))
			}
		}
		return nil
	}

	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			<-start
			if err := check(i); err != nil {
				errs <- fmt.Errorf("call %d: %w", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	per := int64(calls / 5)
	want := map[flows.ID]int64{
		flows.ToolsCallTool:         2 * per,
		flows.PromptsGetPrompt:      per,
		flows.ResourcesReadResource: per,
		// Listings only: a call runs no list flow.
		flows.ToolsListTools: per,
	}
	for _, f := range flows.All() {
		if got := finals[f.ID.Index()].Load(); got != want[f.ID] {
			t.Errorf("%s: finally ran %d times, want %d", f.ID, got, want[f.ID])
		}
	}
	if n := stateMismatch.Load(); n != 0 {
		t.Errorf("%d runs saw another run's state", n)
	}
}
