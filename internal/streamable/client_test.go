package streamable_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hookflow/hookflow/internal/streamable"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTag is the context key with which the tests name the call a
// request to the server was sent for.
type callTag struct{}

// seen records what a ClientTransport's hooks were told.
type seen struct {
	mu       sync.Mutex
	messages []string // "method@tag" or "response@tag"
	statuses []int
	errs     []error
}

func (s *seen) hooks() streamable.ClientHooks {
	return streamable.ClientHooks{
		Message: func(ctx context.Context, msg jsonrpc.Message) {
			tag, _ := ctx.Value(callTag{}).(string)
			what := "response"
			if r, ok := msg.(*jsonrpc.Request); ok {
				what = r.Method
			}
			s.mu.Lock()
			s.messages = append(s.messages, what+"@"+tag)
			s.mu.Unlock()
		},
		Status: func(code int) {
			s.mu.Lock()
			s.statuses = append(s.statuses, code)
			s.mu.Unlock()
		},
		Error: func(err error) {
			s.mu.Lock()
			s.errs = append(s.errs, err)
			s.mu.Unlock()
		},
	}
}

func (s *seen) has(what string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m == what {
			return true
		}
	}
	return false
}

func (s *seen) errored(target error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.errs {
		if errors.Is(e, target) {
			return true
		}
	}
	return false
}

type echoIn struct {
	Text string `json:"text"`
}

// testServer returns an MCP server whose tools exercise the client:
// echo, progress (two progress notifications before its result) and ask
// (a sampling request to the client during the call). Its receiving
// middleware names each call to hookflow's transport, as framework's does.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ex := req.GetExtra(); ex != nil && ex.CloseSSEStream != nil {
				ctx = streamable.WithRequest(ctx, ex)
			}
			return next(ctx, method, req)
		}
	})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return text(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, any, error) {
		for i := range 2 {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 2})
			if err != nil {
				return nil, nil, err
			}
		}
		return text("done"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, nil, err
		}
		return text(res.Content.(*mcp.TextContent).Text), nil, nil
	})
	return s
}

type serverKind struct {
	name      string
	stateless bool
	json      bool
	handler   func(s *mcp.Server, stateless, json bool) http.Handler
}

func hookflowHandler(s *mcp.Server, stateless, json bool) http.Handler {
	return streamable.New(streamable.Options{Server: s, Stateless: stateless, JSONResponse: json, Host: &testHost{}})
}

func sdkHandler(s *mcp.Server, stateless, json bool) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: json})
}

var serverKinds = []serverKind{
	{name: "hookflow stateful sse", handler: hookflowHandler},
	{name: "hookflow stateful json", json: true, handler: hookflowHandler},
	{name: "hookflow stateless sse", stateless: true, handler: hookflowHandler},
	{name: "hookflow stateless json", stateless: true, json: true, handler: hookflowHandler},
	{name: "sdk stateful sse", handler: sdkHandler},
	{name: "sdk stateful json", json: true, handler: sdkHandler},
	{name: "sdk stateless sse", stateless: true, handler: sdkHandler},
	{name: "sdk stateless json", stateless: true, json: true, handler: sdkHandler},
}

// connect connects an SDK client over a ClientTransport to url.
func connect(t *testing.T, url string, s *seen, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, opts)
	return c.Connect(t.Context(), &streamable.ClientTransport{Endpoint: url, Hooks: s.hooks()}, nil)
}

func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("calling %s: %v", params.Name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("calling %s: %+v", params.Name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestClientCalls drives the client against hookflow's server transport
// and the SDK's handler, stateful and stateless, with SSE and JSON
// replies: calls, progress on a call's stream, and a request to the client
// during a call, which the hooks see with that call's context.
func TestClientCalls(t *testing.T) {
	for _, k := range serverKinds {
		t.Run(k.name, func(t *testing.T) {
			srv := httptest.NewServer(k.handler(testServer(), k.stateless, k.json))
			defer srv.Close()
			var s seen
			var mu sync.Mutex
			var progress []float64
			cs, err := connect(t, srv.URL, &s, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, r.Params.Progress)
					mu.Unlock()
				},
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if k.stateless != (cs.ID() == "") {
				t.Errorf("session ID %q on a stateless=%v server", cs.ID(), k.stateless)
			}
			ctx := context.WithValue(t.Context(), callTag{}, "echo")
			if got := callText(t, ctx, cs, &mcp.CallToolParams{Name: "echo", Arguments: echoIn{Text: "héllo"}}); got != "héllo" {
				t.Errorf("echo: %q", got)
			}
			if !s.has("response@echo") {
				t.Errorf("the hook saw no response with the call's context: %v", s.messages)
			}
			if !k.json {
				ctx := context.WithValue(t.Context(), callTag{}, "progress")
				p := &mcp.CallToolParams{Name: "progress", Arguments: echoIn{}}
				p.SetProgressToken("tok")
				callText(t, ctx, cs, p)
				if !s.has("notifications/progress@progress") {
					t.Errorf("the hook saw no progress with the call's context: %v", s.messages)
				}
			}
			if !k.stateless && !k.json {
				ctx := context.WithValue(t.Context(), callTag{}, "ask")
				if got := callText(t, ctx, cs, &mcp.CallToolParams{Name: "ask", Arguments: echoIn{}}); got != "sampled" {
					t.Errorf("ask: %q", got)
				}
				if !s.has("sampling/createMessage@ask") {
					t.Errorf("the hook saw the request to the client without its call: %v", s.messages)
				}
			}
		})
	}
}

// TestClientGETStream checks that a stateful session opens the GET
// stream once initialized, and reads on it what the server sends outside
// any call.
func TestClientGETStream(t *testing.T) {
	for _, k := range []serverKind{serverKinds[0], serverKinds[4]} {
		t.Run(k.name, func(t *testing.T) {
			server := testServer()
			srv := httptest.NewServer(k.handler(server, false, false))
			defer srv.Close()
			var s seen
			changed := make(chan struct{}, 1)
			cs, err := connect(t, srv.URL, &s, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case changed <- struct{}{}:
					default:
					}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			mcp.AddTool(server, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			select {
			case <-changed:
			case <-t.Context().Done():
				t.Fatal("no notification on the GET stream")
			}
			if !s.has("notifications/tools/list_changed@") {
				t.Errorf("hook messages %v, want the notification with no call's context", s.messages)
			}
		})
	}
}

// fakeServer answers the handshake as a stateful server (session "s1",
// a JSON initialize result, 202 to notifications, 405 to GET) and hands
// every other POST to call; it counts DELETEs.
type fakeServer struct {
	call    func(w http.ResponseWriter, r *http.Request, id string)
	mu      sync.Mutex
	deletes int
	gone    bool // answer 404 to the session from now
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	gone := f.gone
	if r.Method == http.MethodDelete {
		f.deletes++
	}
	f.mu.Unlock()
	if gone {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet:
		http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body, _ := io.ReadAll(r.Body)
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	id := fmt.Sprint(req.ID.Raw())
	w.Header().Set("Mcp-Session-Id", "s1")
	if req.Method == "initialize" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, id)
		return
	}
	r.Header.Set("X-Test-Method", req.Method) // for call to tell requests apart
	f.call(w, r, id)
}

// TestClientHostileServer checks the client against servers that break
// the protocol: each call fails, within the bounds, and the connection
// ends where the SDK's does.
func TestClientHostileServer(t *testing.T) {
	const max = 1 << 10
	huge := strings.Repeat("x", 4*max)
	tests := []struct {
		name string
		call func(w http.ResponseWriter, r *http.Request, id string)
		// broken: the connection is over after the call.
		broken bool
	}{
		{"huge SSE line", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s", huge) // no line end: the bound applies before it
			w.(http.Flusher).Flush()
			<-r.Context().Done() // until the client hangs up
		}, true},
		{"huge SSE event", func(w http.ResponseWriter, r *http.Request, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			for range 8 {
				fmt.Fprintf(w, "data: %s\n", huge[:max/2])
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done() // until the client hangs up
		}, true},
		{"huge JSON body with its length", func(w http.ResponseWriter, _ *http.Request, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", fmt.Sprint(50<<20))
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"jsonrpc":"2.0",`)
		}, true},
		{"huge JSON body without its length", func(w http.ResponseWriter, _ *http.Request, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"x":"%s"}}`, id, huge)
		}, true},
		{"malformed JSON", func(w http.ResponseWriter, _ *http.Request, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":`)
		}, true},
		{"malformed SSE data", func(w http.ResponseWriter, _ *http.Request, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {nope\n\n")
		}, true},
		{"stream ends without the response", func(w http.ResponseWriter, _ *http.Request, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\n\n")
		}, false},
		{"JSON-RPC error with 400", func(w http.ResponseWriter, _ *http.Request, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad"}}`, id)
		}, false},
		{"503", func(w http.ResponseWriter, _ *http.Request, id string) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}, false},
		{"plain 400", func(w http.ResponseWriter, _ *http.Request, id string) {
			http.Error(w, "no", http.StatusBadRequest)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeServer{call: tt.call}
			srv := httptest.NewServer(f)
			defer srv.Close()
			var s seen
			c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &streamable.ClientTransport{Endpoint: srv.URL, MaxEventBytes: max, Hooks: s.hooks()}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "x"}); err == nil {
				t.Fatal("the call succeeded")
			}
			_, err = cs.ListTools(t.Context(), nil)
			if tt.broken && err == nil {
				t.Error("the connection is still up")
			}
			if !tt.broken && (errors.Is(err, mcp.ErrConnectionClosed) || strings.Contains(fmt.Sprint(err), "closed")) {
				t.Errorf("the connection ended: %v", err)
			}
		})
	}
}

// TestClientSessionEnds checks how a session ends: a server that drops
// it (404 to its session ID) breaks the connection with
// mcp.ErrSessionMissing and gets no DELETE; a client that closes sends
// one.
func TestClientSessionEnds(t *testing.T) {
	echo := func(w http.ResponseWriter, _ *http.Request, id string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, id)
	}
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprintf("dropped=%v", drop), func(t *testing.T) {
			f := &fakeServer{call: echo}
			srv := httptest.NewServer(f)
			defer srv.Close()
			var s seen
			c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
			cs, err := c.Connect(t.Context(), &streamable.ClientTransport{Endpoint: srv.URL, Hooks: s.hooks()}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "x"}); err != nil {
				t.Fatal(err)
			}
			if drop {
				f.mu.Lock()
				f.gone = true
				f.mu.Unlock()
				if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "x"}); err == nil {
					t.Fatal("a call on a dropped session succeeded")
				}
				if !s.errored(mcp.ErrSessionMissing) {
					t.Errorf("the Error hook was told %v, want mcp.ErrSessionMissing", s.errs)
				}
				if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "x"}); err == nil {
					t.Error("the connection is still up after the server dropped its session")
				}
			}
			_ = cs.Close()
			f.mu.Lock()
			deletes := f.deletes
			f.mu.Unlock()
			if want := map[bool]int{false: 1, true: 0}[drop]; deletes != want {
				t.Errorf("%d DELETEs, want %d", deletes, want)
			}
		})
	}
}

// TestClientCancelEndlessStream checks that a caller who gives up on a
// call whose stream never ends gets its error, that the HTTP request is
// cancelled (the server sees it), and that the session goes on.
func TestClientCancelEndlessStream(t *testing.T) {
	started, hungUp := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f := &fakeServer{}
	f.call = func(w http.ResponseWriter, r *http.Request, id string) {
		if r.Header.Get("X-Test-Method") == "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, id)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ": still here\n\n")
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		once.Do(func() { close(hungUp) })
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var s seen
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &streamable.ClientTransport{Endpoint: srv.URL, Hooks: s.hooks()}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "endless"})
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the call failed with %v, want context.Canceled", err)
	}
	select {
	case <-hungUp:
	case <-t.Context().Done():
		t.Fatal("the server never saw the request cancelled")
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("the session ended with the cancelled call: %v", err)
	}
}

// TestClientParamHeaders checks that on 2026-07-28 a call of a listed
// tool whose input schema has x-mcp-header repeats the argument in its
// Mcp-Param-* header, as servers check: hookflow's (given the schema) and
// the SDK's refuse a call without it.
func TestClientParamHeaders(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
		"limit":  map[string]any{"type": "integer", "x-mcp-header": "Limit"},
	}}
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "where", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
		return s
	}
	handlers := map[string]func() http.Handler{
		"hookflow": func() http.Handler {
			headers := streamable.CompileParamHeaders(schema)
			return streamable.New(streamable.Options{Server: newServer(), Stateless: true, Host: &testHost{
				params: func(name string) *streamable.ParamHeaders {
					if name != "where" {
						return nil
					}
					return headers
				}}})
		},
		"sdk": func() http.Handler { return sdkHandler(newServer(), true, false) },
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			var got []http.Header
			var mu sync.Mutex
			inner := h()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = append(got, r.Header.Clone())
				mu.Unlock()
				inner.ServeHTTP(w, r)
			}))
			defer srv.Close()
			var s seen
			cs, err := connect(t, srv.URL, &s, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			for _, region := range []string{"eu-west", "zürich"} {
				callText(t, t.Context(), cs, &mcp.CallToolParams{Name: "where", Arguments: map[string]any{"region": region, "limit": 3}})
				mu.Lock()
				last := got[len(got)-1]
				mu.Unlock()
				if last.Get("Mcp-Param-Limit") != "3" || last.Get("Mcp-Param-Region") == "" || last.Get("Mcp-Name") != "where" {
					t.Errorf("call with %q sent %v", region, last)
				}
			}
		})
	}
}

// TestClientGETNeverAnswers: a server that takes the GET stream's request
// and never answers it fails Connect when Connect's context ends, rather
// than holding it for ever.
func TestClientGETNeverAnswers(t *testing.T) {
	f := &fakeServer{call: func(http.ResponseWriter, *http.Request, string) {}}
	getting := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			getting <- struct{}{}
			<-r.Context().Done()
			return
		}
		f.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-getting // the handshake reached the GET, which the server holds
		cancel()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &streamable.ClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		cs.Close()
		t.Fatal("Connect succeeded")
	}
}
