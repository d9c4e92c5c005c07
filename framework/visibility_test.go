package framework_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// hider hides the entities whose names start with prefix, and counts the
// entities it was asked about.
type hider struct {
	name   string
	prefix string
	sight  framework.Sight // of the entities it hides
	seen   atomic.Pointer[[]string]
}

func (h *hider) Name() string                          { return h.name }
func (h *hider) Attach(*framework.PluginContext) error { return nil }
func (h *hider) Visible(_ *flows.Request, e *flows.Entity) framework.Sight {
	for {
		old := h.seen.Load()
		var next []string
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, e.Name)
		if h.seen.CompareAndSwap(old, &next) {
			break
		}
	}
	if strings.HasPrefix(e.Name, h.prefix) {
		return h.sight
	}
	return framework.Shown
}

func (h *hider) askedAbout() []string {
	if p := h.seen.Load(); p != nil {
		return *p
	}
	return nil
}

type none struct{}

func addTool(t *testing.T, r framework.Registrar, name string) {
	t.Helper()
	if err := framework.AddToolFunc(r, &mcp.Tool{Name: name, Description: name}, func(context.Context, *mcp.CallToolRequest, none) (none, error) {
		return none{}, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// An app's Visibility plugin decides for that app's entities only: it is
// never asked about another app's, and cannot hide them.
func TestAppVisibilityCoversOnlyItsApp(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "vis", Version: "0"}, nil)
	a, err := srv.App("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := srv.App("b")
	if err != nil {
		t.Fatal(err)
	}
	addTool(t, a, "a_tool")
	addTool(t, a, "secret_a")
	addTool(t, b, "secret_b")
	hideA := &hider{name: "hide", prefix: "secret", sight: framework.Hidden}
	if err := a.Use(hideA); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(tools.Tools, func(t *mcp.Tool) string { return t.Name }); !equal(got, []string{"a_tool", "secret_b"}) {
		t.Errorf("tools = %v, want app a's secret hidden and app b's kept", got)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "secret_b"}); err != nil {
		t.Errorf("secret_b, app b's: %v", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "secret_a"})
	wantProtocolError(t, err, -32602, `unknown tool "secret_a"`)
	for _, n := range hideA.askedAbout() {
		if n == "secret_b" {
			t.Errorf("app a's plugin was asked about app b's tool")
		}
	}
}

// Lists are filtered before they are paginated: every page is full but
// the last, no page is empty with a next cursor, and no cursor carries a
// hidden name.
func TestVisibilityBeforePagination(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "pages", Version: "0"}, &framework.Options{PageSize: 2})
	for i := range 9 {
		prefix := "t"
		if i%3 != 2 {
			prefix = "hidden"
		}
		addTool(t, srv, fmt.Sprintf("%s%d", prefix, i))
	}
	if err := srv.Use(&hider{name: "hide", prefix: "hidden", sight: framework.Unlisted}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)

	var pages [][]string
	cursor := ""
	for range 10 {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, names(res.Tools, func(t *mcp.Tool) string { return t.Name }))
		if res.NextCursor != "" {
			raw, _ := base64.RawURLEncoding.DecodeString(res.NextCursor)
			if strings.Contains(string(raw), "hidden") || strings.Contains(res.NextCursor, "hidden") {
				t.Errorf("cursor %q carries a hidden name", res.NextCursor)
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if got := fmt.Sprint(pages); got != "[[t2 t5] [t8]]" {
		t.Errorf("pages = %s, want [[t2 t5] [t8]]", got)
	}
	_, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "!!not a cursor"})
	wantProtocolError(t, err, -32602, "invalid cursor")
}

// Without any Visibility plugin, lists stay public and whole pages are
// still served by hookflow's own pagination.
func TestListsWithoutVisibility(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "pages", Version: "0"}, &framework.Options{PageSize: 2})
	for i := range 3 {
		addTool(t, srv, fmt.Sprintf("t%d", i))
	}
	cs := inMemory("")(t, srv, nil)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.NextCursor == "" || res.CacheScope == "private" {
		t.Fatalf("first page: %d tools, cursor %q, cacheScope %q", len(res.Tools), res.NextCursor, res.CacheScope)
	}
	res, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: res.NextCursor})
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "t2" || res.NextCursor != "" {
		t.Fatalf("second page: %+v, %v", res, err)
	}
}

// Unlisted entities leave lists but their calls run, so that a hook can
// refuse them with a reason; hidden ones are unknown; the strictest plugin
// wins.
func TestSights(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "sights", Version: "0"}, nil)
	addTool(t, srv, "open")
	addTool(t, srv, "quiet_one")
	addTool(t, srv, "quiet_secret")
	if err := srv.Use(&hider{name: "unlist", prefix: "quiet", sight: framework.Unlisted},
		&hider{name: "hide", prefix: "quiet_secret", sight: framework.Hidden}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(tools.Tools, func(t *mcp.Tool) string { return t.Name }); !equal(got, []string{"open"}) {
		t.Errorf("tools = %v, want [open]", got)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "quiet_one"}); err != nil {
		t.Errorf("an unlisted tool's call: %v, want it to run", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "quiet_secret"})
	wantProtocolError(t, err, -32602, `unknown tool "quiet_secret"`)
}

// oldHider has a Visible method of the wrong shape.
type oldHider struct{}

func (oldHider) Name() string                          { return "old" }
func (oldHider) Attach(*framework.PluginContext) error { return nil }
func (oldHider) Visible(*flows.Request, *flows.Entity) bool {
	return false
}

// A plugin whose Visible method is not Visibility's is refused: it would
// look like it hides entities and hide none.
func TestVisibleOfTheWrongShape(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "x", Version: "0"}, nil)
	err := srv.Use(oldHider{})
	if err == nil || !strings.Contains(err.Error(), `plugin "old": its method Visible`) || !strings.Contains(err.Error(), "would hide nothing") {
		t.Fatalf("Use = %v", err)
	}
}

// The SDK options' page size still sizes pages when Options.PageSize is 0.
func TestSDKPageSize(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "pages", Version: "0"}, &framework.Options{SDK: &mcp.ServerOptions{PageSize: 1}})
	addTool(t, srv, "a")
	addTool(t, srv, "b")
	cs := inMemory("")(t, srv, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 || res.NextCursor == "" {
		t.Fatalf("first page: %+v, %v; want one tool and a cursor", res, err)
	}
}
