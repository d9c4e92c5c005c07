package plugins_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

type forecastIn struct {
	City string `json:"city"`
}

type forecastOut struct {
	Forecast string `json:"forecast"`
}

// The first-party plugins take the named positions of package priority, so
// a tool call runs auth → ratelimit → cache lookup → execute → cache store
// → audit whatever order they were attached in: here the reverse.
func Example_pluginOrder() {
	trace := func(ev *flows.Event) {
		if ev.Flow != flows.ToolsCallTool || ev.Outcome != "ok" {
			return
		}
		switch {
		case ev.Step == "execute":
			fmt.Printf("%-16s execute\n", ev.Stage)
		case ev.Hook != "":
			// "server/plugin:auth/tools:call-tool/beforeValidation/scopes" → "auth scopes"
			parts := strings.Split(ev.Hook, "/")
			fmt.Printf("%-16s %s %s\n", ev.Stage, strings.TrimPrefix(parts[1], "plugin:"), parts[len(parts)-1])
		}
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "server", Version: "1"}, &framework.Options{Observer: trace})
	err := srv.Use(
		audit.New(audit.Config{Handler: slog.DiscardHandler, Flows: []flows.ID{flows.ToolsCallTool}}),
		cache.New(cache.Config{}),
		ratelimit.New(ratelimit.Config{PerSession: ratelimit.Limit{Rate: 10, Burst: 10}}),
		auth.New(auth.Config{Unauthenticated: auth.AllowAll}),
	)
	if err == nil {
		err = framework.AddToolFunc(srv, &mcp.Tool{Name: "forecast", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (forecastOut, error) {
				return forecastOut{Forecast: "sunny in " + in.City}, nil
			})
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		fmt.Println(err)
		return
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Lisbon"}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// beforeValidation audit start
	// beforeValidation auth scopes
	// beforeValidation ratelimit take
	// beforeExecute    cache lookup
	// beforeExecute    execute
	// afterExecute     cache store
	// afterExecute     audit answered
	// finally          audit event
}
