package framework_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

type blockIn struct {
	// Where blocks in a hook ("hook") or in the tool ("tool").
	Where string `json:"where"`
}

// TestCancellation cancels a call while the tool (or a hook) blocks on its
// context: the blocked code sees the cancellation, the rest of the run is
// skipped as the run contract says, and finally runs exactly once.
func TestCancellation(t *testing.T) {
	cases := []struct {
		where string
		// stages the run goes through; code is the flow error's code in finally.
		stages []string
		code   flows.Code
	}{
		// The tool returns ctx.Err(): the flow fails in execute.
		{where: "tool", stages: []string{"beforeValidation", "afterValidation", "beforeExecute", "onError", "finally"}, code: flows.CodeCanceled},
		// A beforeValidation hook waits for the cancellation and returns
		// nil: the runner checks the context before the next hook (the
		// recording one, of lower priority) and aborts with CodeCanceled;
		// validation and execute never run.
		{where: "hook", stages: []string{"onError", "finally"}, code: flows.CodeCanceled},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tr.name+"/"+tc.where, func(t *testing.T) {
				started := make(chan struct{}, 1)
				sawCancel := make(chan error, 1)
				finished := make(chan error, 1)
				var finallyRuns, executes atomic.Int32
				rec := &recorder{}

				srv := framework.NewServer(&mcp.Implementation{Name: "cancel", Version: "1"}, nil)
				addEntities(t, srv)
				err := errors.Join(
					framework.AddToolFunc(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, in blockIn) (echoOut, error) {
						executes.Add(1)
						if in.Where == "tool" {
							started <- struct{}{}
							<-ctx.Done()
							sawCancel <- ctx.Err()
							return echoOut{}, ctx.Err()
						}
						return echoOut{Echo: "not cancelled"}, nil
					}),
					srv.Hook(
						flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "block", Fn: func(c *flows.Context) error {
							if c.Entity().Name == "block" && string(flows.As[flows.ToolCall[blockIn, echoOut]](c).Args()) == `{"where":"hook"}` {
								started <- struct{}{}
								<-c.Context().Done()
								sawCancel <- c.Context().Err()
							}
							return nil
						}},
						// count runs after rec (priority -1), so that the
						// run's stages are recorded when the test hears
						// from finally.
						flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "count", Priority: -2, Fn: func(c *flows.Context) error {
							if c.Entity().Name == "block" {
								finallyRuns.Add(1)
								finished <- c.Err()
							}
							return nil
						}},
					),
				)
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range stages.All() {
					if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: st, Name: "rec", Priority: -1, Fn: func(c *flows.Context) error {
						if c.Entity().Name == "block" {
							rec.add("%s %s", c.Flow(), c.Stage())
						}
						return nil
					}}); err != nil {
						t.Fatal(err)
					}
				}
				cs := tr.connect(t, srv, nil)

				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				callErr := make(chan error, 1)
				go func() {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: blockIn{Where: tc.where}})
					callErr <- err
				}()
				wait(t, started, "the call to block")
				cancel()
				if err := wait(t, callErr, "the client's call to return"); !errors.Is(err, context.Canceled) {
					t.Errorf("client error = %v, want context.Canceled", err)
				}
				if err := wait(t, sawCancel, "the blocked code to see the cancellation"); !errors.Is(err, context.Canceled) {
					t.Errorf("blocked code saw %v, want context.Canceled", err)
				}
				runErr := wait(t, finished, "finally")
				if runErr == nil {
					t.Error("finally saw no error for a cancelled run")
				}
				if got := flows.CodeOf(runErr); got != tc.code {
					t.Errorf("finally saw code %v (%v), want %v", got, runErr, tc.code)
				}
				if !errors.Is(runErr, context.Canceled) {
					t.Errorf("finally saw %v, want an error wrapping context.Canceled", runErr)
				}

				// The session still serves; after that call, the cancelled run
				// has certainly finished, and finally ran exactly once.
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "after"}})
				if err != nil || res.IsError {
					t.Fatalf("call after cancellation: res=%+v err=%v", res, err)
				}
				if n := finallyRuns.Load(); n != 1 {
					t.Errorf("finally ran %d times, want 1", n)
				}
				wantExec := int32(1)
				if tc.where == "hook" {
					wantExec = 0
				}
				if n := executes.Load(); n != wantExec {
					t.Errorf("the tool ran %d times, want %d", n, wantExec)
				}
				if got := stagesOf(rec.take(), flows.ToolsCallTool); !equal(got, tc.stages) {
					t.Errorf("stages = %v, want %v", got, tc.stages)
				}
			})
		}
	}
}
