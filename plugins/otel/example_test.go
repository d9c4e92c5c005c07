package otel_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/stages"
)

// A server with the plugin: one tool call becomes a server span with a
// child span per hook and step. The spans go to an in-memory exporter here;
// package otelsetup builds providers that print them or send them over
// OTLP.
func Example() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	err := errors.Join(
		srv.Use(otel.New(otel.Config{TracerProvider: tp, Flows: []flows.ID{flows.ToolsCallTool}})),
		srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "check", Fn: func(*flows.Context) error { return nil }}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "forecast", Description: "Forecasts."}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
			return "sunny", nil
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast"}); err != nil {
		log.Fatal(err)
	}

	got := spans.GetSpans()
	slices.SortStableFunc(got, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	for _, sp := range got {
		indent := "  "
		if !sp.Parent.IsValid() {
			indent = ""
		}
		var outcome string
		for _, a := range sp.Attributes {
			if a.Key == "hookflow.outcome" {
				outcome = a.Value.AsString()
			}
		}
		fmt.Printf("%s%s %s [%s]\n", indent, strings.ToLower(sp.SpanKind.String()), sp.Name, outcome)
	}
	// Output:
	// server tools/call forecast [ok]
	//   internal validate [ok]
	//   internal beforeExecute weather/tools:call-tool/beforeExecute/check [ok]
	//   internal execute [ok]
	//   internal output [ok]
}
