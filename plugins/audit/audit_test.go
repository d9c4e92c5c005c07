package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/stages"
)

// lines is a goroutine-safe buffer of JSON lines.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// events decodes the JSON lines written so far.
func (l *lines) events(t testing.TB) []audit.Event {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	return decode(t, l.buf.Bytes())
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func decode(t testing.TB, b []byte) []audit.Event {
	t.Helper()
	var evs []audit.Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev audit.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func flush(t testing.TB, p *audit.Plugin) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// newAudit returns an audit plugin writing JSON to out, closed at cleanup.
func newAudit(t testing.TB, out *lines, cfg audit.Config) *audit.Plugin {
	cfg.Handler = slog.NewJSONHandler(out, nil)
	p := audit.New(cfg)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(t testing.TB) framework.Plugin {
		return newAudit(t, &lines{}, audit.Config{Redact: []string{"text"}})
	}, nil)
}

func TestPluginChecksFileSink(t *testing.T) {
	plugintest.Run(t, func(t testing.TB) framework.Plugin {
		p := audit.New(audit.Config{File: audit.File{Path: filepath.Join(t.TempDir(), "audit.jsonl"), MaxBytes: 4096}})
		t.Cleanup(func() { _ = p.Close(context.Background()) })
		return p
	}, nil)
}

// deciders are plugins that block, answer early, rewrite or recover calls
// depending on the text argument.
func deciders() framework.Plugin {
	text := func(c *flows.Context) string {
		if in := flows.As[flows.ToolCall[plugintest.Text, plugintest.Text]](c).Input(); in != nil {
			return in.Text
		}
		return ""
	}
	return framework.NewPlugin("decide", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "block", Fn: func(c *flows.Context) error {
				if text(c) == "blockme" {
					return errors.New("blocked on purpose")
				}
				return nil
			}},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "early", Fn: func(c *flows.Context) error {
				if text(c) == "early" {
					c.Respond(plugintest.Text{Text: "from a hook"})
				}
				return nil
			}},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "rewrite", Fn: func(c *flows.Context) error {
				if text(c) == "rewrite" {
					c.Respond(plugintest.Text{Text: "rewritten"})
				}
				return nil
			}},
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.OnError, Name: "rescue", Fn: func(c *flows.Context) error {
				if strings.Contains(flows.Reason(c.Err()), "rescue") {
					c.Respond(plugintest.Text{Text: "rescued"})
				}
				return nil
			}},
		)
	})
}

const hookPrefix = "plugintest/plugin:decide/tools:call-tool/"

func TestEvents(t *testing.T) {
	out := &lines{}
	aud := newAudit(t, out, audit.Config{Redact: []string{"secret", "card.number"}})
	h := plugintest.New(t, &plugintest.Options{
		Plugins: []framework.Plugin{aud, deciders()},
		Setup: func(s *framework.Server) error {
			return errors.Join(
				framework.AddPromptFunc(s, &mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name"}, {Name: "secret"}}},
					func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi " + req.Params.Arguments["name"]}}}}, nil
					}),
				framework.AddResourceFunc(s, &mcp.Resource{URI: "test://doc", Name: "doc"}, nil,
					func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
						return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "doc"}}}, nil
					}),
			)
		},
	})
	s := h.Connect(&plugintest.SessionOptions{Token: &auth.TokenInfo{UserID: "alice", Scopes: []string{"read"}, Extra: map[string]any{"raw": "tok-SECRET-123", "client_id": "app-1"}}})
	flush(t, aud)
	_ = out.events(t) // the session's initialize
	out.buf.Reset()

	tests := []struct {
		name      string
		call      func() *plugintest.Result
		want      audit.Event // Flow, Entity, Outcome, DecidedBy, Error, Args, URI are compared
		wantClean bool        // the call's result must not be an error
	}{
		{name: "ok", call: func() *plugintest.Result { return s.Call(plugintest.ToolEcho, plugintest.Text{Text: "hi"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "echo", Outcome: audit.OK, Args: json.RawMessage(`{"text":"hi"}`)}},
		{name: "tool error", call: func() *plugintest.Result { return s.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "fail", Outcome: audit.Failed, Error: "fail: x", Args: json.RawMessage(`{"text":"x"}`)}},
		{name: "panic", call: func() *plugintest.Result { return s.Call(plugintest.ToolPanic, plugintest.Text{Text: "p"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "panic", Outcome: audit.Failed, Error: "internal error", Args: json.RawMessage(`{"text":"p"}`)}},
		{name: "invalid input", call: func() *plugintest.Result { return s.Call(plugintest.ToolEcho, map[string]any{"text": 5}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "echo", Outcome: audit.Failed, Args: json.RawMessage(`{"text":5}`)}},
		{name: "blocked", call: func() *plugintest.Result { return s.Call(plugintest.ToolEcho, plugintest.Text{Text: "blockme"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "echo", Outcome: audit.Blocked, DecidedBy: hookPrefix + "beforeExecute/block", Error: "blocked on purpose", Args: json.RawMessage(`{"text":"blockme"}`)}},
		{name: "answered early", call: func() *plugintest.Result { return s.Call(plugintest.ToolEcho, plugintest.Text{Text: "early"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "echo", Outcome: audit.AnsweredEarly, DecidedBy: hookPrefix + "beforeExecute/early", Args: json.RawMessage(`{"text":"early"}`)}},
		{name: "rewritten after execute is ok", call: func() *plugintest.Result { return s.Call(plugintest.ToolEcho, plugintest.Text{Text: "rewrite"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "echo", Outcome: audit.OK, Args: json.RawMessage(`{"text":"rewrite"}`)}},
		{name: "recovered", call: func() *plugintest.Result { return s.Call(plugintest.ToolFail, plugintest.Text{Text: "rescue"}) },
			want: audit.Event{Flow: flows.ToolsCallTool, Entity: "fail", Outcome: audit.Recovered, DecidedBy: hookPrefix + "onError/rescue", Args: json.RawMessage(`{"text":"rescue"}`)}},
		{name: "redacted nested", call: func() *plugintest.Result {
			return s.Call(plugintest.ToolEcho, map[string]any{"text": "t", "Secret": "s1", "card": map[string]any{"number": "4111", "exp": "12/30"}, "list": []any{map[string]any{"secret": "s2"}}})
		}, want: audit.Event{Flow: flows.ToolsCallTool, Entity: "echo", Outcome: audit.Failed, // extra fields fail validation: redacted all the same
			Args: json.RawMessage(`{"Secret":"[REDACTED]","card":{"exp":"12/30","number":"[REDACTED]"},"list":[{"secret":"[REDACTED]"}],"text":"t"}`)}},
		{name: "prompt", call: func() *plugintest.Result {
			_, err := s.Client().GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "ada", "secret": "pw"}})
			return &plugintest.Result{Err: err}
		}, wantClean: true, want: audit.Event{Flow: flows.PromptsGetPrompt, Entity: "greet", Outcome: audit.OK, Args: json.RawMessage(`{"name":"ada","secret":"[REDACTED]"}`)}},
		{name: "resource", call: func() *plugintest.Result {
			_, err := s.Client().ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://doc"})
			return &plugintest.Result{Err: err}
		}, wantClean: true, want: audit.Event{Flow: flows.ResourcesReadResource, Entity: "test://doc", Outcome: audit.OK, URI: "test://doc"}},
		{name: "list", call: func() *plugintest.Result {
			_, err := s.Client().ListTools(t.Context(), nil)
			return &plugintest.Result{Err: err}
		}, wantClean: true, want: audit.Event{Flow: flows.ToolsListTools, Outcome: audit.OK}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.call()
			if res.Err != nil {
				t.Fatalf("call: %v", res.Err)
			}
			flush(t, aud)
			out.mu.Lock()
			evs := decode(t, out.buf.Bytes())
			out.buf.Reset()
			out.mu.Unlock()
			if len(evs) != 1 {
				t.Fatalf("got %d events, want 1 (a tools/call's visibility check gets none): %+v", len(evs), evs)
			}
			ev := evs[0]
			if ev.Flow != tt.want.Flow || ev.Entity != tt.want.Entity || ev.Outcome != tt.want.Outcome || ev.DecidedBy != tt.want.DecidedBy || ev.URI != tt.want.URI {
				t.Errorf("event %+v,\nwant flow %s entity %q outcome %s decided_by %q uri %q", ev, tt.want.Flow, tt.want.Entity, tt.want.Outcome, tt.want.DecidedBy, tt.want.URI)
			}
			if tt.want.Error != "" && ev.Error != tt.want.Error {
				t.Errorf("error %q, want %q", ev.Error, tt.want.Error)
			}
			if tt.want.Outcome == audit.Failed && ev.Error == "" {
				t.Errorf("a failed run has no error text")
			}
			if !bytes.Equal(ev.Args, tt.want.Args) {
				t.Errorf("args %s, want %s", ev.Args, tt.want.Args)
			}
			if ev.Principal != "alice" || ev.RequestID == "" || ev.Duration <= 0 || ev.Time.IsZero() {
				t.Errorf("principal %q, request ID %q, duration %v, time %v: want alice, an ID, a duration and a time", ev.Principal, ev.RequestID, ev.Duration, ev.Time)
			}
			if ev.ClientID != "app-1" {
				t.Errorf("client ID %q, want the token's app-1", ev.ClientID)
			}
		})
	}
	if strings.Contains(out.String(), "tok-SECRET-123") {
		t.Error("a token's contents appear in an audit event")
	}
}

// blockingHandler blocks every Handle until release is closed.
type blockingHandler struct {
	slog.Handler
	release chan struct{}
}

func (b blockingHandler) Handle(ctx context.Context, r slog.Record) error {
	<-b.release
	return b.Handler.Handle(ctx, r)
}

// failingHandler fails or panics on every record.
type failingHandler struct {
	slog.Handler
	panics bool
}

func (f failingHandler) Handle(context.Context, slog.Record) error {
	if f.panics {
		panic("sink panicked on purpose")
	}
	return errors.New("sink failed on purpose")
}

func TestSlowSinkNeverBlocksCalls(t *testing.T) {
	out := &lines{}
	release := make(chan struct{})
	aud := audit.New(audit.Config{Handler: blockingHandler{slog.NewJSONHandler(out, nil), release}, QueueSize: 2, Flows: []flows.ID{flows.ToolsCallTool}})
	t.Cleanup(func() { _ = aud.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
	const calls = 20
	for i := range calls {
		h.Call(plugintest.ToolEcho, plugintest.Text{Text: fmt.Sprint(i)}).WantText(plugintest.EchoText(fmt.Sprint(i)))
	}
	// The writer holds one event, the queue two: the rest are dropped.
	if d := aud.Dropped(); d < calls-3 {
		t.Errorf("Dropped() = %d, want at least %d", d, calls-3)
	}
	close(release)
	flush(t, aud)
	if got := aud.Dropped() + aud.Written(); got != calls {
		t.Errorf("dropped %d + written %d = %d, want %d", aud.Dropped(), aud.Written(), got, calls)
	}
	if n := len(out.events(t)); uint64(n) != aud.Written() {
		t.Errorf("%d lines, Written() = %d", n, aud.Written())
	}
}

func TestFailingSinkCountsDrops(t *testing.T) {
	for _, panics := range []bool{false, true} {
		t.Run(fmt.Sprintf("panics=%v", panics), func(t *testing.T) {
			good := &lines{}
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			aud := audit.New(audit.Config{
				Handler: failingHandler{slog.NewJSONHandler(good, nil), panics},
				File:    audit.File{Path: path},
				Flows:   []flows.ID{flows.ToolsCallTool},
			})
			t.Cleanup(func() { _ = aud.Close(context.Background()) })
			h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
			for range 5 {
				h.Call(plugintest.ToolEcho, plugintest.Text{Text: "x"}).WantText(plugintest.EchoText("x"))
			}
			flush(t, aud)
			if aud.Dropped() != 5 || aud.Written() != 5 {
				t.Errorf("Dropped() = %d, Written() = %d; want 5 and 5 (the file sink still writes)", aud.Dropped(), aud.Written())
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(decode(t, b)); n != 5 {
				t.Errorf("file has %d events, want 5", n)
			}
		})
	}
}

func TestFileRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	const maxBytes = 1024
	aud := audit.New(audit.Config{File: audit.File{Path: path, MaxBytes: maxBytes, MaxBackups: 2}, Flows: []flows.ID{flows.ToolsCallTool}})
	t.Cleanup(func() { _ = aud.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
	const calls = 60 // about 250 bytes each: several rotations
	for i := range calls {
		h.Call(plugintest.ToolEcho, plugintest.Text{Text: fmt.Sprintf("call %03d", i)})
	}
	if err := aud.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(path + "*")
	want := []string{path, path + ".1", path + ".2"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("files %v, want %v", names, want)
	}
	var last []audit.Event
	for i := len(want) - 1; i >= 0; i-- { // oldest first
		b, err := os.ReadFile(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > maxBytes {
			t.Errorf("%s has %d bytes, more than MaxBytes %d", want[i], len(b), maxBytes)
		}
		last = append(last, decode(t, b)...)
	}
	// The files hold the newest events, in order, ending with the last call.
	for i, ev := range last {
		want := fmt.Sprintf(`{"text":"call %03d"}`, calls-len(last)+i)
		if string(ev.Args) != want {
			t.Fatalf("event %d args %s, want %s", i, ev.Args, want)
		}
	}
	if aud.Dropped() != 0 {
		t.Errorf("Dropped() = %d", aud.Dropped())
	}
}

func TestBadConfig(t *testing.T) {
	tests := []struct {
		cfg  audit.Config
		want string
	}{
		{audit.Config{QueueSize: -1}, "queue_size: must not be negative"},
		{audit.Config{File: audit.File{Path: "x", MaxBytes: -1}}, "file.max_bytes: must not be negative"},
		{audit.Config{File: audit.File{Path: "x", MaxBackups: -2}}, "file.max_backups: must not be negative"},
		{audit.Config{File: audit.File{MaxBytes: 10}}, "file.path: required"},
		{audit.Config{File: audit.File{Path: "/nonexistent-dir/audit.jsonl"}}, "file: directory /nonexistent-dir does not exist"},
		{audit.Config{Redact: []string{"ok", "a..b"}}, `redact[1]: "a..b" has an empty field name`},
		{audit.Config{Flows: []flows.ID{"tools:call-tol"}}, `flows[0]: unknown flow "tools:call-tol" (did you mean "tools:call-tool"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			p := audit.New(tt.cfg)
			defer p.Close(context.Background())
			err := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}}).Start()
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("plugin %q", p.Name())) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start() = %v, want an error naming the plugin and %q", err, tt.want)
			}
		})
	}
}

// TestConcurrentEvents checks that every one of many concurrent calls over
// several sessions gets exactly one event with its own request ID.
func TestConcurrentEvents(t *testing.T) {
	out := &lines{}
	aud := newAudit(t, out, audit.Config{QueueSize: 4096, Flows: []flows.ID{flows.ToolsCallTool}})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
	const calls, sessions = 500, 10
	ss := make([]*plugintest.Session, sessions)
	for i := range ss {
		ss[i] = h.Connect(&plugintest.SessionOptions{Token: &auth.TokenInfo{UserID: fmt.Sprint("user", i)}})
	}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			ss[i%sessions].Call(plugintest.ToolEcho, plugintest.Text{Text: fmt.Sprint(i)}).WantText(plugintest.EchoText(fmt.Sprint(i)))
		})
	}
	wg.Wait()
	flush(t, aud)
	evs := out.events(t)
	if len(evs) != calls || aud.Dropped() != 0 {
		t.Fatalf("%d events, %d dropped; want %d and 0", len(evs), aud.Dropped(), calls)
	}
	ids := map[string]bool{}
	for _, ev := range evs {
		var in plugintest.Text
		if err := json.Unmarshal(ev.Args, &in); err != nil {
			t.Fatal(err)
		}
		var i int
		fmt.Sscan(in.Text, &i)
		if want := fmt.Sprint("user", i%sessions); ev.Principal != want {
			t.Errorf("call %d: principal %q, want %q", i, ev.Principal, want)
		}
		if ids[ev.RequestID] {
			t.Errorf("request ID %s twice", ev.RequestID)
		}
		ids[ev.RequestID] = true
	}
}

func TestCloseDropsLaterEvents(t *testing.T) {
	out := &lines{}
	aud := newAudit(t, out, audit.Config{Flows: []flows.ID{flows.ToolsCallTool}})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "before"})
	if err := aud.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(out.events(t)); n != 1 {
		t.Errorf("Close wrote %d events, want the queued one", n)
	}
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "after"}).WantText(plugintest.EchoText("after"))
	if aud.Dropped() != 1 {
		t.Errorf("Dropped() = %d after a call past Close, want 1", aud.Dropped())
	}
	if err := aud.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
