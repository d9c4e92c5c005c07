package framework_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// sendingTransports are the transports on which a server may send its
// client requests: stateless HTTP refuses them.
var sendingTransports = []transport{transports[1], transports[2]}

// askTool adds the tool "ask", which asks the client's model (sampling),
// its user (elicitation) or its roots, as its argument says, and answers
// with what came back.
func askTool(t testing.TB, r framework.Registrar) {
	t.Helper()
	err := framework.AddToolFunc(r, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		What string `json:"what"`
	}) (echoOut, error) {
		ss := req.Session
		switch in.What {
		case "sampling":
			res, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "capital of France?"}}}})
			if err != nil {
				return echoOut{}, err
			}
			return echoOut{Echo: res.Model + ": " + res.Content.(*mcp.TextContent).Text}, nil
		case "elicitation":
			res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "your name?", RequestedSchema: &struct {
				Type       string         `json:"type"`
				Properties map[string]any `json:"properties"`
			}{"object", map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return echoOut{}, err
			}
			return echoOut{Echo: fmt.Sprintf("%s %v", res.Action, res.Content["name"])}, nil
		case "roots":
			res, err := ss.ListRoots(ctx, nil)
			if err != nil {
				return echoOut{}, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return echoOut{Echo: strings.Join(uris, ",")}, nil
		}
		return echoOut{}, fmt.Errorf("ask what? %q", in.What)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// callAsk calls the ask tool and returns its echo, or the isError text.
func callAsk(t *testing.T, cs *mcp.ClientSession, what string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"what": what}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		return textOf(t, res), false
	}
	return strings.TrimSuffix(strings.TrimPrefix(textOf(t, res), `{"echo":"`), `"}`), true
}

// A sampling hook rewrites the request before the client sees it and the
// answer before the tool sees it; the hook knows which tool call asked.
func TestSamplingRewrite(t *testing.T) {
	for _, tr := range sendingTransports {
		t.Run(tr.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "sampling", Version: "1"}, nil)
			askTool(t, srv)
			caller := make(chan string, 1)
			err := srv.Hook(
				flows.On(stages.BeforeExecute, func(c flows.Sampling) error {
					if p := c.Parent(); p != nil && p.Entity() != nil {
						caller <- p.Entity().Name
					}
					p := c.Params()
					p.SystemPrompt = "answer in one word"
					p.MaxTokens = 3
					return nil
				}).Named("rewrite-request"),
				flows.On(stages.AfterExecute, func(c flows.Sampling) error {
					c.Result().Model = "model behind the gateway"
					return nil
				}).Named("rewrite-answer"),
			)
			if err != nil {
				t.Fatal(err)
			}
			seen := make(chan *mcp.CreateMessageParams, 1)
			cs := tr.connect(t, srv, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					seen <- req.Params
					return &mcp.CreateMessageResult{Role: "assistant", Model: "client-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
				},
			})
			got, ok := callAsk(t, cs, "sampling")
			if !ok || got != "model behind the gateway: Paris" {
				t.Errorf("tool saw %q (ok %v), want the rewritten model and the client's text", got, ok)
			}
			p := wait(t, seen, "the client's sampling request")
			if p.SystemPrompt != "answer in one word" || p.MaxTokens != 3 || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != "capital of France?" {
				t.Errorf("client got %+v, want the rewritten request with the tool's message", p)
			}
			if name := wait(t, caller, "the hook's parent run"); name != "ask" {
				t.Errorf("Parent().Entity() = %q, want the tool ask", name)
			}
		})
	}
}

// An elicitation hook answers for the user: the client is never asked.
// Another hook refuses sampling: the tool gets the refusal.
func TestElicitationAnsweredAndSamplingRefused(t *testing.T) {
	for _, tr := range sendingTransports {
		t.Run(tr.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "elicit", Version: "1"}, nil)
			askTool(t, srv)
			err := srv.Hook(
				flows.On(stages.BeforeExecute, func(c flows.Elicitation) error {
					if c.Params().Message != "your name?" {
						return fmt.Errorf("unexpected elicitation %q", c.Params().Message)
					}
					c.Respond(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}})
					return nil
				}).Named("answer"),
				flows.On(stages.BeforeExecute, func(c flows.Sampling) error {
					return errors.New("no sampling through this server")
				}).Named("refuse"),
			)
			if err != nil {
				t.Fatal(err)
			}
			asked := make(chan struct{}, 1)
			cs := tr.connect(t, srv, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked <- struct{}{}
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					asked <- struct{}{}
					return nil, errors.New("the client should not be asked")
				},
			})
			if got, ok := callAsk(t, cs, "elicitation"); !ok || got != "accept Ada" {
				t.Errorf("elicitation: %q (ok %v), want the hook's answer", got, ok)
			}
			got, ok := callAsk(t, cs, "sampling")
			if ok || !strings.Contains(got, "no sampling through this server") {
				t.Errorf("sampling: %q (ok %v), want the hook's refusal", got, ok)
			}
			select {
			case <-asked:
				t.Error("the client was asked")
			default:
			}
		})
	}
}

// An afterExecute hook filters the client's roots before the tool sees
// them.
func TestRootsFiltered(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "roots", Version: "1"}, nil)
	askTool(t, srv)
	err := srv.Hook(flows.On(stages.AfterExecute, func(c flows.RootsList) error {
		res := c.Result()
		var kept []*mcp.Root
		for _, r := range res.Roots {
			if !strings.Contains(r.URI, "secret") {
				kept = append(kept, r)
			}
		}
		res.Roots = kept
		return nil
	}).Named("hide-secret"))
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(clientImpl(), nil)
	client.AddRoots(&mcp.Root{URI: "file:///work"}, &mcp.Root{URI: "file:///secret"})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, ok := callAsk(t, cs, "roots"); !ok || got != "file:///work" {
		t.Errorf("roots: %q (ok %v), want file:///work only", got, ok)
	}
}

// A hook that answers with a result of the wrong type fails the request
// with an error naming the hook, instead of crashing the sender.
func TestSentAnswerOfWrongType(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "wrong", Version: "1"}, nil)
	askTool(t, srv)
	err := srv.Hook(flows.Hook{Flow: flows.SamplingCreateMessage, Stage: stages.BeforeExecute, Name: "bad-answer", Fn: func(c *flows.Context) error {
		c.Respond(&mcp.ElicitResult{Action: "accept"})
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := transports[1].connect(t, srv, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{}}, nil
		},
	})
	got, ok := callAsk(t, cs, "sampling")
	want := `the answer of hook "wrong/sampling:create-message/beforeExecute/bad-answer" is a *mcp.ElicitResult; sampling/createMessage takes a non-nil *mcp.CreateMessageWithToolsResult`
	if ok || got != want {
		t.Errorf("got %q (ok %v), want %q", got, ok, want)
	}
}

// Hooks of notifications:from-server drop a log message, rewrite another
// and refuse a progress notification, whose sender gets the refusal.
func TestServerNotifications(t *testing.T) {
	for _, tr := range sendingTransports {
		t.Run(tr.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
			refused := make(chan error, 1)
			err := errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (echoOut, error) {
					for _, msg := range []string{"secret: 42", "public", "last"} {
						if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
							return echoOut{}, err
						}
					}
					refused <- req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 1})
					return echoOut{Echo: "done"}, nil
				}),
				srv.Hook(flows.On(stages.BeforeExecute, func(c flows.ServerNotification) error {
					switch p := c.Params().(type) {
					case *mcp.LoggingMessageParams:
						switch {
						case strings.HasPrefix(fmt.Sprint(p.Data), "secret"):
							c.Drop()
						case p.Data == "public":
							cp := *p
							cp.Data = "public (seen by the hook)"
							c.SetParams(&cp)
						}
					case *mcp.ProgressNotificationParams:
						return errors.New("no progress")
					}
					return nil
				}).Named("filter")),
			)
			if err != nil {
				t.Fatal(err)
			}
			logs := make(chan string, 10)
			cs := tr.connect(t, srv, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					logs <- fmt.Sprint(req.Params.Data)
				},
			})
			if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "chatty", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("chatty: %v %+v", err, res)
			}
			// The client handles notifications in order: when "last"
			// arrives, the dropped one would have arrived before it.
			var got []string
			for len(got) == 0 || got[len(got)-1] != "last" {
				got = append(got, wait(t, logs, "the log messages"))
			}
			if !equal(got, []string{"public (seen by the hook)", "last"}) {
				t.Errorf("client got logs %q, want the rewritten one and the last, not the secret", got)
			}
			if err := wait(t, refused, "the progress sender's error"); err == nil || !strings.Contains(err.Error(), "no progress") {
				t.Errorf("NotifyProgress returned %v, want the hook's refusal", err)
			}
		})
	}
}
