package auth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// blockCall is a 2026-07-28 tools/call of the tool "block": the request
// carries its protocol version, client info and capabilities itself.
const blockCall = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block","arguments":{},"_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestCancelOnDisconnect sends a 2026-07-28 call of a tool that waits on
// its context, then goes away (the HTTP request's context is cancelled).
// Behind the plugin's Handler it must end as it does with the framework's
// own handler for the same options: with options that propagate
// cancellation the tool's context is cancelled; with nil options both get
// framework.Server.HTTPHandler's defaults, whatever they are (with the
// SDK this module uses, a stateful handler that refuses 2026-07-28
// requests, so no call of that protocol outlives its client there).
func TestCancelOnDisconnect(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
		// want is the outcome behind the plugin, when the case requires
		// one; "" requires only the framework's outcome.
		want string
	}{
		{name: "stateless, propagating", opts: &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}, want: "cancelled: context canceled"},
		{name: "nil options"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := disconnect(t, tc.opts, false)
			behind := disconnect(t, tc.opts, true)
			t.Logf("behind auth: %s", behind)
			if behind != plain {
				t.Errorf("behind auth: %s; without it: %s; want the same", behind, plain)
			}
			if tc.want != "" && behind != tc.want {
				t.Errorf("behind auth: %s; want %s", behind, tc.want)
			}
		})
	}
}

// disconnect serves a server with the block tool, through the plugin's
// Handler(opts) or, without withAuth, the framework's HTTPHandler(opts),
// sends blockCall and abandons it once the tool runs. It returns
// "cancelled: <the tool's ctx.Err()>" when the tool ran, or
// "refused: <status> <JSON-RPC code>" when the call was answered without
// running it.
func disconnect(t *testing.T, opts *mcp.StreamableHTTPOptions, withAuth bool) string {
	t.Helper()
	srv, p := newServer(t, baseConfig(), nil)
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (out, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return out{}, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	var (
		h   http.Handler
		err error
	)
	if withAuth {
		h, err = p.Handler(srv, opts)
	} else {
		h, err = srv.HTTPHandler(opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(blockCall))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "block")
	req.Header.Set("Authorization", "Bearer "+tokNotes)
	type answer struct {
		status int
		body   []byte
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{status: resp.StatusCode, body: b, err: err}
	}()
	// A guard against a hang, not a timing assertion.
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	select {
	case <-started:
		cancel() // the client goes away
		select {
		case err := <-ended:
			return "cancelled: " + fmt.Sprint(err)
		case <-guard.C:
			t.Fatal("the tool's context was not cancelled after its client went away")
		}
	case a := <-answered:
		if a.err != nil {
			t.Fatalf("the call failed before the tool ran: %v", a.err)
		}
		var msg struct {
			Error struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(a.body, &msg); err != nil {
			t.Fatalf("answer %d %q: not a JSON-RPC message: %v", a.status, a.body, err)
		}
		return fmt.Sprintf("refused: %d %d", a.status, msg.Error.Code)
	case <-guard.C:
		t.Fatal("the tool did not start and the call was not answered")
	}
	return ""
}
