package framework_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/stages"
)

type benchIn struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

type benchOut struct {
	Msg string `json:"msg"`
}

func benchGreet(in benchIn) benchOut { return benchOut{Msg: "hello " + in.Name} }

var benchTool = mcp.Tool{Name: "greet", Description: "greets"}

// benchConnect connects a default client (the same protocol for every
// variant: 2026-07-28 in memory) to a server connected with connect.
func benchConnect(b *testing.B, connect func(context.Context, mcp.Transport) error) *mcp.ClientSession {
	b.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if err := connect(context.Background(), st); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// benchHookflow returns a client of a hookflow server with the greet tool
// and n trivial tools:call-tool hooks spread over the stages a successful
// call runs (onError does not run).
func benchHookflow(b *testing.B, n int, plugins ...framework.Plugin) *mcp.ClientSession {
	srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	if err := srv.Use(plugins...); err != nil {
		b.Fatal(err)
	}
	tool := benchTool
	if err := framework.AddToolFunc(srv, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (benchOut, error) {
		return benchGreet(in), nil
	}); err != nil {
		b.Fatal(err)
	}
	spread := []stages.Stage{stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute, stages.AfterExecute, stages.Finally}
	var sink int
	for i := range n {
		if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: spread[i%len(spread)], Name: "h" + strconv.Itoa(i), Fn: func(c *flows.Context) error {
			sink++ // one call at a time: no race
			return nil
		}}); err != nil {
			b.Fatal(err)
		}
	}
	return benchConnect(b, func(ctx context.Context, t mcp.Transport) error {
		_, err := srv.Connect(ctx, t, nil)
		return err
	})
}

// benchSDK returns a client of a plain SDK server with the same tool
// registered through the SDK's typed mcp.AddTool.
func benchSDK(b *testing.B) *mcp.ClientSession {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	tool := benchTool
	mcp.AddTool(srv, &tool, func(ctx context.Context, req *mcp.CallToolRequest, in benchIn) (*mcp.CallToolResult, benchOut, error) {
		return nil, benchGreet(in), nil
	})
	return benchConnect(b, func(ctx context.Context, t mcp.Transport) error {
		_, err := srv.Connect(ctx, t, nil)
		return err
	})
}

// BenchmarkCallTool measures one tools/call round trip over in-memory
// transports, client encoding and decoding included: the same tool on the
// plain SDK, and on hookflow with 0 and 10 hooks and with the auth plugin.
func BenchmarkCallTool(b *testing.B) {
	variants := []struct {
		name  string
		setup func(*testing.B) *mcp.ClientSession
	}{
		{"sdk-direct", benchSDK},
		{"hookflow/hooks=0", func(b *testing.B) *mcp.ClientSession { return benchHookflow(b, 0) }},
		{"hookflow/hooks=10", func(b *testing.B) *mcp.ClientSession { return benchHookflow(b, 10) }},
		// The auth plugin: a call hook, and tools/list filtering (the
		// Visibility capability), which a call consults without a list run.
		{"hookflow/auth", func(b *testing.B) *mcp.ClientSession {
			return benchHookflow(b, 0, auth.New(auth.Config{Unauthenticated: auth.AllowAll}))
		}},
		// The otel plugin with the SDK: a span per run and per hook and
		// step (batched to an exporter that discards them), and metrics
		// aggregated in memory.
		{"hookflow/hooks=10+otel", func(b *testing.B) *mcp.ClientSession {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
			return benchHookflow(b, 10, otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp}))
		}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			cs := v.setup(b)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "bench", "n": 1}}
			// Check the answer once, outside the measurement.
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError || text(res) != `{"msg":"hello bench"}` {
				b.Fatalf("res=%s err=%v", text(res), err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
