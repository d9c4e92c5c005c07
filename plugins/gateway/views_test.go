package gateway_test

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// TestViewFollowsMainListChange: an upstream whose client sessions all go
// through the gateway's own upstream session (Shared) adds an entity of
// each kind at run time. The gateway's own session hears the change and
// mounts the entity; a client session, which sees what that session
// lists, must then see it listed and be able to use it, not be told it
// is unknown.
func TestViewFollowsMainListChange(t *testing.T) {
	for _, tc := range []struct {
		kind, adder, fresh string
		// mounted reports whether the server serves the fresh entity.
		mounted func(srv *framework.Server, name string) bool
		// listed lists the entities of the kind cs sees.
		listed func(t *testing.T, cs *mcp.ClientSession) []string
		// use uses the fresh entity and returns what it answered.
		use func(cs *mcp.ClientSession, name string) (string, error)
	}{
		{"tool", "add_tool", "fresh",
			func(srv *framework.Server, name string) bool { _, ok := srv.Tool(name); return ok },
			toolNames,
			func(cs *mcp.ClientSession, name string) (string, error) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
				if err != nil {
					return "", err
				}
				return text(res), nil
			}},
		{"prompt", "add_prompt", "fresh",
			(*framework.Server).HasPrompt,
			func(t *testing.T, cs *mcp.ClientSession) []string {
				var names []string
				for p, err := range cs.Prompts(context.Background(), nil) {
					if err != nil {
						t.Fatalf("listing prompts: %v", err)
					}
					names = append(names, p.Name)
				}
				return names
			},
			func(cs *mcp.ClientSession, name string) (string, error) {
				res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name})
				if err != nil {
					return "", err
				}
				return res.Messages[0].Content.(*mcp.TextContent).Text, nil
			}},
		{"resource", "add_resource", "test://fresh",
			(*framework.Server).HasResource,
			func(t *testing.T, cs *mcp.ClientSession) []string {
				var uris []string
				for r, err := range cs.Resources(context.Background(), nil) {
					if err != nil {
						t.Fatalf("listing resources: %v", err)
					}
					uris = append(uris, r.URI)
				}
				return uris
			},
			func(cs *mcp.ClientSession, uri string) (string, error) {
				res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					return "", err
				}
				return res.Contents[0].Text, nil
			}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			up := stdio("up")
			up.Shared = true
			srv, _ := serve(t, nil, up)
			cs := connect(t, srv, nil)
			call(t, cs, tc.adder, map[string]any{"text": tc.fresh})
			eventually(t, "the gateway to mount "+tc.fresh, func() bool { return tc.mounted(srv, tc.fresh) })
			if got, err := tc.use(cs, tc.fresh); err != nil || got != "added" {
				t.Errorf("using %s: %q, %v; want the upstream's answer", tc.fresh, got, err)
			}
			if names := tc.listed(t, cs); !slices.Contains(names, tc.fresh) {
				t.Errorf("the client lists %v, want %s in it", names, tc.fresh)
			}
		})
	}
}
