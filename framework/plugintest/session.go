package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// SessionOptions configures a [Session].
type SessionOptions struct {
	// Token is the verified bearer token the session's requests carry, as
	// the SDK's auth middleware would set it over HTTP; hooks see it in
	// flows.Request.TokenInfo and Principal. nil uses [Options.Token].
	Token *auth.TokenInfo
	// ProtocolVersion is the protocol version the client asks for; "" lets
	// the client choose.
	ProtocolVersion string
}

// Session is a real MCP client session connected to a [Harness].
type Session struct {
	h  *Harness
	cs *mcp.ClientSession
	ss *mcp.ServerSession
}

// Connect starts the server if needed and connects a new client session.
// opts may be nil. The session closes when the test ends.
func (h *Harness) Connect(opts *SessionOptions) *Session {
	h.t.Helper()
	h.mustStart()
	var o SessionOptions
	if opts != nil {
		o = *opts
	}
	if o.Token == nil {
		o.Token = h.opts.Token
	}
	cs, ss := connect(h.t, h.srv, o.ProtocolVersion, func(ss *mcp.ServerSession) {
		if o.Token != nil {
			h.tokens.Store(ss, o.Token)
		}
	})
	h.t.Cleanup(func() { h.tokens.Delete(ss) })
	return &Session{h: h, cs: cs, ss: ss}
}

// ConnectServer connects a new in-memory client session to srv (starting it
// if needed), for tests that build their own server rather than a
// [Harness]. Both ends close when the test ends.
func ConnectServer(t testing.TB, srv *framework.Server) *mcp.ClientSession {
	t.Helper()
	cs, _ := connect(t, srv, "", nil)
	return cs
}

// connect connects srv and a client over in-memory transports. serverSide,
// when set, sees the server session before the client initializes.
func connect(t testing.TB, srv *framework.Server, protocolVersion string, serverSide func(*mcp.ServerSession)) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("plugintest: connecting the server: %v", err)
	}
	if serverSide != nil {
		serverSide(ss)
	}
	var so *mcp.ClientSessionOptions
	if protocolVersion != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plugintest-client", Version: "1.0.0"}, nil).Connect(ctx, ct, so)
	if err != nil {
		_ = ss.Close()
		t.Fatalf("plugintest: connecting a client: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs, ss
}

// Session returns the harness's default session, connecting it on first
// use.
func (h *Harness) Session() *Session {
	h.t.Helper()
	h.mu.Lock()
	s := h.def
	h.mu.Unlock()
	if s != nil {
		return s
	}
	s = h.Connect(nil)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.def == nil {
		h.def = s
	}
	return h.def
}

// Call calls a tool on the default session (see [Session.Call]).
func (h *Harness) Call(name string, args any) *Result {
	h.t.Helper()
	return h.Session().Call(name, args)
}

// ToolNames lists the tools on the default session (see [Session.ToolNames]).
func (h *Harness) ToolNames() []string {
	h.t.Helper()
	return h.Session().ToolNames()
}

// Client returns the SDK's client session, for requests the Session does
// not wrap.
func (s *Session) Client() *mcp.ClientSession { return s.cs }

// ServerSession returns the server's side of the session.
func (s *Session) ServerSession() *mcp.ServerSession { return s.ss }

// Call calls the tool name with args (anything that marshals to a JSON
// object, or a json.RawMessage) and returns what the client got. It never
// fails the test by itself: assert with the Result's Want methods. It is
// safe to call from several goroutines.
func (s *Session) Call(name string, args any) *Result {
	return s.CallContext(s.h.t.Context(), name, args)
}

// CallContext is [Session.Call] with a context, e.g. to cancel the call.
//
// The call carries a token in its _meta (key "plugintest/call"), by which
// the harness finds what the server did with it: [Result.Ran],
// [Result.DecidedBy] and [Result.Decisions].
func (s *Session) CallContext(ctx context.Context, name string, args any) *Result {
	h := s.h
	o := &outcome{}
	h.mu.Lock()
	h.seq++
	key := strconv.FormatUint(h.seq, 10)
	h.outcomes[key] = o
	h.mu.Unlock()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{callKey: key}})
	h.mu.Lock()
	delete(h.outcomes, key)
	r := &Result{t: h.t, Tool: name, Res: res, Err: err, RequestID: o.id, Ran: o.ran, DecidedBy: o.decidedBy, Decisions: o.decisions}
	h.mu.Unlock()
	return r
}

// ToolNames lists the tools the client sees, sorted. It fails the test if
// tools/list fails.
func (s *Session) ToolNames() []string {
	s.h.t.Helper()
	var names []string
	var cursor string
	for {
		res, err := s.cs.ListTools(s.h.t.Context(), &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			s.h.t.Fatalf("plugintest: tools/list: %v", err)
			return nil
		}
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	slices.Sort(names)
	return names
}

// Result is what the client got from a tools/call: a result (which may have
// isError set) or an error (a protocol error is a *jsonrpc.Error); and, for
// a call of a [Session], what the server did with it: whether the tool ran
// and which hook decided the outcome.
type Result struct {
	t testing.TB
	// Tool is the called tool's name.
	Tool string
	// Res is the result, nil when Err is set.
	Res *mcp.CallToolResult
	// Err is the protocol or transport error.
	Err error

	// RequestID is hookflow's ID of the call's run ([flows.Request.ID],
	// the key of [Harness.Finally]); "" when the call reached no run (an
	// unknown tool, a protocol error before the flow).
	RequestID string
	// Ran reports whether the tool's execute step ran: false when a hook
	// blocked the call, answered it early (a cache hit) or the arguments
	// were invalid.
	Ran bool
	// DecidedBy is the ID of the hook that aborted the run, answered it
	// early or recovered it in onError ([flows.Context.DecidedBy]); ""
	// when no hook did.
	DecidedBy string
	// Decisions are the decisions hooks recorded on the run
	// ([flows.Context.Decide]), in order.
	Decisions []flows.Decision
}

// Text returns the concatenated text contents of the result.
func (r *Result) Text() string {
	if r.Res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// IsError reports whether the client got a result with isError set.
func (r *Result) IsError() bool { return r.Res != nil && r.Res.IsError }

// Code returns the JSON-RPC code of a protocol error, or 0.
func (r *Result) Code() int64 {
	var wire *jsonrpc.Error
	if errors.As(r.Err, &wire) {
		return wire.Code
	}
	return 0
}

// Decode unmarshals the result's structured content into v.
func (r *Result) Decode(v any) error {
	if r.Err != nil {
		return r.Err
	}
	if r.Res == nil || r.Res.StructuredContent == nil {
		return fmt.Errorf("tool %q: no structured content", r.Tool)
	}
	b, err := json.Marshal(r.Res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// String describes the result for failure messages.
func (r *Result) String() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("tool %q: error %v", r.Tool, r.Err)
	case r.IsError():
		return fmt.Sprintf("tool %q: isError %q", r.Tool, r.Text())
	default:
		return fmt.Sprintf("tool %q: %q", r.Tool, r.Text())
	}
}

// WantText reports an error unless the call succeeded (no protocol error,
// isError unset) with text want. It returns r.
func (r *Result) WantText(want string) *Result {
	r.t.Helper()
	if r.Err != nil || r.IsError() || r.Text() != want {
		r.t.Errorf("%v, want success with %q", r, want)
	}
	return r
}

// WantToolError reports an error unless the call ended in a result with
// isError set whose text contains substr. It returns r.
func (r *Result) WantToolError(substr string) *Result {
	r.t.Helper()
	if r.Err != nil || !r.IsError() || !strings.Contains(r.Text(), substr) {
		r.t.Errorf("%v, want isError containing %q", r, substr)
	}
	return r
}

// WantProtocolError reports an error unless the call failed with a JSON-RPC
// error of the given code (e.g. jsonrpc.CodeInvalidParams). It returns r.
func (r *Result) WantProtocolError(code int64) *Result {
	r.t.Helper()
	if r.Code() != code {
		r.t.Errorf("%v, want protocol error %d", r, code)
	}
	return r
}
