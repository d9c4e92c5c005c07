package sessiongate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

// TestMountedToolGated: a tool the gateway mounts from an upstream server
// is gated by name like a local one: refused with the directive before
// the session is initialized, forwarded upstream after.
func TestMountedToolGated(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "1"}, nil)
	calls := 0
	up.AddTool(&mcp.Tool{Name: "search", Description: "searches", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls++ // one call at a time: no race
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found upstream"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(hs.Close)

	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "search", URL: hs.URL}}})
	t.Cleanup(func() { _ = gw.Close() })
	srv := framework.NewServer(&mcp.Implementation{Name: "gated", Version: "1"}, nil)
	err := framework.AddToolFunc(srv, &mcp.Tool{Name: "session_init"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "session_init ok"}}}, nil
	})
	if err == nil {
		err = srv.Use(gw, sessiongate.New(sessiongate.Config{Requires: []string{"search"}}))
	}
	if err == nil {
		err = srv.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	for i, s := range []struct {
		tool    string
		isError bool
		texts   []string
	}{
		{tool: "search", isError: true, texts: []string{blockedInit("search")}},
		{tool: "session_init", texts: []string{"session_init ok", "The session is ready: you may now use the other tools."}},
		{tool: "search", texts: []string{"found upstream"}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: s.tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.tool, err)
		}
		var texts []string
		for _, c := range res.Content {
			texts = append(texts, c.(*mcp.TextContent).Text)
		}
		if res.IsError != s.isError || !slices.Equal(texts, s.texts) {
			t.Errorf("step %d (%s): isError=%v %q, want isError=%v %q", i, s.tool, res.IsError, texts, s.isError, s.texts)
		}
	}
	if calls != 1 {
		t.Errorf("the upstream served %d calls, want 1: the refused call must not reach it", calls)
	}
}
