package framework_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
)

// serveTransport serves a server with the echo tool (and a flood tool that
// sends progress until its client stops reading) with opts.
func serveTransport(t *testing.T, opts *mcp.StreamableHTTPOptions) (*httptest.Server, http.Handler) {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "tr", Version: "1"}, nil)
	addEntities(t, srv)
	type floodIn struct {
		Count int `json:"count"`
	}
	big := strings.Repeat("x", 64<<10)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, in floodIn) (echoOut, error) {
		tok := req.Params.GetProgressToken()
		for i := range in.Count {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Message: big}); err != nil || ctx.Err() != nil {
				break
			}
		}
		return echoOut{Echo: "flooded"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, h
}

// rpcPost sends body with the session and version headers (when not
// empty) and returns the status and the JSON-RPC messages of the answer,
// whether a JSON body or an SSE stream.
func rpcPost(t *testing.T, url, session, version, body string, edit func(*http.Request)) (int, http.Header, []rpcReply) {
	t.Helper()
	status, header, _, msgs := rpcDo(t, http.MethodPost, url, session, version, body, edit)
	return status, header, msgs
}

func rpcDo(t *testing.T, method, url, session, version, body string, edit func(*http.Request)) (int, http.Header, string, []rpcReply) {
	t.Helper()
	answer := plugintest.Post(t, url, body, &plugintest.HTTPOptions{ProtocolVersion: version, Session: session,
		Edit: func(req *http.Request) {
			req.Method = method
			if edit != nil {
				edit(req)
			}
		}})
	return answer.Status, answer.Header, string(answer.Body), replies(t, answer.Header.Get("Content-Type"), answer.Body)
}

// replies parses a JSON body (one message or an array) or the data lines
// of an SSE stream.
func replies(t *testing.T, ct string, raw []byte) []rpcReply {
	t.Helper()
	var out []rpcReply
	add := func(b []byte) {
		b = []byte(strings.TrimSpace(string(b)))
		if len(b) == 0 {
			return
		}
		if b[0] == '[' {
			var rs []rpcReply
			if err := json.Unmarshal(b, &rs); err != nil {
				t.Fatalf("answer %s: %v", b, err)
			}
			out = append(out, rs...)
			return
		}
		var r rpcReply
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("answer %s: %v", b, err)
		}
		out = append(out, r)
	}
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				add([]byte(d))
			}
		}
	case strings.HasPrefix(ct, "application/json"):
		add(raw)
	}
	return out
}

func initBody(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
}

func echoCall(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
}

// open initializes a session of version on ts and returns its ID.
func open(t *testing.T, url, version string) string {
	t.Helper()
	status, header, msgs := rpcPost(t, url, "", "", initBody(version), nil)
	id := header.Get("Mcp-Session-Id")
	if status != http.StatusOK || id == "" || len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("initialize %s: %d %v %+v", version, status, header, msgs)
	}
	if status, _, _ := rpcPost(t, url, id, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); status != http.StatusAccepted {
		t.Fatalf("initialized: %d", status)
	}
	return id
}

// echoText returns the echo of a tools/call answer.
func echoText(t *testing.T, r rpcReply) string {
	t.Helper()
	var res struct {
		Structured echoOut `json:"structuredContent"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("not a tool result: %+v %s", r.Error, r.Result)
	}
	return res.Structured.Echo
}

// TestHTTPTransportVersions calls a tool on each protocol version the
// server negotiates: sessions on 2024-11-05 to 2025-11-25 (a batch on
// 2025-03-26, the only one that has them), stateless on 2026-07-28.
func TestHTTPTransportVersions(t *testing.T) {
	ts, _ := serveTransport(t, nil)
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		id := open(t, ts.URL, v)
		body := echoCall(2, v)
		if v == "2025-03-26" {
			body = "[" + echoCall(2, v) + "," + echoCall(3, "batch") + "]"
		}
		status, _, msgs := rpcPost(t, ts.URL, id, v, body, nil)
		got := []string{}
		for _, m := range msgs {
			got = append(got, echoText(t, m))
		}
		// A batch's answers come in the order they are ready.
		slices.Sort(got)
		want := []string{v}
		if v == "2025-03-26" {
			want = []string{v, "batch"}
		}
		if status != http.StatusOK || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %d %v, want 200 %v", v, status, got, want)
		}
		if v >= "2025-06-18" {
			// No batches past 2025-03-26.
			if status, _, _ := rpcPost(t, ts.URL, id, v, "["+echoCall(4, "x")+"]", nil); status != http.StatusBadRequest {
				t.Errorf("%s batch: %d, want 400", v, status)
			}
		}
	}
	sl, _ := serveTransport(t, &mcp.StreamableHTTPOptions{Stateless: true})
	const v = "2026-07-28"
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"new"}}}`
	status, _, msgs := rpcPost(t, sl.URL, "", v, body, func(r *http.Request) {
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "echo")
	})
	if status != http.StatusOK || len(msgs) != 1 || echoText(t, msgs[0]) != "new" {
		t.Errorf("%s: %d %+v", v, status, msgs)
	}
	status, _, _ = rpcPost(t, sl.URL, "", v, body, func(r *http.Request) {
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "other")
	})
	if status != http.StatusBadRequest {
		t.Errorf("%s with a Mcp-Name that is not the body's: %d, want 400", v, status)
	}
}

// TestHTTPTransportSessions checks the session refusals: an unknown
// session is 404 before its body is read, a deleted one 404 afterwards,
// and malformed JSON a -32700 error.
func TestHTTPTransportSessions(t *testing.T) {
	ts, _ := serveTransport(t, nil)
	if status, _, _ := rpcPost(t, ts.URL, "nope", "2025-11-25", echoCall(1, "a"), nil); status != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", status)
	}
	id := open(t, ts.URL, "2025-11-25")
	if status, _, msgs := rpcPost(t, ts.URL, id, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/call"`, nil); status != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != -32700 {
		t.Errorf("malformed JSON: %d %+v, want 400 and -32700", status, msgs)
	}
	if status, _, _, _ := rpcDo(t, http.MethodDelete, ts.URL, id, "2025-11-25", "", nil); status != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", status)
	}
	if status, _, _ := rpcPost(t, ts.URL, id, "2025-11-25", echoCall(3, "b"), nil); status != http.StatusNotFound {
		t.Errorf("call on a deleted session: %d, want 404", status)
	}
	if status, _, _, _ := rpcDo(t, http.MethodDelete, ts.URL, id, "2025-11-25", "", nil); status != http.StatusNotFound {
		t.Errorf("DELETE again: %d, want 404", status)
	}
}

// countingBody is a body of n bytes ('{' then spaces) that counts what is
// read of it.
type countingBody struct {
	left, read int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), b.left)
	for i := range p[:n] {
		p[i] = ' '
	}
	if b.read == 0 {
		p[0] = '{'
	}
	b.left -= n
	b.read += n
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// TestHTTPTransportHugeBody sends a 50 MB body, with its length declared
// and without: the answer is 413, having read at most the limit (4 MiB)
// and one byte, and nothing of a body whose declared length is past it.
func TestHTTPTransportHugeBody(t *testing.T) {
	const size = 50 << 20
	for _, declared := range []bool{true, false} {
		t.Run(fmt.Sprintf("declared=%v", declared), func(t *testing.T) {
			_, h := serveTransport(t, &mcp.StreamableHTTPOptions{Stateless: true})
			body := &countingBody{left: size}
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			req.Body = body
			req.ContentLength = -1
			if declared {
				req.ContentLength = size
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("got %d %s, want 413", rec.Code, rec.Body)
			}
			limit := int64(mcp.DefaultMaxRequestBodyBytes + 1)
			if declared {
				limit = 0
			}
			if body.read > limit {
				t.Errorf("read %d bytes of the body, want at most %d", body.read, limit)
			}
		})
	}
}

// TestHTTPTransportConcurrentCalls sends 16 calls at once on one session:
// each gets its own answer.
func TestHTTPTransportConcurrentCalls(t *testing.T) {
	ts, _ := serveTransport(t, nil)
	id := open(t, ts.URL, "2025-11-25")
	var wg sync.WaitGroup
	var bad atomic.Int32
	for i := range 16 {
		wg.Go(func() {
			text := fmt.Sprintf("call-%d", i)
			status, _, msgs := rpcPost(t, ts.URL, id, "2025-11-25", echoCall(100+i, text), nil)
			if status != http.StatusOK || len(msgs) != 1 || string(msgs[0].ID) != fmt.Sprint(100+i) || echoText(t, msgs[0]) != text {
				bad.Add(1)
				t.Errorf("call %d: %d %+v", i, status, msgs)
			}
		})
	}
	wg.Wait()
}

// TestHTTPTransportProgressDuringCall checks that progress sent while a
// call runs reaches the client on that call's own SSE response, before
// the result.
func TestHTTPTransportProgressDuringCall(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			ts, _ := serveTransport(t, &mcp.StreamableHTTPOptions{Stateless: stateless})
			id := ""
			if !stateless {
				id = open(t, ts.URL, "2025-11-25")
			}
			body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"flood","arguments":{"count":3}}}`
			status, header, msgs := rpcPost(t, ts.URL, id, "2025-11-25", body, nil)
			if status != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") || len(msgs) != 4 {
				t.Fatalf("got %d %q and %d messages, want 200, an SSE stream and 3 progress + 1 result", status, header.Get("Content-Type"), len(msgs))
			}
			if string(msgs[3].ID) != "5" || echoText(t, msgs[3]) != "flooded" {
				t.Errorf("last message %+v, want the result", msgs[3])
			}
		})
	}
}

// TestHTTPTransportStalledReader checks that a client that stops reading
// its SSE stream (while its call floods it with progress) does not hold
// up another session's calls.
func TestHTTPTransportStalledReader(t *testing.T) {
	ts, _ := serveTransport(t, nil)
	stalled := open(t, ts.URL, "2025-11-25")
	other := open(t, ts.URL, "2025-11-25")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"flood","arguments":{"count":2000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", stalled)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Read one event, then stop reading: 2000 × 64 KiB fill every
	// buffer between the server and here.
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		status, _, msgs := rpcPost(t, ts.URL, other, "2025-11-25", echoCall(10+i, "free"), nil)
		if status != http.StatusOK || len(msgs) != 1 || echoText(t, msgs[0]) != "free" {
			t.Fatalf("call %d of the other session: %d %+v", i, status, msgs)
		}
	}
	cancel()
}

// TestCallOf checks that a handler learns its request's JSON-RPC ID and
// its client's address over HTTP, stateful and stateless.
func TestCallOf(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "callof", Version: "1"}, nil)
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (echoOut, error) {
				id, client, port, ok := srv.CallOf(req)
				return echoOut{Echo: fmt.Sprintf("%v %v %s %v", ok, id.Raw(), client, port != "")}, nil
			}); err != nil {
				t.Fatal(err)
			}
			h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: stateless})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			session := ""
			if !stateless {
				session = open(t, ts.URL, "2025-11-25")
			}
			_, _, msgs := rpcPost(t, ts.URL, session, "2025-11-25", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, nil)
			if len(msgs) != 1 {
				t.Fatalf("answers %+v", msgs)
			}
			want := "true 42 127.0.0.1 true"
			if got := echoText(t, msgs[0]); got != want {
				t.Errorf("CallOf in the handler: %q, want %q", got, want)
			}
		})
	}
}

// TestHookflowTransportDisconnect checks what a client that goes away
// mid-call does to the call on hookflow's transport: a stateless call (the
// POST is its whole life) is cancelled; a stateful one runs on, as the
// transport says a disconnection is not a cancellation.
func TestHookflowTransportDisconnect(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "gone", Version: "1"}, nil)
			started, release := make(chan struct{}), make(chan struct{})
			seen := make(chan error, 1)
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (echoOut, error) {
				close(started)
				select {
				case <-ctx.Done():
				case <-release:
				}
				seen <- ctx.Err()
				return echoOut{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: stateless})
			if err != nil {
				t.Fatal(err)
			}
			// served closes when the handler has returned from the call's
			// POST: by then it has seen its client go.
			served := make(chan struct{})
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r)
				if r.Header.Get("X-Call") != "" {
					close(served)
				}
			}))
			defer ts.Close()
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			defer free() // before ts.Close, which waits for the call
			session := ""
			if !stateless {
				session = open(t, ts.URL, "2025-11-25")
			}
			ctx, cancel := context.WithCancel(t.Context())
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
				strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{}}}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			req.Header.Set("X-Call", "1")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			wait(t, started, "the call to start")
			cancel()
			wait(t, done, "the client to give up")
			if stateless {
				// The call must end on its own: nothing releases it.
				err = wait(t, seen, "the stateless call to be cancelled")
			} else {
				wait(t, served, "the handler to see its client go")
				free()
				err = wait(t, seen, "the stateful call to end")
			}
			if stateless && !errors.Is(err, context.Canceled) {
				t.Errorf("stateless call's context: %v, want canceled", err)
			}
			if !stateless && err != nil {
				t.Errorf("stateful call's context: %v, want it running on", err)
			}
		})
	}
}
