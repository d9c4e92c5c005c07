package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Example calls get_weather twice through an in-memory client: the trace
// shows the embedded hook letting Paris through and blocking the Moon.
func Example() {
	ctx := context.Background()
	srv, err := newServer(os.Stdout)
	if err != nil {
		panic(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, city := range []string{"Paris", "Moon"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": city}})
		if err != nil {
			panic(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// session:initialize ok      (validate)
	// session:initialize ok      (execute)
	// tools:call-tool    ok      (validate)
	// tools:call-tool    ok      beforeExecute github.com/hookflow/hookflow/examples/weather.GetWeather/tools:call-tool/beforeExecute/RejectMoon
	// tools:call-tool    ok      (execute)
	// tools:call-tool    ok      (output)
	// isError=false {"celsius":18,"city":"Paris"}
	// tools:call-tool    ok      (validate)
	// tools:call-tool    abort   beforeExecute github.com/hookflow/hookflow/examples/weather.GetWeather/tools:call-tool/beforeExecute/RejectMoon
	// isError=true the moon has no weather: pick a city on Earth
}
