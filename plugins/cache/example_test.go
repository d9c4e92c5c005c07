package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/cache"
)

type forecastIn struct {
	City string `json:"city"`
}

type forecast struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

// A read-only tool is executed once; the second identical call is answered
// from the cache.
func Example() {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	executed := 0
	_ = framework.AddToolFunc(srv, &mcp.Tool{Name: "forecast", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in forecastIn) (forecast, error) {
			executed++
			return forecast{City: in.City, TempC: 21}, nil
		})
	c := cache.New(cache.Config{TTL: 5 * time.Minute, MaxEntries: 500})
	if err := srv.Use(c); err != nil {
		panic(err)
	}

	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: forecastIn{City: "Paris"}})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	fmt.Printf("executed %d time(s); %+v\n", executed, c.Stats())
	// Output:
	// {"city":"Paris","tempC":21}
	// {"city":"Paris","tempC":21}
	// executed 1 time(s); {Hits:1 Misses:1 Stores:1 Errors:0}
}
