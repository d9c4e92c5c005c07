package guidance_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/guidance"
)

// sessionHooks are session start hooks: one for every client, one for
// clients with sampling, one for clients with elicitation and roots, one
// whose content file is missing, and a storage hook for another backend.
func sessionHooks() []guidance.Hook {
	files := fstest.MapFS{"welcome.md": {Data: []byte("Welcome. Call `session_init` first.\n")}}
	return []guidance.Hook{
		{Tag: "welcome", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Welcome", Level: guidance.Should, FS: files},
		{Tag: "init", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Initialization", Level: guidance.Must, Priority: 100,
			Content: "You MUST call `session_init` before any other tool."},
		{Tag: "sampling-guide", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Sampling", Level: guidance.May,
			Conditions: guidance.Conditions{Features: []guidance.Feature{guidance.Sampling}}, Content: "Ask the server to summarize with sampling."},
		{Tag: "elicit-roots", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Elicitation and roots", Level: guidance.May,
			Conditions: guidance.Conditions{Features: []guidance.Feature{guidance.Elicitation, guidance.Roots}}, Content: "The server may ask your user."},
		{Tag: "lost", Type: guidance.TypeSession, Lifecycle: guidance.Start, Name: "Lost", Level: guidance.Should, FS: files},
		{Tag: "memory-tips", Type: guidance.TypeStorage, Lifecycle: guidance.Start, Name: "Memory", Level: guidance.Should,
			Conditions: guidance.Conditions{Storage: []string{"memory"}}, Content: "Notes are lost on restart."},
		{Tag: "file-tips", Type: guidance.TypeStorage, Lifecycle: guidance.Start, Name: "Files", Level: guidance.Should,
			Conditions: guidance.Conditions{Storage: []string{"file"}}, Content: "Notes are kept in files."},
	}
}

// sessionGuidance is the session start guidance a client with features
// gets from sessionHooks, with storage "file" active.
func sessionGuidance(f guidance.Features) string {
	return guidance.Composer{}.Compose(guidance.Env{Storage: []string{"file"}, Features: f}, sessionHooks(), nil).Content
}

// TestSessionStart: each session's initialize result carries, after the
// server's own instructions, the session start guidance composed for the
// capabilities its client declared; the welcome prompt returns the same
// text as one assistant message; the skipped and failed hooks reach the
// client as log messages (notice and error) once it sets a log level.
func TestSessionStart(t *testing.T) {
	p := guidance.New(guidance.Config{App: "notes", Hooks: sessionHooks(), Storage: []string{"file"}})
	srv := newServer(t, p, &framework.Options{Instructions: "A notes server."}, nil)
	tests := []struct {
		name     string
		client   client
		features guidance.Features
		skipped  string
	}{
		{"plain", client{}, 0,
			"3 hooks were skipped (conditions not met): sampling-guide (requires features: sampling), elicit-roots (requires features: elicitation, roots), memory-tips (requires storage: memory)."},
		{"sampling", client{sampling: true}, guidance.Features(0).With(guidance.Sampling),
			"2 hooks were skipped (conditions not met): elicit-roots (requires features: elicitation, roots), memory-tips (requires storage: memory)."},
		{"elicitation and roots", client{elicitation: true, roots: true}, guidance.Features(0).With(guidance.Elicitation).With(guidance.Roots),
			"2 hooks were skipped (conditions not met): sampling-guide (requires features: sampling), memory-tips (requires storage: memory)."},
		{"elicitation only", client{elicitation: true}, guidance.Features(0).With(guidance.Elicitation),
			"3 hooks were skipped (conditions not met): sampling-guide (requires features: sampling), elicit-roots (requires features: roots), memory-tips (requires storage: memory)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, l := connect(t, srv, tt.client)
			want := sessionGuidance(tt.features)
			if !strings.Contains(want, "### Welcome") {
				t.Fatalf("the expected guidance lacks the welcome hook:\n%s", want)
			}
			if got := cs.InitializeResult().Instructions; got != "A notes server.\n\n"+want {
				t.Errorf("instructions:\n%s\nwant the server's, a blank line, then:\n%s", got, want)
			}
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: guidance.DefaultWelcomePrompt})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Role != "assistant" || texts([]mcp.Content{res.Messages[0].Content})[0] != want {
				t.Errorf("welcome prompt: %+v, want one assistant message with the session guidance", res.Messages)
			}
			// The log messages held since initialize come with the
			// client's logging/setLevel.
			if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Fatal(err)
			}
			notice := l.wait(t, "notice of the skipped hooks", func(m *mcp.LoggingMessageParams) bool { return m.Level == "notice" })
			if text(notice) != tt.skipped || notice.Logger != guidance.LoggerName {
				t.Errorf("notice %q from logger %q, want %q from %q", text(notice), notice.Logger, tt.skipped, guidance.LoggerName)
			}
			failed := l.wait(t, "error of the failed hook", func(m *mcp.LoggingMessageParams) bool { return m.Level == "error" })
			if want := "notes:session:start:lost: content file lost.md: open: file does not exist (the hook is left out)"; text(failed) != want {
				t.Errorf("error %q, want %q", text(failed), want)
			}
			l.wait(t, "notice of the failed hook", func(m *mcp.LoggingMessageParams) bool {
				return text(m) == "1 hook failed to load: lost (content file lost.md: open: file does not exist)."
			})
			if n := len(l.snapshot()); n != 3 {
				// Each message once per session: the welcome prompt's
				// composition had the same notices.
				t.Errorf("%d log messages, want 3 (failed-load error, skip notice, failure notice): %s", n, l)
			}
		})
	}
}

// TestSessionStartOverHTTP: the same over streamable HTTP.
func TestSessionStartOverHTTP(t *testing.T) {
	p := guidance.New(guidance.Config{Hooks: sessionHooks(), Storage: []string{"file"}})
	srv := newServer(t, p, nil, nil)
	cs, l := connect(t, srv, client{http: true, sampling: true, logLevel: "notice"})
	want := sessionGuidance(guidance.Features(0).With(guidance.Sampling))
	if got := cs.InitializeResult().Instructions; got != want {
		t.Errorf("instructions:\n%s\nwant:\n%s", got, want)
	}
	l.wait(t, "notice", func(m *mcp.LoggingMessageParams) bool {
		return m.Level == "notice" && strings.HasPrefix(text(m), "2 hooks were skipped")
	})
}

// TestSessionStartDiscover: a client of protocol 2026-07-28 discovers
// instead of initializing; its instructions are composed for the
// capabilities its requests carry.
func TestSessionStartDiscover(t *testing.T) {
	p := guidance.New(guidance.Config{Hooks: sessionHooks(), Storage: []string{"file"}})
	srv := newServer(t, p, nil, nil)
	for _, sampling := range []bool{false, true} {
		cs, _ := connect(t, srv, client{sampling: sampling, protocol: "2026-07-28"})
		var f guidance.Features
		if sampling {
			f = f.With(guidance.Sampling)
		}
		if got, want := cs.InitializeResult().Instructions, sessionGuidance(f); got != want {
			t.Errorf("sampling %v: instructions:\n%s\nwant:\n%s", sampling, got, want)
		}
	}
}

// TestCheck: Check names the targets that are no tool of the server.
func TestCheck(t *testing.T) {
	typo := inline("typo", guidance.TypeAction, guidance.End, guidance.May, "x")
	typo.On = guidance.Tool("save_nots")
	ok := inline("ok", guidance.TypeAction, guidance.End, guidance.May, "x")
	ok.On = guidance.Tool("save_note")
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{typo, ok}})
	if err := p.Check(); err == nil {
		t.Error("Check before Start found nothing")
	}
	newServer(t, p, nil, func(s *framework.Server) error {
		return framework.AddToolFunc(s, &mcp.Tool{Name: "save_note"}, saveNote)
	})
	err := p.Check()
	if want := `guidance: hook hookflow:action:end:typo: the server has no tool "save_nots"`; err == nil || err.Error() != want {
		t.Errorf("Check: %v, want %q", err, want)
	}
}

// TestWelcomeRole: the welcome prompt's message has the configured role,
// and a renamed prompt; with NoInstructions the initialize result keeps
// the server's instructions.
func TestWelcomeRole(t *testing.T) {
	p := guidance.New(guidance.Config{Hooks: sessionHooks(), Storage: []string{"file"}, Role: "user", WelcomePrompt: "start_here", NoInstructions: true})
	srv := newServer(t, p, &framework.Options{Instructions: "Only this."}, nil)
	cs, _ := connect(t, srv, client{})
	if got := cs.InitializeResult().Instructions; got != "Only this." {
		t.Errorf("instructions %q, want the server's only", got)
	}
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "start_here"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Errorf("messages %+v, want one user message", res.Messages)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: guidance.DefaultWelcomePrompt}); err == nil {
		t.Error("the default welcome prompt exists next to the renamed one")
	}
}

// TestNoWelcomePrompt: NoWelcomePrompt adds no prompt; a session without
// any hook gets the server's instructions unchanged.
func TestNoWelcomePrompt(t *testing.T) {
	p := guidance.New(guidance.Config{NoWelcomePrompt: true})
	srv := newServer(t, p, &framework.Options{Instructions: "Plain."}, func(s *framework.Server) error {
		return framework.AddToolFunc(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) { return nil, nil })
	})
	cs, _ := connect(t, srv, client{})
	if got := cs.InitializeResult().Instructions; got != "Plain." {
		t.Errorf("instructions %q", got)
	}
	if cs.InitializeResult().Capabilities.Prompts != nil {
		t.Error("the server has prompts")
	}
}
