package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

func main() {
	upstream := flag.String("upstream", "", "the streamable HTTP URL of the MCP server to call (a demo against an in-process one when empty)")
	tool := flag.String("tool", "send_message", "with -upstream: the tool to call")
	args := flag.String("args", "{}", "with -upstream: the tool's arguments, a JSON object")
	flag.Parse()
	ctx := context.Background()
	if *upstream == "" {
		if err := runDemo(ctx, os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ch, err := newChain(ctx, logger, func(_ context.Context, _ string, d flows.Decision) {
		logger.Info("interceptor decided", "by", d.By, "what", d.What, "outcome", d.Outcome, "reason", d.Reason)
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ch.Close()
	cs, err := newClient(ch).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: *upstream}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: json.RawMessage(*args)})
	if err != nil {
		log.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
}

// newChain serves the client's interceptors in process (a hookflow server
// with package host's plugin, reached over in-memory transports) and
// returns the chain that runs them; every decision goes to decided.
func newChain(ctx context.Context, logger *slog.Logger, decided func(context.Context, string, flows.Decision)) (*intercept.Chain, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "client-interceptors"}, &framework.Options{Logger: logger})
	if err := srv.Use(host.New(host.Config{Interceptors: interceptors(), Logger: logger})); err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	return intercept.NewChain(ctx, intercept.Config{
		Servers: []intercept.Server{{Name: "local", Transport: host.InMemory(srv)}},
		// The client reads its own errors: nothing crosses a trust
		// boundary, so they name the interceptor and its findings.
		Explain:   true,
		Logger:    logger,
		Decisions: decided,
	})
}

// newClient returns a go-sdk client whose requests go through ch.
func newClient(ch *intercept.Chain) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "interceptclient", Version: "0.1.0"}, nil)
	c.AddSendingMiddleware(ch.SendingMiddleware())
	return c
}

// upstream is the demo's MCP server: it records the arguments of every
// call it receives.
type upstream struct {
	mu       sync.Mutex
	received []string
}

// take returns what the upstream received since the last take.
func (u *upstream) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	r := u.received
	u.received = nil
	return r
}

type message struct {
	To   string `json:"to"`
	Body string `json:"body"`
}

type repo struct {
	Repo string `json:"repo"`
}

// server returns the upstream's MCP server: send_message and
// delete_repo.
func (u *upstream) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	record := func(v any) {
		b, _ := json.Marshal(v)
		u.mu.Lock()
		defer u.mu.Unlock()
		u.received = append(u.received, string(b))
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "send_message", Description: "sends a message"},
		func(_ context.Context, _ *mcp.CallToolRequest, in message) (*mcp.CallToolResult, any, error) {
			record(in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent to " + in.To}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "delete_repo", Description: "deletes a repository"},
		func(_ context.Context, _ *mcp.CallToolRequest, in repo) (*mcp.CallToolResult, any, error) {
			record(in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + in.Repo}}}, nil, nil
		})
	return srv
}

// runDemo calls an in-process upstream through the chain, and prints
// what the upstream received, the result or the block, and the
// interceptors' decisions.
func runDemo(ctx context.Context, w io.Writer) error {
	var (
		mu        sync.Mutex
		decisions []flows.Decision
	)
	ch, err := newChain(ctx, slog.New(slog.DiscardHandler), func(_ context.Context, _ string, d flows.Decision) {
		mu.Lock()
		defer mu.Unlock()
		decisions = append(decisions, d)
	})
	if err != nil {
		return err
	}
	defer ch.Close()
	up := &upstream{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := up.server().Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := newClient(ch).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	calls := []struct {
		title, tool, args string
	}{
		{"a message holding a secret is redacted before it leaves", "send_message", `{"to":"ops","body":"deploy with sk_live_example123 now"}`},
		{"a forbidden tool is never called", "delete_repo", `{"repo":"hookflow"}`},
	}
	for _, c := range calls {
		fmt.Fprintf(w, "== %s: %s %s\n", c.title, c.tool, c.args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		var blocked *intercept.BlockedError
		switch {
		case errors.As(err, &blocked):
			fmt.Fprintf(w, "  blocked: %v\n", blocked)
		case err != nil:
			return err
		default:
			fmt.Fprintf(w, "  result: %s\n", res.Content[0].(*mcp.TextContent).Text)
		}
		received := up.take()
		if len(received) == 0 {
			received = []string{"nothing"}
		}
		for _, r := range received {
			fmt.Fprintf(w, "  upstream received: %s\n", r)
		}
		mu.Lock()
		for _, d := range decisions {
			fmt.Fprintf(w, "  decision: %s %s %s\n", d.By, d.What, d.Outcome)
		}
		decisions = nil
		mu.Unlock()
	}
	return nil
}
