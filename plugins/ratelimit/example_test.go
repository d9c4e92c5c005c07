package ratelimit_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

type searchIn struct {
	Query string `json:"query"`
}

type searchOut struct {
	Hits int `json:"hits"`
}

// Each session may call tools twice, then once a minute; the "search" tool
// takes at most 100 calls a minute from everyone together.
func ExampleNew() {
	srv := framework.NewServer(&mcp.Implementation{Name: "search", Version: "1.0.0"}, nil)
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "search", Description: "Searches."},
		func(context.Context, *mcp.CallToolRequest, searchIn) (searchOut, error) {
			return searchOut{Hits: 3}, nil
		})
	_ = srv.Use(ratelimit.New(ratelimit.Config{
		PerSession: ratelimit.Limit{Rate: 1.0 / 60, Burst: 2},
		PerTool:    ratelimit.Per(100, time.Minute),
	}))

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for range 3 {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "go"}})
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// false {"hits":3}
	// false {"hits":3}
	// true rate limit: too many calls in this session; retry after 1m0s
}

// Several server instances share budgets through Redis. The client fails
// fast; when Redis is unreachable anyway, calls are refused (flows.FailClosed)
// after at most Timeout.
func ExampleNewRedis() {
	client := redis.NewClient(ratelimit.RedisClientOptions("127.0.0.1:6379", 200*time.Millisecond))
	defer client.Close()

	srv := framework.NewServer(&mcp.Implementation{Name: "search", Version: "1.0.0"}, nil)
	_ = srv.Use(ratelimit.New(ratelimit.Config{
		PerPrincipal:   ratelimit.Per(600, time.Hour),
		Backend:        ratelimit.NewRedis(client, &ratelimit.RedisOptions{Prefix: "search:rl:"}),
		OnBackendError: flows.FailClosed,
		Timeout:        300 * time.Millisecond,
	}))
	// … add tools, then serve srv over HTTP behind the auth plugin, which
	// supplies the principal (the token's user ID).
}
