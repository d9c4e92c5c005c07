package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/ratelimit"
	"github.com/hookflow/hookflow/stages"
)

// The trivial tool every peer serves: greet {name, n} → {msg: "hello " + name}.
type greetIn struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

type greetOut struct {
	Msg string `json:"msg"`
}

func greet(in greetIn) greetOut { return greetOut{Msg: "hello " + in.Name} }

// token is the bearer token the load generator sends to every peer; the
// hookflow-plugins peer checks it.
const token = "bench-token-0123456789abcdef"

// peers are the servers compared by default, in the order reported.
var peers = []string{"sdk", "sdk-mw10", "hookflow-0", "hookflow-10", "hookflow-plugins", "mcpgo-10", "mcpgo-10-noschema"}

// jsonPeers answer every POST with one JSON body instead of an SSE stream
// (the SDK's StreamableHTTPOptions.JSONResponse): an experiment, compared
// with -peers. Notifications a call sends then go to the session's GET
// stream, or nowhere on a stateless server.
var jsonPeers = []string{"sdk-json", "hookflow-10-json"}

// handler returns the streamable HTTP handler of peer.
func handler(peer string, stateless bool) (http.Handler, error) {
	jsonResponse := strings.HasSuffix(peer, "-json")
	peer = strings.TrimSuffix(peer, "-json")
	switch peer {
	case "sdk", "sdk-mw10":
		srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "greets"}, func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
			return nil, greet(in), nil
		})
		if peer == "sdk-mw10" {
			for range 10 {
				srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
						return next(ctx, method, req)
					}
				})
			}
		}
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: jsonResponse, SessionTimeout: time.Hour}), nil
	case "hookflow-0", "hookflow-10", "hookflow-plugins":
		srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "greet", Description: "greets", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (greetOut, error) { return greet(in), nil }); err != nil {
			return nil, err
		}
		opts := &mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: jsonResponse, SessionTimeout: time.Hour}
		switch peer {
		case "hookflow-10":
			spread := []stages.Stage{stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute, stages.AfterExecute, stages.Finally}
			for i := range 10 {
				if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: spread[i%len(spread)], Name: "h" + strconv.Itoa(i),
					Fn: func(*flows.Context) error { return nil }}); err != nil {
					return nil, err
				}
			}
		case "hookflow-plugins":
			a := auth.New(auth.Config{Verifier: verify, Scopes: []string{"mcp"}, ScopeChallenge: true,
				Logger: slog.New(slog.DiscardHandler), ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource"})
			// Calls have different arguments: the cache misses and stores.
			plugins := []framework.Plugin{a,
				ratelimit.New(ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}}),
				cache.New(cache.Config{TTL: time.Minute}),
				audit.New(audit.Config{Handler: slog.NewJSONHandler(io.Discard, nil)}),
			}
			if err := srv.Use(plugins...); err != nil {
				return nil, err
			}
			return a.Handler(srv, opts)
		}
		return srv.HTTPHandler(opts)
	case "mcpgo-10", "mcpgo-10-noschema":
		hooks := &mcpgoserver.Hooks{}
		for range 3 {
			hooks.AddBeforeAny(func(context.Context, any, mcpgo.MCPMethod, any) {})
			hooks.AddOnSuccess(func(context.Context, any, mcpgo.MCPMethod, any, any) {})
		}
		for range 2 {
			hooks.AddBeforeCallTool(func(context.Context, any, *mcpgo.CallToolRequest) {})
			hooks.AddAfterCallTool(func(context.Context, any, *mcpgo.CallToolRequest, any) {})
		}
		opts := []mcpgoserver.ServerOption{mcpgoserver.WithToolCapabilities(false), mcpgoserver.WithHooks(hooks)}
		if peer == "mcpgo-10" {
			// hookflow validates a call's input and output against the
			// tool's schemas; mcpgo-10-noschema does not.
			opts = append(opts, mcpgoserver.WithInputSchemaValidation(), mcpgoserver.WithOutputSchemaValidation())
		}
		srv := mcpgoserver.NewMCPServer("bench", "1", opts...)
		srv.AddTool(mcpgo.NewTool("greet", mcpgo.WithDescription("greets"), mcpgo.WithInputSchema[greetIn](), mcpgo.WithOutputSchema[greetOut]()),
			mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in greetIn) (greetOut, error) { return greet(in), nil }))
		return mcpgoserver.NewStreamableHTTPServer(srv, mcpgoserver.WithStateful(!stateless), mcpgoserver.WithStateLess(stateless), mcpgoserver.WithSessionIdleTTL(time.Hour)), nil
	}
	return nil, fmt.Errorf("unknown peer %q (one of %v)", peer, peers)
}

func verify(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	if tok != token {
		return nil, sdkauth.ErrInvalidToken
	}
	return &sdkauth.TokenInfo{UserID: "bench", Scopes: []string{"mcp"}, Expiration: time.Now().Add(time.Hour)}, nil
}
