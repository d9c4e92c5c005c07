package framework_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

type progressNote struct {
	token    any
	progress float64
	total    float64
	message  string
}

// TestProgress reports progress from a tool (through the run found with
// framework.FromContext) and from a hook; the client's progress handler gets
// every notification with the token it sent.
func TestProgress(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "progress", Version: "1"}, nil)
			addEntities(t, srv)
			err := errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (echoOut, error) {
					c := flows.FromContext(ctx)
					if c == nil {
						return echoOut{}, errors.New("FromContext: no run in the tool's context")
					}
					if err := framework.Progress(c, 1, 3, "half way"); err != nil {
						return echoOut{}, err
					}
					if err := framework.Progress(c, 2, 3, "done"); err != nil {
						return echoOut{}, err
					}
					return echoOut{Echo: "slow done"}, nil
				}),
				srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "progress", Fn: func(c *flows.Context) error {
					if c.Entity().Name != "slow" {
						return nil
					}
					return framework.Progress(c, 0, 3, "starting")
				}}),
			)
			if err != nil {
				t.Fatal(err)
			}
			notes := make(chan progressNote, 10)
			cs := tr.connect(t, srv, &mcp.ClientOptions{
				ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
					p := req.Params
					notes <- progressNote{p.ProgressToken, p.Progress, p.Total, p.Message}
				},
			})

			params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}}
			params.SetProgressToken("tok-" + tr.name)
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				t.Fatalf("res=%+v err=%v", res, err)
			}
			var got []progressNote
			for range 3 {
				got = append(got, wait(t, notes, "a progress notification"))
			}
			// Notifications may be handled out of order; sort by progress.
			slices.SortFunc(got, func(a, b progressNote) int { return int(a.progress - b.progress) })
			want := []progressNote{
				{"tok-" + tr.name, 0, 3, "starting"},
				{"tok-" + tr.name, 1, 3, "half way"},
				{"tok-" + tr.name, 2, 3, "done"},
			}
			if !slices.Equal(got, want) {
				t.Errorf("notifications = %+v, want %+v", got, want)
			}

			// Without a token, Progress is a no-op that succeeds.
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("without token: res=%+v err=%v", res, err)
			}
		})
	}
}

func TestFromContextOutsideARun(t *testing.T) {
	if c := flows.FromContext(context.Background()); c != nil {
		t.Fatalf("FromContext(background) = %v, want nil", c)
	}
	if err := framework.Progress(nil, 1, 2, "x"); err != nil {
		t.Fatal(err)
	}
	if err := framework.Log(nil, "info", "x"); err != nil {
		t.Fatal(err)
	}
}

// TestLogToClient sends a log message from a hook to a client that set its
// logging level (protocol 2025-11-25; on 2026-07-28 the level travels in each
// request's _meta).
func TestLogToClient(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "log", Version: "1"}, nil)
	addEntities(t, srv)
	if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "log", Fn: func(c *flows.Context) error {
		return framework.Log(c, "info", map[string]any{"tool": c.Entity().Name, "request": c.Request().ID})
	}}); err != nil {
		t.Fatal(err)
	}
	logs := make(chan *mcp.LoggingMessageParams, 1)
	cs := inMemory("2025-11-25")(t, srv, &mcp.ClientOptions{
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) { logs <- req.Params },
	})
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatal(err)
	}
	msg := wait(t, logs, "the log message")
	data, _ := msg.Data.(map[string]any)
	if msg.Level != "info" || msg.Logger != "hookflow" || data["tool"] != "echo" || data["request"] == "" {
		t.Errorf("log message = %+v", msg)
	}
}
