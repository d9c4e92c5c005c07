package framework_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/stages"
)

// rpcReply is a JSON-RPC response as read off the wire.
type rpcReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// inSession is the options of a request in session (none when session
// is empty), with protocol 2025-11-25.
func inSession(session string) *plugintest.HTTPOptions {
	if session == "" {
		return nil
	}
	return &plugintest.HTTPOptions{Session: session, ProtocolVersion: "2025-11-25"}
}

// TestHTTPJSONRPCErrors checks that requests refused at the JSON-RPC level
// get a JSON-RPC error body with the right code, on both HTTP modes.
func TestHTTPJSONRPCErrors(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		stateful bool // only on a stateful server
		code     int64
		id       string
	}{
		{"no session", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true, -32600, "7"},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"nope/nope"}`, false, -32601, "8"},
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/list"`, false, -32700, ""},
		{"not a message", `{"jsonrpc":"2.0","id":1,"method":3}`, false, -32600, ""},
		{"empty batch", `[]`, false, -32600, ""},
		{"missing id", `{"jsonrpc":"2.0","method":"tools/list"}`, false, -32600, ""},
		{"duplicate ids", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, false, -32600, ""},
	}
	for _, mode := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"stateful", nil}, {"stateless", &mcp.StreamableHTTPOptions{Stateless: true}},
	} {
		srv := framework.NewServer(&mcp.Implementation{Name: "http", Version: "1"}, nil)
		addEntities(t, srv)
		h, err := srv.HTTPHandler(mode.opts)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		for _, tt := range tests {
			if tt.stateful && mode.opts != nil {
				continue
			}
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				answer := plugintest.Post(t, ts.URL, tt.body, &plugintest.HTTPOptions{ProtocolVersion: "2025-03-26"})
				status, ct, body := answer.Status, answer.Header.Get("Content-Type"), answer.Body
				if status != http.StatusBadRequest || ct != "application/json" {
					t.Fatalf("got %d %q %s, want 400 application/json", status, ct, body)
				}
				var r rpcReply
				if err := json.Unmarshal(body, &r); err != nil || r.Error == nil {
					t.Fatalf("body %s is not a JSON-RPC error (%v)", body, err)
				}
				if r.Error.Code != tt.code || string(r.ID) != tt.id {
					t.Errorf("got code %d id %s (%q), want code %d id %q", r.Error.Code, r.ID, r.Error.Message, tt.code, tt.id)
				}
			})
		}
	}
}

// TestHTTPTransportRefusalsUnchanged checks that the JSON-RPC answers do
// not pre-empt the SDK's transport checks: a foreign Host is refused with
// 403 and a wrong Content-Type with 415 whatever the body, and an unknown
// session with 404.
func TestHTTPTransportRefusalsUnchanged(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "http", Version: "1"}, nil)
	addEntities(t, srv)
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	tests := []struct {
		name string
		body string
		edit func(*http.Request)
		want int
	}{
		{"foreign host", `{"jsonrpc":`, func(r *http.Request) { r.Host = "evil.example.com" }, http.StatusForbidden},
		{"foreign host no session", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(r *http.Request) { r.Host = "evil.example.com" }, http.StatusForbidden},
		{"content type", `{"jsonrpc":`, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, http.StatusUnsupportedMediaType},
		{"unknown session", `{"jsonrpc":`, func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "nope") }, http.StatusNotFound},
	}
	for _, tt := range tests {
		answer := plugintest.Post(t, ts.URL, tt.body, &plugintest.HTTPOptions{Edit: tt.edit})
		if status, body := answer.Status, answer.Body; status != tt.want {
			t.Errorf("%s: got %d %s, want %d", tt.name, status, body, tt.want)
		}
	}
}

// TestHTTPBatchDuplicateIDRunsNothing checks that a batch (protocol
// 2025-03-26) with two calls of one ID is refused whole, no call of it run,
// while a batch with distinct IDs is answered call by call.
func TestHTTPBatchDuplicateIDRunsNothing(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "batch", Version: "1"}, nil)
	addEntities(t, srv)
	var runs atomic.Int32
	if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "count", Fn: func(*flows.Context) error {
		runs.Add(1)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	call := func(id int, text string) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`
	}

	answer := plugintest.Post(t, ts.URL, "["+call(1, "a")+","+call(1, "b")+"]", &plugintest.HTTPOptions{ProtocolVersion: "2025-03-26"})
	status, body := answer.Status, answer.Body
	var r rpcReply
	if err := json.Unmarshal(body, &r); status != http.StatusBadRequest || err != nil || r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("duplicate ids: got %d %s, want 400 with a -32600 error", status, body)
	}
	if n := runs.Load(); n != 0 {
		t.Errorf("%d calls of the refused batch ran, want 0", n)
	}

	answer = plugintest.Post(t, ts.URL, "["+call(1, "a")+","+call(2, "b")+"]", &plugintest.HTTPOptions{ProtocolVersion: "2025-03-26"})
	status, body = answer.Status, answer.Body
	var rs []rpcReply
	if err := json.Unmarshal(body, &rs); status != http.StatusOK || err != nil || len(rs) != 2 {
		t.Fatalf("distinct ids: got %d %s, want 200 with two responses", status, body)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("%d calls ran, want 2", n)
	}
}

// TestStdioBatchDuplicateID pins the SDK's behaviour over a stream
// transport: a batch with two requests of one ID is a read error that ends
// the session, with no answer to either request.
func TestStdioBatchDuplicateID(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "stdio", Version: "1"}, nil)
	addEntities(t, srv)
	clientRead, serverWrite := io.Pipe()
	serverRead, clientWrite := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: serverRead, Writer: serverWrite})
	}()
	answers := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(clientRead)
		answers <- b
	}()
	if _, err := io.WriteString(clientWrite, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`+"\n"); err != nil {
		t.Fatal(err)
	}
	err := wait(t, done, "Run to end on a duplicate id")
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("Run = %v, want a duplicate-ID error", err)
	}
	_ = serverWrite.Close()
	if b := wait(t, answers, "the server's output"); len(b) != 0 {
		t.Errorf("server answered %s, want nothing", b)
	}
	_ = clientWrite.Close()
}

// TestHTTPIdleSessionFreed checks that HTTPHandler(nil) closes a stateful
// session left idle for DefaultSessionTimeout: its ID is then unknown (404),
// and its goroutines are gone (synctest fails if any is left).
func TestHTTPIdleSessionFreed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
		addEntities(t, srv)
		h, err := srv.HTTPHandler(nil)
		if err != nil {
			t.Fatal(err)
		}
		serve := func(body, session string) *httptest.ResponseRecorder {
			return plugintest.Record(h, body, inSession(session))
		}
		rec := serve(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "")
		id := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
		}
		serve(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id)
		ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`

		time.Sleep(framework.DefaultSessionTimeout - time.Minute)
		if rec := serve(ping, id); rec.Code != http.StatusOK {
			t.Fatalf("ping before the timeout: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(framework.DefaultSessionTimeout + time.Minute)
		synctest.Wait()
		if rec := serve(ping, id); rec.Code != http.StatusNotFound {
			t.Errorf("ping after the session idled out: %d %s, want 404", rec.Code, rec.Body)
		}
	})
}

// TestStatelessPlainCallsAnswerJSON checks how a stateless handler answers
// a tools/call: with one JSON body when the call's answer is its only
// message, with an SSE stream carrying the notifications when it has a
// progress token; every other request as the SDK does. The transport
// decides on the answer's first message, not on the body's words:
// arguments that name a progress token change nothing.
func TestStatelessPlainCallsAnswerJSON(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	type out struct {
		Msg string `json:"msg"`
	}
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, in in) (out, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "half"}); err != nil {
				return out{}, err
			}
		}
		return out{Msg: "hello " + in.Name}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, opts, body, contentType string
		contains                      []string
	}{
		{"plain call", "stateless", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"a"}}}`,
			"application/json", []string{`"hello a"`}},
		{"call with a progress token", "stateless", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"greet","arguments":{"name":"b"}}}`,
			"text/event-stream", []string{`notifications/progress`, `"half"`, `"hello b"`}},
		{"another method", "stateless", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
			"text/event-stream", []string{`"greet"`}},
		{"arguments that name a progress token", "stateless", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"greet","arguments":{"name":"progressToken"}}}`,
			"application/json", []string{`"hello progressToken"`}},
		{"JSONResponse set", "stateless-json", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"greet","arguments":{"name":"c"}}}`,
			"application/json", []string{`"hello c"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &mcp.StreamableHTTPOptions{Stateless: true}
			if tc.opts == "stateless-json" {
				opts.JSONResponse = true // every answer a JSON body, as asked
			}
			h, err := srv.HTTPHandler(opts)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			answer := plugintest.Post(t, ts.URL, tc.body, &plugintest.HTTPOptions{ProtocolVersion: "2025-11-25"})
			status, ct, body := answer.Status, answer.Header.Get("Content-Type"), answer.Body
			if status != http.StatusOK || !strings.HasPrefix(ct, tc.contentType) {
				t.Fatalf("status %d, Content-Type %q, want 200 and %s; body %s", status, ct, tc.contentType, body)
			}
			for _, want := range tc.contains {
				if !strings.Contains(string(body), want) {
					t.Errorf("the answer lacks %s: %s", want, body)
				}
			}
		})
	}
}
