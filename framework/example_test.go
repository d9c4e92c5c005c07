package framework_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// ForecastIn is the input of the forecast tool.
type ForecastIn struct {
	City string `json:"city" jsonschema:"the city to forecast"`
}

// ForecastOut is its output.
type ForecastOut struct {
	City     string `json:"city"`
	Forecast string `json:"forecast"`
}

// Forecast is a tool type. hookgen would generate its registration from
// //mcp:tool and //hook: directives; here it is written by hand.
type Forecast struct{}

// Execute forecasts.
func (Forecast) Execute(ctx context.Context, req *mcp.CallToolRequest, in ForecastIn) (ForecastOut, error) {
	return ForecastOut{City: in.City, Forecast: "sunny"}, nil
}

// EarthOnly is an embedded hook: it sees the typed input and blocks the call
// with a reason the model reads.
func (Forecast) EarthOnly(c flows.ToolCall[ForecastIn, ForecastOut]) error {
	if strings.EqualFold(c.Input().City, "moon") {
		return errors.New("the moon has no weather: pick a city on Earth")
	}
	return nil
}

// connectExample connects an in-memory client to srv.
func connectExample(srv *framework.Server) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	return cs
}

// printResult prints a tool result as the model would read it.
func printResult(res *mcp.CallToolResult, err error) {
	switch {
	case err != nil:
		fmt.Println("protocol error:", err)
	case res.IsError:
		fmt.Println("isError:", res.Content[0].(*mcp.TextContent).Text)
	default:
		fmt.Println("result:", res.Content[0].(*mcp.TextContent).Text)
	}
}

// A tool with an embedded hook, called in-process.
func ExampleAddTool() {
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	err := framework.AddTool(srv, framework.Tool[Forecast, ForecastIn, ForecastOut]{
		Tool:    &mcp.Tool{Name: "forecast", Description: "Forecast the weather."},
		Execute: Forecast.Execute,
		Hooks: []framework.EntityHook[Forecast, flows.ToolCall[ForecastIn, ForecastOut]]{
			{Stage: stages.BeforeExecute, Name: "EarthOnly", Fn: Forecast.EarthOnly},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	cs := connectExample(srv)
	defer cs.Close()

	ctx := context.Background()
	for _, city := range []any{"Paris", "Moon", 42} {
		printResult(cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": city}}))
	}
	printResult(cs.CallTool(ctx, &mcp.CallToolParams{Name: "rain"}))
	// Output:
	// result: {"city":"Paris","forecast":"sunny"}
	// isError: the moon has no weather: pick a city on Earth
	// isError: validating "arguments": validating root: validating /properties/city: type: 42 has type "integer", want "string"
	// protocol error: calling "tools/call": unknown tool "rain"
}

// A plugin adds external hooks to every tool: here, an audit line per call
// that says how it ended and which hook decided.
func ExampleServer_Use() {
	audit := framework.NewPlugin("audit", func(p *framework.PluginContext) error {
		return p.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "log", Fn: func(c *flows.Context) error {
			switch {
			case c.Err() != nil:
				fmt.Printf("audit: %s failed (decided by %s): %s\n", c.Entity().Name, c.DecidedBy(), flows.Reason(c.Err()))
			default:
				fmt.Printf("audit: %s ok\n", c.Entity().Name)
			}
			return nil
		}})
	})
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	err := errors.Join(
		srv.Use(audit),
		framework.AddTool(srv, framework.Tool[Forecast, ForecastIn, ForecastOut]{
			Tool:    &mcp.Tool{Name: "forecast"},
			Execute: Forecast.Execute,
			Hooks: []framework.EntityHook[Forecast, flows.ToolCall[ForecastIn, ForecastOut]]{
				{Stage: stages.BeforeExecute, Name: "EarthOnly", Fn: Forecast.EarthOnly},
			},
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	cs := connectExample(srv)
	defer cs.Close()

	ctx := context.Background()
	for _, city := range []string{"Lisbon", "moon"} {
		printResult(cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": city}}))
	}
	// Output:
	// audit: forecast ok
	// result: {"city":"Lisbon","forecast":"sunny"}
	// audit: forecast failed (decided by github.com/hookflow/hookflow/framework_test.Forecast/tools:call-tool/beforeExecute/EarthOnly): the moon has no weather: pick a city on Earth
	// isError: the moon has no weather: pick a city on Earth
}

// hideAdmin is a plugin that hides the admin_ tools: it implements
// framework.Visibility.
type hideAdmin struct{}

func (hideAdmin) Name() string                          { return "hide-admin" }
func (hideAdmin) Attach(*framework.PluginContext) error { return nil }
func (hideAdmin) Visible(_ *flows.Request, e *flows.Entity) framework.Sight {
	if strings.HasPrefix(e.Name, "admin_") {
		return framework.Hidden
	}
	return framework.Shown
}

// A plugin that implements Visibility hides entities: they leave the lists
// and cannot be called. A session:initialize hook adds a capability.
func ExampleServer_Hook() {
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	execute := func(ctx context.Context, req *mcp.CallToolRequest, in ForecastIn) (ForecastOut, error) {
		return ForecastOut{City: in.City, Forecast: "sunny"}, nil
	}
	err := errors.Join(
		framework.AddToolFunc(srv, &mcp.Tool{Name: "forecast"}, execute),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "admin_reset"}, execute),
		srv.Use(hideAdmin{}),
		srv.Hook(flows.On(stages.AfterExecute, func(c flows.Initialize) error {
			c.AddExperimental("hooks", map[string]any{"events": []string{"tools/call"}})
			return nil
		}).Named("declare")),
	)
	if err != nil {
		log.Fatal(err)
	}
	cs := connectExample(srv)
	defer cs.Close()

	ctx := context.Background()
	caps := cs.InitializeResult().Capabilities
	fmt.Println("experimental.hooks:", caps.Experimental["hooks"], "logging kept:", caps.Logging != nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println("tool:", t.Name)
	}
	printResult(cs.CallTool(ctx, &mcp.CallToolParams{Name: "admin_reset", Arguments: map[string]any{"city": "x"}}))
	// Output:
	// experimental.hooks: map[events:[tools/call]] logging kept: true
	// tool: forecast
	// protocol error: calling "tools/call": unknown tool "admin_reset"
}
