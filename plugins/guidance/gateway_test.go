package guidance_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
	"github.com/hookflow/hookflow/plugins/guidance"
)

// upstreamNotes serves, over streamable HTTP, a plain SDK server with the
// save_note tool ("fail" fails it), which reports its progress when the
// call asks for it.
func upstreamNotes(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "save_note"}, func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, noteOut, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "saving"}); err != nil {
				return nil, noteOut{}, err
			}
		}
		out, err := saveNote(ctx, req, in)
		return nil, out, err
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestMountedTool: a tool the gateway mounts from an upstream server gets
// its guidance as a local tool does: start and end guidance in its
// result, on success and on the upstream's isError alike, and progress
// guidance in the progress notifications the upstream sends.
func TestMountedTool(t *testing.T) {
	hooks := actionHooks()
	saving := inline("saving", guidance.TypeAction, guidance.Progress, guidance.Should, "Tell the user the note is being saved.")
	saving.On = guidance.Tool("save_note")
	hooks = append(hooks, saving)
	p := guidance.New(guidance.Config{Hooks: hooks, Storage: []string{"memory"}})
	gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{{Name: "notes", URL: upstreamNotes(t)}}})
	t.Cleanup(func() { _ = gw.Close() })
	srv := newServer(t, p, nil, func(s *framework.Server) error { return s.Use(gw) })

	memory := guidance.Env{Storage: []string{"memory"}}
	start := compose(memory, byTag(hooks, "save-start", "every-tool")...)
	end := compose(memory, byTag(hooks, "save-end", "save-summary", "storage-end")...)

	var mu sync.Mutex
	var progress []string
	arrived := make(chan struct{}, 1)
	cs, _ := connect(t, srv, client{progress: func(pn *mcp.ProgressNotificationParams) {
		mu.Lock()
		progress = append(progress, fmt.Sprint(pn.ProgressToken, ": ", pn.Message))
		mu.Unlock()
		select {
		case arrived <- struct{}{}:
		default:
		}
	}})

	res, got := call(t, cs, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "milk"}})
	if res.IsError || !slices.Equal(got, []string{`{"saved":"milk"}`, start, end}) {
		t.Errorf("mounted tool: result %v %q, want the upstream's output, start and end guidance", res.IsError, got)
	}
	res, got = call(t, cs, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "fail"}})
	if !res.IsError || !slices.Equal(got, []string{"disk full", start, end}) {
		t.Errorf("mounted tool failing upstream: result %v %q, want the upstream's error, start and end guidance", res.IsError, got)
	}

	params := &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "eggs"}}
	params.SetProgressToken("note")
	if res, got := call(t, cs, params); res.IsError {
		t.Fatalf("call with progress: %q", got)
	}
	select {
	case <-arrived:
	case <-time.After(30 * time.Second): // a bound on a hang, not a timing
		t.Fatal("the upstream's progress never reached the client")
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"note: saving\n\n" + compose(guidance.Env{}, saving)}; !slices.Equal(progress, want) {
		t.Errorf("progress %q, want %q", progress, want)
	}
}
