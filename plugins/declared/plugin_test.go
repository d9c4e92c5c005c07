package declared_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/stages"
)

// The shared checks of every plugin.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return declared.New(declared.Config{Declarations: []declared.Declaration{
			{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: plugintest.ToolEcho}, Context: "echoed", Priority: declared.Suggestion},
		}})
	}, nil)
}

// one declaration per event, and one with a context tool.
var everyEvent = []declared.Declaration{
	{Event: declared.SessionStart, ContextTool: "recall", ContextToolArgs: json.RawMessage(`{"query":"{project_name}"}`), Priority: declared.Important},
	{Event: declared.SessionEnd, Context: "store what you learned", Priority: declared.Suggestion},
	{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "careful", Priority: declared.Required},
	{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "Bash", InputContains: "git commit"}, Context: "you committed", Priority: declared.Suggestion},
	{Event: declared.PreRequest, Context: "before the turn", Priority: declared.Suggestion},
	{Event: declared.PostRequest, Context: "after the turn", Priority: declared.Suggestion},
}

type recallIn struct {
	Query string `json:"query"`
}

func recall(_ context.Context, _ *mcp.CallToolRequest, in recallIn) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "memories of " + in.Query}}}, nil
}

// addRecall adds the tool recall to srv.
func addRecall(srv *framework.Server) error {
	return framework.AddToolFunc(srv, &mcp.Tool{Name: "recall", Description: "recall memories"}, recall)
}

// transport connects a client to srv; the client declares caps.
type transport struct {
	name    string
	connect func(t *testing.T, srv *framework.Server, caps *mcp.ClientCapabilities) *mcp.ClientSession
}

func transports() []transport {
	inMemory := func(protocol string) func(*testing.T, *framework.Server, *mcp.ClientCapabilities) *mcp.ClientSession {
		return func(t *testing.T, srv *framework.Server, caps *mcp.ClientCapabilities) *mcp.ClientSession {
			st, ct := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(context.Background(), st, nil); err != nil {
				t.Fatal(err)
			}
			return clientConnect(t, ct, caps, protocol)
		}
	}
	overHTTP := func(stateless bool, protocol string) func(*testing.T, *framework.Server, *mcp.ClientCapabilities) *mcp.ClientSession {
		return func(t *testing.T, srv *framework.Server, caps *mcp.ClientCapabilities) *mcp.ClientSession {
			h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: stateless})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(h)
			t.Cleanup(hs.Close)
			return clientConnect(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, caps, protocol)
		}
	}
	return []transport{
		{"in-memory initialize", inMemory("2025-11-25")},
		{"in-memory discover", inMemory("")},
		{"http initialize", overHTTP(false, "2025-11-25")},
		{"http stateless discover", overHTTP(true, "")},
	}
}

func clientConnect(t *testing.T, tr mcp.Transport, caps *mcp.ClientCapabilities, protocol string) *mcp.ClientSession {
	t.Helper()
	var so *mcp.ClientSessionOptions
	if protocol != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(context.Background(), tr, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func eventsOf(ds []declared.Declaration) []declared.Event {
	var out []declared.Event
	for _, d := range ds {
		out = append(out, d.Event)
	}
	return out
}

// TestNegotiation: the client's supported events decide what it is sent,
// over every transport and protocol.
func TestNegotiation(t *testing.T) {
	tests := []struct {
		name         string
		caps         *mcp.ClientCapabilities
		unnegotiated bool
		want         []declared.Event // nil: no experimental.hooks at all
	}{
		{name: "no hooks capability", caps: nil},
		{name: "no hooks capability, unnegotiated", caps: nil, unnegotiated: true, want: eventsOf(everyEvent)},
		{name: "every event", caps: declared.DeclareSupport(nil, declared.Events()...), want: eventsOf(everyEvent)},
		{name: "two events", caps: declared.DeclareSupport(nil, declared.PostToolUse, declared.SessionStart),
			want: []declared.Event{declared.SessionStart, declared.PostToolUse}},
		{name: "no event", caps: declared.DeclareSupport(nil), want: []declared.Event{}},
		{name: "hooks without supported_events", caps: withHooks(map[string]any{})},
		{name: "hooks without supported_events, unnegotiated", caps: withHooks(map[string]any{}), unnegotiated: true},
		{name: "hooks not an object", caps: withHooks("all")},
	}
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					srv := plugintest.NewServer(t, &plugintest.ServerOptions{Name: "memory", Setup: addRecall, Start: true,
						Plugins: []framework.Plugin{declared.New(declared.Config{Declarations: everyEvent, Unnegotiated: tt.unnegotiated})}})
					cs := tr.connect(t, srv, tt.caps)
					caps := cs.InitializeResult().Capabilities
					if caps.Logging == nil || caps.Tools == nil {
						t.Errorf("capabilities lost: logging %v, tools %v", caps.Logging, caps.Tools)
					}
					decls, errs, ok := declared.ServerDeclarations(caps)
					if tt.want == nil {
						if ok {
							t.Fatalf("client got experimental.hooks: %+v", decls)
						}
						return
					}
					if !ok {
						t.Fatal("client got no experimental.hooks")
					}
					for _, err := range errs {
						if err != nil {
							t.Error(err)
						}
					}
					if got := eventsOf(decls); !slices.Equal(got, tt.want) {
						t.Errorf("events sent = %v, want %v", got, tt.want)
					}
					// What arrives is what was declared.
					for _, d := range decls {
						i := slices.IndexFunc(everyEvent, func(x declared.Declaration) bool { return x.Event == d.Event })
						want, _ := json.Marshal(everyEvent[i])
						got, _ := json.Marshal(d)
						if string(got) != string(want) {
							t.Errorf("declaration arrived as %s, want %s", got, want)
						}
					}
				})
			}
		})
	}
}

// withHooks returns client capabilities whose experimental.hooks is v.
func withHooks(v any) *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Experimental: map[string]any{declared.CapabilityKey: v}}
}

// TestMalformedClientHooks: a client whose experimental.hooks has no
// supported_events list (the SEP's ClientHooksCapability requires one) is
// sent no declarations, and the server's debug log says why.
func TestMalformedClientHooks(t *testing.T) {
	var logs records
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, &framework.Options{Logger: slog.New(&logs)})
	if err := srv.Use(declared.New(declared.Config{Declarations: everyEvent[1:]})); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs := clientConnect(t, ct, withHooks(map[string]any{}), "2025-11-25")
	if decls, _, ok := declared.ServerDeclarations(cs.InitializeResult().Capabilities); ok {
		t.Errorf("a client without supported_events got %d declarations", len(decls))
	}
	if got := logs.find(slog.LevelDebug, "sent no hook declarations", "has no supported_events"); len(got) != 1 {
		t.Errorf("debug log = %q, want one record saying why", logs.all())
	}
}

// records is a slog.Handler that keeps every record as text.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.recs = append(r.recs, rec.Clone())
	r.mu.Unlock()
	return nil
}

func text(rec slog.Record) string {
	var b strings.Builder
	b.WriteString(rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	return b.String()
}

// find returns the records of level whose text holds every substring.
func (r *records) find(level slog.Level, subs ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
next:
	for _, rec := range r.recs {
		if rec.Level != level {
			continue
		}
		for _, s := range subs {
			if !strings.Contains(text(rec), s) {
				continue next
			}
		}
		out = append(out, text(rec))
	}
	return out
}

func (r *records) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		out = append(out, rec.Level.String()+" "+text(rec))
	}
	return out
}

// TestRewritePerSession: a session:initialize hook that runs after the
// plugin narrows one session's declarations without touching another's.
func TestRewritePerSession(t *testing.T) {
	onlyForVIP := flows.On(stages.AfterExecute, func(c flows.Initialize) error {
		adv := declared.Advertised(c)
		if adv == nil {
			return nil
		}
		name := ""
		if p := c.Params(); p != nil && p.ClientInfo != nil {
			name = p.ClientInfo.Name
		}
		if name != "vip" {
			adv.Declarations = slices.DeleteFunc(adv.Declarations, func(d declared.Declaration) bool { return d.Priority == declared.Required })
		}
		for i := range adv.Declarations {
			if m := adv.Declarations[i].Matcher; m != nil {
				m.ToolName = strings.ToLower(m.ToolName)
			}
		}
		return nil
	}).Named("narrow")
	srv := plugintest.NewServer(t, &plugintest.ServerOptions{Name: "memory", Setup: addRecall, Start: true,
		Plugins: []framework.Plugin{declared.New(declared.Config{Declarations: everyEvent})}, Hooks: []flows.Hook{onlyForVIP}})
	caps := declared.DeclareSupport(nil, declared.Events()...)
	connect := func(name string) []declared.Declaration {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).
			Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		decls, _, _ := declared.ServerDeclarations(cs.InitializeResult().Capabilities)
		return decls
	}
	if got := connect("guest"); len(got) != len(everyEvent)-1 {
		t.Errorf("guest got %d declarations, want %d", len(got), len(everyEvent)-1)
	}
	vip := connect("vip")
	if len(vip) != len(everyEvent) {
		t.Errorf("vip got %d declarations, want %d", len(vip), len(everyEvent))
	}
	if m := vip[2].Matcher; m == nil || m.ToolName != "bash" {
		t.Errorf("vip's matcher = %+v, want the rewritten tool name", m)
	}
	// The plugin's own declarations are untouched by the rewrites.
	if everyEvent[2].Matcher.ToolName != "Bash" {
		t.Errorf("the configuration's matcher was rewritten to %q", everyEvent[2].Matcher.ToolName)
	}
	if got := connect("guest2"); len(got) != len(everyEvent)-1 || got[2].Matcher.ToolName != "bash" {
		t.Errorf("a later session sees a previous session's rewrite: %+v", got)
	}
}

// TestConfigErrors: a bad declaration fails Attach, and a context_tool the
// server does not have fails Start, both naming the declaration.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		decl declared.Declaration
		err  string
	}{
		{"invalid", declared.Declaration{Event: declared.SessionStart, Priority: declared.Suggestion},
			`plugin "declared" (memory/plugin:declared): declarations[1]: context or context_tool is required`},
		{"unknown tool", declared.Declaration{Event: declared.SessionStart, ContextTool: "recal", Priority: declared.Suggestion},
			`plugin "declared" (memory/plugin:declared): declarations[1].context_tool: "recal" names no tool of the server`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "recall"}, recall); err != nil {
				t.Fatal(err)
			}
			ok := declared.Declaration{Event: declared.SessionEnd, ContextTool: "recall", Priority: declared.Suggestion}
			if err := srv.Use(declared.New(declared.Config{Declarations: []declared.Declaration{ok, tt.decl}})); err != nil {
				t.Fatal(err)
			}
			err := srv.Start()
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Start = %v, want %q", err, tt.err)
			}
		})
	}
}

// TestDeclarationsCopy: the plugin keeps its own copy of the
// configuration.
func TestDeclarationsCopy(t *testing.T) {
	decls := []declared.Declaration{{Event: declared.PostToolUse, Matcher: &declared.Matcher{ToolName: "a"}, Context: "x", Priority: declared.Suggestion}}
	p := declared.New(declared.Config{Declarations: decls})
	decls[0].Matcher.ToolName = "changed"
	got := p.Declarations()
	if got[0].Matcher.ToolName != "a" {
		t.Errorf("the plugin sees a change to the caller's slice: %q", got[0].Matcher.ToolName)
	}
	got[0].Matcher.ToolName = "changed again"
	if p.Declarations()[0].Matcher.ToolName != "a" {
		t.Error("Declarations returns the plugin's own values")
	}
}
